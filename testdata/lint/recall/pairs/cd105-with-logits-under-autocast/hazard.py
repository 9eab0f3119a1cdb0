import torch
import torch.nn.functional as F


def train_step(model, batch, scaler, opt):
    x, y = batch
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        logits = model(x)
        probs = torch.sigmoid(logits)
        loss = F.binary_cross_entropy(probs, y.float())  # want CD105
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return probs.detach()
