import torch


class Uploader:
    def __init__(self, n):
        self.buf = torch.zeros(n).pin_memory()

    def push(self, values):
        self.buf[: len(values)] = torch.as_tensor(values)
        gpu = self.buf.cuda(non_blocking=True)
        self.buf.zero_()  # want CD102
        return gpu
