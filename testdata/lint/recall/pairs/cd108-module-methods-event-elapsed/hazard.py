import time

import torch
from torch import nn


class ProfiledEncoder(nn.Module):
    def __init__(self, dim=768, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList(nn.TransformerEncoderLayer(dim, 12, batch_first=True) for _ in range(depth))
        self.timings = []

    def _run_blocks(self, x):
        for block in self.blocks:
            x = block(x)
        return x

    def forward(self, x):
        start = time.perf_counter()
        out = self._run_blocks(x.cuda(non_blocking=True))
        self.timings.append(time.perf_counter() - start)  # want CD108
        return out


if __name__ == "__main__":
    enc = ProfiledEncoder().cuda().eval()
    with torch.no_grad():
        for _ in range(20):
            enc(torch.randn(16, 128, 768).pin_memory())
    print(sum(enc.timings) / len(enc.timings))
