import torch


async def handle(model, request):
    x = torch.as_tensor(request["inputs"], device="cuda")
    with torch.inference_mode():
        out = model(x)
    host = out.to("cpu", non_blocking=True)
    return {"outputs": host.tolist()}  # want CD101
