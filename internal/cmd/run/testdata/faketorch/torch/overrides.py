class TorchFunctionMode:
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

    def __enter__(self):
        import torch

        torch._modes.append(self)
        return self

    def __exit__(self, *exc):
        import torch

        torch._modes.remove(self)
