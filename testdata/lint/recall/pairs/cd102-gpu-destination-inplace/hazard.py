import torch


class PinnedLoader:
    def __init__(self, shape):
        self.host = torch.empty(shape, dtype=torch.float32).pin_memory()

    def next_batch(self, array):
        self.host.copy_(torch.as_tensor(array))
        gpu = self.host.cuda(non_blocking=True)
        self.host.div_(255.0)  # want CD102
        return gpu
