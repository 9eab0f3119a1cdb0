import os

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "1")

import torch


def main():
    device = torch.device("cuda:0")
    model = torch.nn.Linear(4, 4).to(device)
    return model


if __name__ == "__main__":
    main()
