import os
import subprocess
import sys
import torch
path = os.path.join(os.environ.get("OUT_DIR", "."), "ckpt.pt")
torch.save({"w": torch.ones(3, device="cuda")}, path)
child = """
import sys, torch
try:
    torch.load(sys.argv[1])
    print("load without map_location: ok")
except Exception as e:
    print("load without map_location:", type(e).__name__, str(e).splitlines()[0])
print("load with map_location=cpu:", torch.load(sys.argv[1], map_location="cpu")["w"].device)
"""
env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
print(subprocess.run([sys.executable, "-c", child, path], env=env, capture_output=True, text=True).stdout)
