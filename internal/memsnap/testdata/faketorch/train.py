import builtins
import sys

print("chained", getattr(builtins, "CHAINED_SITECUSTOMIZE", False))
print("torch at start", "torch" in sys.modules)
if sys.argv[1:] == ["torch"]:
    import torch

    print("recording before init", torch.cuda.memory.recording)
    torch.cuda.init()
    print("recording after init", torch.cuda.memory.recording["max_entries"], torch.cuda.memory.recording["stacks"])
    for observer in torch._C.observers:
        observer(0, 1024, 0, 0)
print("done")
