import torch
src = torch.zeros(10, device="cuda")
idx = torch.tensor([3, 20, 1], device="cuda")
out = src.scatter(0, idx, 1.0)  # FAULT
print(out.sum().item())
