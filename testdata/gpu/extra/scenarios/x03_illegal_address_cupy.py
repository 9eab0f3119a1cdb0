import cupy as cp
import torch
k = cp.RawKernel(r'''
extern "C" __global__ void poke(float* p) { p[threadIdx.x + (1ull << 40)] = 1.0f; }
''', 'poke')
buf = torch.zeros(32, device="cuda")
k((1,), (32,), (buf.data_ptr(),))  # FAULT
x = torch.ones(8, device="cuda") * 2
print(x.sum().item())
