import torch


class Trainer:
    def __init__(self, model, use_amp):
        self.model = model
        self.scaler = torch.cuda.amp.GradScaler(enabled=use_amp)  # want CD104
