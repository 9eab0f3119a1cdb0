"""A small package whose helpers the training script imports."""
from .transfer import to_host, wait_for_gpu

__all__ = ["to_host", "wait_for_gpu"]
