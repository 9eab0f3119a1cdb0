import torch


def show(t):
    print("loss shape", tuple(t.shape))


def capture_step(model, x, y, g):
    with torch.cuda.graph(g):
        loss = torch.nn.functional.mse_loss(model(x), y)
        show(loss)
    return loss
