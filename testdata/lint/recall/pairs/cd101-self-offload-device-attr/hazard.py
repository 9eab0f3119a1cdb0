import torch


class Offloader:
    def __init__(self):
        self.offload_device = torch.device("cpu")

    def park(self, act):
        parked = act.to(self.offload_device, non_blocking=True)
        return parked.sum().item()  # want CD101
