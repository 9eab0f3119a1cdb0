import torch


def upload_frames(frames, device):
    staging = torch.empty(frames[0].shape, dtype=torch.uint8, pin_memory=True)
    out = []
    for frame in frames:
        buf = staging
        buf.copy_(torch.from_numpy(frame))  # want CD102
        out.append(buf.to(device, non_blocking=True))
    return out
