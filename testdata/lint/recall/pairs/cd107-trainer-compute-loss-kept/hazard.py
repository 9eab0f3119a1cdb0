import torch
from transformers import Trainer


class DistillTrainer(Trainer):
    def __init__(self, *args, teacher=None, alpha=0.5, **kwargs):
        super().__init__(*args, **kwargs)
        self.teacher = teacher
        self.alpha = alpha
        self.kd_losses = []

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        with torch.no_grad():
            teacher_logits = self.teacher(**inputs).logits
        kd_loss = torch.nn.functional.kl_div(
            outputs.logits.log_softmax(-1), teacher_logits.softmax(-1), reduction="batchmean"
        )
        self.kd_losses.append(kd_loss)  # want CD107
        loss = self.alpha * outputs.loss + (1 - self.alpha) * kd_loss
        return (loss, outputs) if return_outputs else loss

    def log(self, logs, *args, **kwargs):
        if self.kd_losses:
            logs["kd_loss"] = torch.stack(self.kd_losses).mean().item()
            self.kd_losses.clear()
        super().log(logs, *args, **kwargs)
