import torch


def capture_step(model, static_x, static_y, crit, opt):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            loss = crit(model(static_x), static_y)
            loss.backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(s)

    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        static_loss = crit(model(static_x), static_y)
        static_loss.backward()
        opt.step()
        print("captured loss", static_loss.item())  # want CD110
    return g, static_loss
