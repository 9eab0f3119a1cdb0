import multiprocessing as mp

import torch


def load_model(path: str) -> torch.nn.Module:
    model = torch.jit.load(path)
    return model.cuda().eval()


def score(item: str) -> float:
    return float(len(item))


def main(path: str, items: list[str]) -> list[float]:
    model = load_model(path)
    pool = mp.get_context("spawn").Pool(processes=4)
    try:
        return pool.map(score, items)
    finally:
        pool.close()
        del model
