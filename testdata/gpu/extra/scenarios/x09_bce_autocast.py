import torch
import torch.nn.functional as F
x = torch.randn(8, device="cuda")
t = torch.rand(8, device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    p = torch.sigmoid(x @ torch.eye(8, device="cuda"))
    loss = F.binary_cross_entropy(p, t)  # FAULT
