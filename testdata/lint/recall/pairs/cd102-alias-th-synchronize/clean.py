import torch as th


class Uploader:
    def __init__(self, n):
        self.buf = th.zeros(n, pin_memory=True)

    def push(self, values):
        self.buf[: len(values)] = th.as_tensor(values)
        dev = self.buf.cuda(non_blocking=True)
        th.cuda.synchronize()
        self.buf.zero_()
        return dev
