import torch


def capture_step(model, static_x, static_y, loss_fn):
    g = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    with torch.cuda.graph(g):
        static_loss = loss_fn(model(static_x), static_y)
    g.replay()
    print(static_loss.item())
    return g, static_loss
