import time

import torch


def infer(backbone_trt, images):
    images = images.to("cuda")
    torch.cuda.synchronize()
    start = time.time()
    feats, boxes = backbone_trt(images)
    torch.cuda.synchronize()
    end = time.time()
    print("backbone", end - start)
    return feats, boxes
