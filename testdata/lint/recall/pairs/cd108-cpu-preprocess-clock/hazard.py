import time

import numpy as np
import torch


def profile_pipeline(model, images):
    t_pre = time.perf_counter()
    batch = np.stack([np.asarray(im, dtype=np.float32) / 255.0 for im in images])
    pre_s = time.perf_counter() - t_pre

    x = torch.from_numpy(batch).cuda()
    t_fwd = time.perf_counter()
    with torch.no_grad():
        out = model(x)
    fwd_s = time.perf_counter() - t_fwd  # want CD108
    return out, {"preprocess": pre_s, "forward": fwd_s}
