import time
import torch
from tqdm import tqdm

model = torch.nn.Linear(4096, 4096).cuda()
for step in tqdm(range(100), desc="train", mininterval=0):
    time.sleep(0.02)
    n = 1024 if step < 40 else 20_000_000
    batch = torch.randn(n, 4096, device="cuda")  # FAULT
    model(batch).sum().backward()
