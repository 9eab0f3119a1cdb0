import torch


def train_epoch(model, loader, optimizer):
    model.train()
    for tokens, targets in loader:
        tokens, targets = tokens.cuda(non_blocking=True), targets.cuda(non_blocking=True)
        with torch.cuda.amp.autocast(dtype=torch.bfloat16):  # want CD104
            logits = model(tokens)
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
