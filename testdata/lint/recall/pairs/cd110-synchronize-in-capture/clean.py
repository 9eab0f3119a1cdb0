import torch


class Runner:
    def __init__(self, model, example):
        self.model = model
        self.static_in = example.clone()
        self.graph = torch.cuda.CUDAGraph()

    def capture(self):
        torch.cuda.synchronize()
        with torch.cuda.graph(self.graph):
            self.static_out = self.model(self.static_in)
