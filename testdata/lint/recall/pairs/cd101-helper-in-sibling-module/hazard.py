import torch

from .transfer import stage_to_host


@torch.no_grad()
def predict(model, loader):
    labels = []
    for images in loader:
        logits = model(images.cuda(non_blocking=True))
        preds = stage_to_host(logits.argmax(dim=1))
        labels.extend(preds.tolist())  # want CD101
    return labels
