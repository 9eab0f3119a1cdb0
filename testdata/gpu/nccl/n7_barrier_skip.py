# Only rank 0 reaches the barrier after saving a checkpoint; rank 1 goes straight on to a long
# evaluation, and rank 0 hangs in the barrier until the watchdog fires.
import time
from datetime import timedelta
import torch
import torch.distributed as dist


def evaluate(model):
    time.sleep(120)  # stands for a long evaluation pass


def main():
    dist.init_process_group("nccl", timeout=timedelta(seconds=15))
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(256, 256).cuda()
    for step in range(3):
        loss = model(torch.randn(32, 256, device="cuda")).mean()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
    if rank == 0:
        torch.save(model.state_dict(), "/tmp/n7_checkpoint.pt")
        dist.barrier()  # FAULT: only rank 0 reaches this barrier
    evaluate(model)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
