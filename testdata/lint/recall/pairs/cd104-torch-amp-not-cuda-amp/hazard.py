from torch.cuda import amp


def fit(model, loader, opt, crit, epochs=1):
    scaler = amp.GradScaler()  # want CD104
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            with amp.autocast():
                loss = crit(model(x.cuda()), y.cuda())
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
