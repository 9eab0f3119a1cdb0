import torch


@torch.inference_mode()
def predict_all(model, loader) -> list[int]:
    results: list[int] = []
    it = iter(loader)
    while (batch := next(it, None)) is not None:
        logits = model(batch.cuda(non_blocking=True))
        preds = logits.argmax(-1).to("cpu", non_blocking=True)
        results.extend(preds.tolist())  # want CD101
    return results
