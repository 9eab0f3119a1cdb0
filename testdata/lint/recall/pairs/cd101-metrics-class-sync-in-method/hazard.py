import torch


class Meter:
    def __init__(self):
        self.host = None

    def snapshot(self, t):
        self.host = t.to("cpu", non_blocking=True)
        return self.host.sum().item()  # want CD101
