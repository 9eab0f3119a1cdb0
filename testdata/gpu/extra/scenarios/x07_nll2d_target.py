import torch
import torch.nn.functional as F
logits = torch.randn(2, 5, 8, 8, device="cuda")
target = torch.randint(0, 5, (2, 8, 8), device="cuda")
target[0, 0, 0] = 7
loss = F.cross_entropy(logits, target)  # FAULT
print(loss.item())
