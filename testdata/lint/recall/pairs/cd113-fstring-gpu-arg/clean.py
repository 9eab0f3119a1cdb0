import argparse

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--gpu", type=int, default=0)
    args = parser.parse_args()
    model = torch.nn.Linear(4, 4).to(f"cuda:{args.gpu}")
    return model, args
