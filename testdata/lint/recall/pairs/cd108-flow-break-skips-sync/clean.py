from time import perf_counter as now

import torch


def warmup_then_time(model, inputs, budget_s=1.0):
    begin = now()
    done = 0
    for x in inputs:
        model(x.to("cuda"))
        torch.cuda.synchronize()
        done += 1
        if done >= 100:
            break
    took = now() - begin
    return done / took
