from rich.traceback import install
install(width=100, show_locals=False)
import torch

emb = torch.nn.Embedding(10, 4).cuda()
ids = torch.tensor([3, 12], device="cuda")
out = emb(ids)  # FAULT
print(out.sum().item())
