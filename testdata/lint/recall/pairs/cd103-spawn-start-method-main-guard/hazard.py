import torch
import torch.multiprocessing as mp


def score_shard(args):
    weights, shard = args
    return (shard @ weights).sum().item()


def main():
    weights = torch.randn(1024, 256).cuda()
    shards = [torch.randn(4096, 1024) for _ in range(8)]
    with mp.Pool(4) as pool:  # want CD103
        totals = pool.map(score_shard, [(weights.cpu(), s) for s in shards])
    print(sum(totals))


if __name__ == "__main__":
    main()
