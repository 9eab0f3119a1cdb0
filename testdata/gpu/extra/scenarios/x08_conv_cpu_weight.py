import torch
conv = torch.nn.Conv2d(3, 8, 3)
x = torch.randn(1, 3, 32, 32, device="cuda")
y = conv(x)  # FAULT
