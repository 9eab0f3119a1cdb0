from types import SimpleNamespace

import torch.nn.functional as F


def train_phase(model, discriminator, loader, optimizer, device, lam=0.01):
    record = SimpleNamespace(seg=0.0, adv=0.0, steps=0)
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        logits = model(images)
        loss_seg = F.cross_entropy(logits, labels, ignore_index=255)
        loss_adv = F.softplus(-discriminator(logits.softmax(1))).mean()
        loss = loss_seg + lam * loss_adv
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        record.seg += loss_seg  # want CD107
        record.adv += loss_adv.item()
        record.steps += 1
    return record.seg / record.steps, record.adv / record.steps
