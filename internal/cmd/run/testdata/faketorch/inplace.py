import torch
x = torch.Tensor((32, 8))
y = torch.sigmoid(x)
mask = None
y[mask] = 0  # FAULT
loss = y
loss.backward()
