import json

import torch


class Predictor:
    def __init__(self, model):
        self.model = model
        self.last = None

    @torch.inference_mode()
    def predict(self, x):
        boxes = self.model(x.cuda())
        self.last = boxes.to("cpu", non_blocking=True)
        return self

    def to_json(self):
        return json.dumps({"boxes": self.last.tolist()})  # want CD101
