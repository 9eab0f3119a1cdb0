import torch


async def handle(model, request):
    x = torch.as_tensor(request["inputs"], device="cuda")
    with torch.inference_mode():
        out = model(x)
    host = out.to("cpu", non_blocking=True)
    torch.cuda.current_stream().synchronize()
    return {"outputs": host.tolist()}
