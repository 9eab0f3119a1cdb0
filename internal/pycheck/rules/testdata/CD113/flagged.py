import torch

x = torch.zeros(8, device="cuda:3")  # want CD113
y = x.to('cuda:1')  # want CD113
z = torch.ones(2).cuda(1)  # want CD113
torch.cuda.set_device(2)  # want CD113


def test_runs_on_second_gpu():
    t = torch.ones(4, device="cuda:1")  # want CD113
    u = t.to(torch.device("cuda", 2))  # want CD113
    torch.cuda.set_device(torch.device("cuda:1"))  # want CD113
    return t.cuda(3), u  # want CD113
