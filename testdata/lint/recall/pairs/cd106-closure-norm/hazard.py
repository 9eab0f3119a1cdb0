import torch


def make_probe(acts):
    h = acts.half()

    def magnitude():
        return h.norm(dim=-1)  # want CD106

    return magnitude
