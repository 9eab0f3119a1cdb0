import torch

x = torch.randn(1024, device="cuda")
g = torch.cuda.CUDAGraph()
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        y = x * 2
    torch.cuda.current_stream().synchronize()
with torch.cuda.graph(g):
    y = x * 2
    y = torch.where(y.sum() > 0, y + 1, y)
    print("capturing")
g.replay()
torch.cuda.synchronize()
print(y.sum().item())
