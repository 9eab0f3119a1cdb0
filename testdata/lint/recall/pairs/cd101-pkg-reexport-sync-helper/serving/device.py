import torch


def wait_for_gpu():
    if torch.cuda.is_available():
        torch.cuda.current_stream().synchronize()
