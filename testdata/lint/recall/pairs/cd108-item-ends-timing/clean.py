import time


def timed_step(model, x, y, crit, opt):
    tic = time.time()
    opt.zero_grad(set_to_none=True)
    loss = crit(model(x.cuda()), y.cuda())
    loss.backward()
    opt.step()
    value = loss.item()
    took = time.time() - tic
    return value, took
