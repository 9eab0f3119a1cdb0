import torch


def capture(model, opt, static_x, static_y):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            model(static_x).sum().backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        static_loss = torch.nn.functional.mse_loss(model(static_x), static_y)
        static_loss.backward()
        opt.step()
    g.replay()
    print("replayed loss", static_loss.item())
    return g, static_loss
