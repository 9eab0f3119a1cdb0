import torch


def capture_step(model, static_x, static_y, loss_fn):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_loss = loss_fn(model(static_x), static_y)
        print(static_loss.item())  # want CD110
    return g, static_loss
