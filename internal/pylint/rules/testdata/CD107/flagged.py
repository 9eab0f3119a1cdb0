import torch

model = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(4)]).cuda()
history = []
for step in range(10_000):
    x = torch.randn(2048, 8192, device="cuda")
    loss = model(x).pow(2).mean()
    history.append(loss)  # want CD107


def train(model, loader, opt):
    total = 0
    for x, y in loader:
        opt.zero_grad()
        out = model(x)
        err = torch.nn.functional.mse_loss(out, y)
        err.backward()
        opt.step()
        total += err  # want CD107
    return total


class Loop:
    def fit(self, model, loader):
        self.losses = []
        while True:
            batch_loss = model(next(loader)).mean()
            self.losses.append(batch_loss * 2)  # want CD107
