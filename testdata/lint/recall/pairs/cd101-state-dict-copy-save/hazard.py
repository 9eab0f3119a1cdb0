import torch


def offload(model, path):
    cpu_sd = {}
    for key, tensor in model.state_dict().items():
        cpu_sd[key] = tensor.to("cpu", non_blocking=True)
    torch.save(cpu_sd, path)  # want CD101
    return cpu_sd
