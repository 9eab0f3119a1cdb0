from dataclasses import dataclass

import torch


@dataclass
class Staging:
    buf: torch.Tensor


def upload_frames(frames, device: torch.device):
    st = Staging(buf=torch.empty(frames[0].shape, pin_memory=True))
    out = []
    for frame in frames:
        st.buf.copy_(frame)  # want CD102
        out.append(st.buf.to(device, non_blocking=True))
    return out
