import torch


def demo():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.sigmoid()
    b[1] = 2  # want CD109
    b.sum().backward()
    return a.grad
