from dataclasses import dataclass

import torch


@dataclass
class Staging:
    buf: torch.Tensor


def upload_frames(frames, device: torch.device):
    st = Staging(buf=torch.empty(frames[0].shape, pin_memory=True))
    out = []
    done = torch.cuda.Event()
    for frame in frames:
        st.buf.copy_(frame)
        out.append(st.buf.to(device, non_blocking=True))
        done.record()
        done.synchronize()
    return out
