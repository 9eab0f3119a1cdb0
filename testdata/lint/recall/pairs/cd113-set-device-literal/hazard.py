import torch
import torch.distributed as dist


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(1)  # want CD113
    model = torch.nn.Linear(4, 4).cuda()
    return model
