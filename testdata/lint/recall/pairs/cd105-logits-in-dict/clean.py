import torch.nn.functional as F


def compute_loss(outputs, batch):
    return F.binary_cross_entropy_with_logits(outputs["logits"], batch["label"].float())
