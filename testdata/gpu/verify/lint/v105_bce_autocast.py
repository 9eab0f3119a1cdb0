import torch
import torch.nn.functional as F
p = torch.rand(8, device="cuda")
y = torch.rand(8, device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    loss = F.binary_cross_entropy(p, y)
print("no error", loss)
