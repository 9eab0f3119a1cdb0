"""Streaming inference: the host consumes the previous batch's predictions
while the GPU works on the next one."""
import torch


@torch.inference_mode()
def predict_stream(model, loader, device="cuda"):
    results = []
    prev, prev_done = None, None
    for batch in loader:
        logits = model(batch.to(device, non_blocking=True))
        cur = logits.argmax(dim=-1).to("cpu", non_blocking=True)
        done = torch.cuda.Event()
        done.record()
        if prev is not None:
            prev_done.synchronize()
            results.extend(prev.tolist())
        prev, prev_done = cur, done
    torch.cuda.synchronize()
    if prev is not None:
        results.extend(prev.tolist())
    return results
