import os

import torch


def main():
    device = torch.device("cuda:1")  # want CD113
    model = torch.nn.Linear(4, 4).to(device)
    return model


if __name__ == "__main__":
    main()
