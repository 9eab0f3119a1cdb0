import heapq


def train(model, loader, opt, crit, k=5):
    worst = []
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        heapq.heappush(worst, (loss, step))  # want CD107
        if len(worst) > k:
            heapq.heappop(worst)
    return worst
