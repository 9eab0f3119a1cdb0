from torch.cuda import amp


def build(model, lr):
    import torch
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    scaler = amp.GradScaler()  # want CD104
    return opt, scaler
