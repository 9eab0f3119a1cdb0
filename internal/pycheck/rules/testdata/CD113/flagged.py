import torch

x = torch.zeros(8, device="cuda:3")  # want CD113
y = x.to('cuda:1')  # want CD113
z = torch.ones(2).cuda(1)  # want CD113
torch.cuda.set_device(2)  # want CD113
