import torch
torch.cuda.set_per_process_memory_fraction(0.05)
a = torch.empty(2 << 30, dtype=torch.uint8, device="cuda")
b = torch.empty(6 << 30, dtype=torch.uint8, device="cuda")  # FAULT
