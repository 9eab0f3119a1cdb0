import torch


class Uploader:
    def __init__(self, n):
        self.buf = torch.zeros(n).pin_memory()

    def push(self, values):
        self.buf[: len(values)] = torch.as_tensor(values)
        gpu = self.buf.cuda(non_blocking=True)
        copied = torch.cuda.Event()
        copied.record()
        copied.synchronize()
        self.buf.zero_()
        return gpu
