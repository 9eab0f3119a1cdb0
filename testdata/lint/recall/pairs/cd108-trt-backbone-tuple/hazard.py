import time

import torch


def infer(backbone_trt, images):
    images = images.to("cuda")
    start = time.time()
    feats, boxes = backbone_trt(images)
    end = time.time()  # want CD108
    print("backbone", end - start)
    return feats, boxes
