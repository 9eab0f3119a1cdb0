def train_epoch(model, loader, opt):
    stats = {}
    for batch in loader:
        opt.zero_grad()
        loss = model(**batch).loss
        loss.backward()
        opt.step()
        stats["loss"] = stats.get("loss", 0.0) + loss  # want CD107
    return stats
