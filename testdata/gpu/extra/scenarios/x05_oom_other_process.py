import subprocess, sys, time, torch
hog = subprocess.Popen([sys.executable, "-c", "import torch,time; x=torch.empty(60<<30, dtype=torch.uint8, device='cuda'); print('hog ready', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
print(hog.stdout.readline().strip(), flush=True)
try:
    y = torch.empty(30 << 30, dtype=torch.uint8, device="cuda")  # FAULT
finally:
    hog.kill()
