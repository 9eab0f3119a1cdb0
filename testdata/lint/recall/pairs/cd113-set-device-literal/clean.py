import torch
import torch.distributed as dist


def main():
    dist.init_process_group("nccl")
    local = dist.get_rank() % torch.cuda.device_count()
    torch.cuda.set_device(local)
    model = torch.nn.Linear(4, 4).cuda()
    return model
