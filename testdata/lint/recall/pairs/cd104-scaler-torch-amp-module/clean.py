from torch import amp


def build(model, lr):
    import torch
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    scaler = amp.GradScaler("cuda")
    return opt, scaler
