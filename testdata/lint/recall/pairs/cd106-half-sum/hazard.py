import torch


def column_totals(x):
    return x.half().sum(0)  # want CD106
