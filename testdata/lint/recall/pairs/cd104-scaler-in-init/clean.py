import torch


class Trainer:
    def __init__(self, model, use_amp):
        self.model = model
        self.scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
