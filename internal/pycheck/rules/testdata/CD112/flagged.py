import torch

state = torch.load("ckpt.pt")  # want CD112
opt = torch.load(path, weights_only=True)  # want CD112
