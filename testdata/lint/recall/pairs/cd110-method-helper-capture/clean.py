import torch


class GraphedStep:
    def __init__(self, model, static_in: torch.Tensor) -> None:
        self.model = model
        self.static_in = static_in
        self.graph = torch.cuda.CUDAGraph()
        self.history: list[float] = []

    def _step(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)

    def capture(self) -> None:
        with torch.cuda.graph(self.graph):
            self.static_out = self._step(self.static_in)

    def replay(self) -> torch.Tensor:
        self.graph.replay()
        self.history.append(self.static_out.mean().item())
        return self.static_out
