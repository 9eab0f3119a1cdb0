import torch

x = torch.randn(1024, device="cuda")
g = torch.cuda.CUDAGraph()
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    with torch.cuda.graph(g):
        y = x * 2
        if y.sum().item() > 0:  # want CD110
            y = y + 1
        torch.cuda.synchronize()  # want CD110
        print(y)  # want CD110
        host = y.cpu()  # want CD110
