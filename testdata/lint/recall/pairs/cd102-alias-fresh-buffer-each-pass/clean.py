import torch


def upload_frames(frames, device):
    out = []
    for frame in frames:
        buf = torch.empty(frame.shape, dtype=torch.uint8, pin_memory=True)
        buf.copy_(torch.from_numpy(frame))
        out.append(buf.to(device, non_blocking=True))
    return out
