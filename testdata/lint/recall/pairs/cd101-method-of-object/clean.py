import numpy as np
import torch


class Recon:
    def __init__(self, data):
        self.data = data

    def host_copy(self):
        return self.data.to("cpu", non_blocking=False)


def export(recon, path):
    img = recon.host_copy()
    np.save(path, img.numpy())
