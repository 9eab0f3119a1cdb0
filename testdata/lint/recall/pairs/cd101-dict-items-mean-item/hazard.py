import torch


def log_outputs(writer, outputs, step):
    host = {name: t.detach().to("cpu", non_blocking=True) for name, t in outputs.items()}
    for name, value in host.items():
        writer.add_scalar(f"out/{name}", value.float().mean().item(), step)  # want CD101
