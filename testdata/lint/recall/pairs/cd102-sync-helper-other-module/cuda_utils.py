import torch


def current_device():
    return torch.device("cuda", torch.cuda.current_device())


def wait_for_gpu():
    if torch.cuda.is_available():
        torch.cuda.synchronize()
