import torch


def grad_norm(params):
    return torch.norm(torch.stack([p.grad.norm() for p in params]))


def capture_step(model, opt, static_x, static_y, loss_fn):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        loss = loss_fn(model(static_x), static_y)
        loss.backward()
        norm = grad_norm(model.parameters())
        opt.step()
    return g, norm
