# Rank 1 runs out of GPU memory on an oversized batch while rank 0 waits in all_reduce.
from datetime import timedelta
import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    dist.init_process_group("nccl", timeout=timedelta(seconds=15))
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(4096, 4096).cuda()
    for step in range(5):
        batch = 64 * 1024 * 1024 if (rank == 1 and step == 2) else 64
        x = torch.randn(batch, 4096, device="cuda")  # FAULT: rank 1's batch needs 1 TiB at step 2
        loss = model(x).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
