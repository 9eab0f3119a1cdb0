import torch

import metrics


def capture_step(model, opt, static_in, static_target, loss_fn):
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        loss = loss_fn(model(static_in), static_target)
        loss.backward()
        norm = metrics.grad_norm_tensor(model.parameters())
        opt.step()
    return graph, norm
