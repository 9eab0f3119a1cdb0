import torch


class ActivationOffload:
    """Parks activations in host memory between forward and backward."""

    def __init__(self):
        self.parked = {}

    def park(self, name, act):
        host = act.to("cpu", non_blocking=True)
        self.parked[name] = (host, act.shape)
        if host.abs().max() > 1e4:  # want CD101
            print(f"large activation in {name}")

    def fetch(self, name):
        host, shape = self.parked.pop(name)
        return host.to("cuda", non_blocking=True).view(shape)
