import torch


class Offload:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.cuda.synchronize()
        return False


def dump(t, path):
    with Offload():
        host = t.to("cpu", non_blocking=True)
    data = host.numpy().tobytes()
    with open(path, "wb") as f:
        f.write(data)
