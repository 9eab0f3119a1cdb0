import torch
from torch.amp import autocast, GradScaler

scaler = GradScaler("cuda")
with autocast("cuda", dtype=torch.float16):
    pass

try:
    from torch.amp import custom_fwd
except ImportError:
    from torch.cuda.amp import custom_fwd

# torch.cuda.amp.autocast is deprecated: this comment must not be flagged.
doc = "use torch.amp instead of torch.cuda.amp.autocast"
is_enabled = torch.cuda.amp.common.amp_definitely_not_available()

_TORCH_GREATER_EQUAL_2_4 = True
scaler2 = torch.amp.GradScaler("cuda") if _TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()
