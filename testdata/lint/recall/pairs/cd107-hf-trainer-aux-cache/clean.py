from transformers import Trainer


class AuxLossTrainer(Trainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.aux_totals = {"z_loss": 0.0, "aux_loss": 0.0}
        self.aux_steps = 0

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        loss = outputs.loss
        self.aux_totals["z_loss"] += outputs.z_loss.mean().item()
        self.aux_totals["aux_loss"] += outputs.aux_loss.mean().item()
        self.aux_steps += 1
        return (loss, outputs) if return_outputs else loss

    def log(self, logs, *args, **kwargs):
        if self.aux_steps:
            for key, total in self.aux_totals.items():
                logs[key] = float(total) / self.aux_steps
            self.aux_totals = {"z_loss": 0.0, "aux_loss": 0.0}
            self.aux_steps = 0
        super().log(logs, *args, **kwargs)
