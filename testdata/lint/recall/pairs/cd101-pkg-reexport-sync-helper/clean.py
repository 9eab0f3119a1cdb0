import torch

from serving import decode_boxes, wait_for_gpu


@torch.inference_mode()
def predict(detector, images, labels):
    dets = detector(images.cuda(non_blocking=True))
    host = dets.to("cpu", non_blocking=True)
    wait_for_gpu()
    rows = host.tolist()
    return decode_boxes(rows, labels)
