import torch


class Offloader:
    def __init__(self):
        self.stream = torch.cuda.Stream()

    def offload(self, act):
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            host = act.to("cpu", non_blocking=True)
            act.record_stream(self.stream)
        self.stream.synchronize()
        return host.abs().max()
