import torch
dst = torch.zeros(4, 3, device="cuda")
idx = torch.tensor([0, 9], device="cuda")
dst.index_add_(0, idx, torch.ones(2, 3, device="cuda"))  # FAULT
print(dst.sum().item())
