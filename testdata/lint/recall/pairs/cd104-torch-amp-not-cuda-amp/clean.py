from torch import amp


def fit(model, loader, opt, crit, epochs=1):
    scaler = amp.GradScaler("cuda")
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            with amp.autocast("cuda"):
                loss = crit(model(x.cuda()), y.cuda())
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
