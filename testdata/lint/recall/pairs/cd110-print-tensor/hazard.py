import torch


def record(step, static_batch):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = step(static_batch)
        print("loss", loss)  # want CD110
    return graph, loss
