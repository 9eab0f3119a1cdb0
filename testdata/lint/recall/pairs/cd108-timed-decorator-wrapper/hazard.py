import functools
import time

import torch


def record_time(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        begin = time.perf_counter()
        result = fn(*args, **kwargs)
        wrapper.seconds.append(time.perf_counter() - begin)
        return result

    wrapper.seconds = []
    return wrapper


@record_time  # want CD108
def rollout(policy, obs):
    with torch.no_grad():
        return policy(obs.to("cuda", non_blocking=True)).argmax(-1)


def main():
    policy = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 18)).cuda()
    for _ in range(100):
        rollout(policy, torch.randn(256, 512).pin_memory())
    print("rollout ms:", 1e3 * sum(rollout.seconds) / len(rollout.seconds))


if __name__ == "__main__":
    main()
