import torch
torch.autograd.set_detect_anomaly(True)
x = torch.zeros(4, device="cuda", requires_grad=True)
y = (x / x).sum()  # FAULT
y.backward()
print("grad", x.grad)
