import torch
import torch.multiprocessing as mp


def serve(rank, model):
    model(torch.zeros(1, 4, device="cuda"))


if __name__ == "__main__":
    model = torch.nn.Linear(4, 4).cuda()
    procs = [mp.Process(target=serve, args=(r, model)) for r in range(2)]  # want CD103
    for p in procs:
        p.start()
    for p in procs:
        p.join()
