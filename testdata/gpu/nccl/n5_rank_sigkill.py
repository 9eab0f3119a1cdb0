# Rank 1 is killed by SIGKILL in the middle of training (as the Linux OOM killer or a scheduler
# would do); rank 0 is left waiting in all_reduce.
import os
import signal
from datetime import timedelta
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("nccl", timeout=timedelta(seconds=15))
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(1024, 1024).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(6):
        loss = model(torch.randn(64, 1024, device="cuda")).square().mean()
        loss.backward()
        if rank == 1 and step == 3:
            os.kill(os.getpid(), signal.SIGKILL)  # FAULT: rank 1 dies here
        for p in model.parameters():
            dist.all_reduce(p.grad)
        opt.step()
        opt.zero_grad()
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
