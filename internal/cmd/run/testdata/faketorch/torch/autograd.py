_anomaly = False


def set_detect_anomaly(on):
    global _anomaly
    _anomaly = bool(on)


def backward(tensors):
    return tensors.backward()


def grad(outputs, inputs):
    raise NotImplementedError
