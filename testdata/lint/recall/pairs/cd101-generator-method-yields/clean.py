import torch


class Streamer:
    def __init__(self, model):
        self.model = model

    def stream(self, chunks):
        for c in chunks:
            out = self.model(c.cuda())
            host = out.to("cpu", non_blocking=True)
            torch.cuda.synchronize()
            yield host


def run(streamer, chunks):
    arrays = []
    for host in streamer.stream(chunks):
        arrays.append(host.numpy())
    return arrays
