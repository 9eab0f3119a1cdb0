# Three process groups (the default one and two new_group's): at step 2 rank 1 skips its all_reduce
# on the third group, so rank 0 waits on that group while rank 1 waits on the default one.
from datetime import timedelta
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("nccl", timeout=timedelta(seconds=15))
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    g_grad = dist.new_group([0, 1])
    g_stats = dist.new_group([0, 1])
    x = torch.ones(4096, device="cuda")
    y = torch.ones(512, device="cuda")
    z = torch.ones(64, device="cuda")
    for step in range(5):
        dist.all_reduce(x)
        dist.all_reduce(y, group=g_grad)
        if not (rank == 1 and step == 2):
            dist.all_reduce(z, group=g_stats)  # FAULT: rank 1 skips this call at step 2
        torch.cuda.synchronize()
        print(f"rank {rank} step {step} done", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
