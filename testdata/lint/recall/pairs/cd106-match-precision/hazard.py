import torch


def sq_norm(x, precision):
    match precision:
        case "fp16":
            dt = torch.float16
        case "bf16":
            dt = torch.bfloat16
        case _:
            dt = torch.float32
    y = x.to(dt)
    return (y * y).sum()  # want CD106
