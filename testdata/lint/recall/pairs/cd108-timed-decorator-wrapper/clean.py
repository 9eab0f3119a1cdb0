import functools
import time

import torch


def record_time(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        begin = time.perf_counter()
        result = fn(*args, **kwargs)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        wrapper.seconds.append(time.perf_counter() - begin)
        return result

    wrapper.seconds = []
    return wrapper


@record_time
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
