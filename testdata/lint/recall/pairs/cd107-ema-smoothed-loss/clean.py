def train(model, loader, opt, crit):
    smooth = 0.0
    for x, y in loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        smooth = 0.98 * smooth + 0.02 * loss.item()
    return smooth
