import io

import torch


def load_blob(path: str):
    with open(path, "rb") as fh:
        buf = io.BytesIO(fh.read())
    return torch.load(buf, map_location=torch.device("cpu"))
