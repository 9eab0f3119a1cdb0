def train_epoch(net, batches, optim, loss_fn, logs):
    for data, label in batches:
        optim.zero_grad()
        loss = loss_fn(net(data), label)
        loss.backward()
        optim.step()
        logs.setdefault("train", []).append(loss)  # want CD107
    return logs
