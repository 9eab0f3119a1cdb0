import torch


def prefetch(batch_cpu: torch.Tensor):
    pinned = batch_cpu.pin_memory()
    copy_stream = torch.cuda.Stream()
    ctx = torch.cuda.stream(copy_stream)
    with ctx:
        gpu = pinned.to("cuda", non_blocking=True)
    copy_stream.synchronize()
    pinned.zero_()
    return gpu, copy_stream
