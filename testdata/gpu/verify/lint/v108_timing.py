import time
import torch
model = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(8)]).cuda()
x = torch.randn(4096, 8192, device="cuda")
model(x)
torch.cuda.synchronize()
t0 = time.perf_counter()
y = model(x)
unsynced = time.perf_counter() - t0
torch.cuda.synchronize()
t1 = time.perf_counter()
y = model(x)
torch.cuda.synchronize()
synced = time.perf_counter() - t1
print(f"unsynchronised {unsynced * 1e3:.2f} ms, synchronised {synced * 1e3:.2f} ms")
