import io

import torch


def load_blob(path: str):
    with open(path, "rb") as fh:
        buf = io.BytesIO(fh.read())
    return torch.load(buf)  # want CD112
