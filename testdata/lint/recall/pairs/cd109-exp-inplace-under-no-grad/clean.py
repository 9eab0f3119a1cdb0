import torch


class Softmaxish(torch.nn.Module):
    def forward(self, x):
        e = x.exp()
        probs = e / e.sum(-1, keepdim=True)
        with torch.no_grad():
            shown = probs.detach().clone()
            shown.clamp_(min=1e-6)
        self.last = shown
        return probs
