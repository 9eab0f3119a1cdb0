from .device import wait_for_gpu
from .decode import decode_boxes

__all__ = ["wait_for_gpu", "decode_boxes"]
