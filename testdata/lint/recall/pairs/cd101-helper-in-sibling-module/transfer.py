"""Moving predictions off the GPU without stalling the stream."""


def stage_to_host(t):
    return t.detach().to("cpu", non_blocking=True)
