from torch import Tensor


def to_host(t: Tensor) -> Tensor:
    return t.detach().to("cpu")


def collect_scores(model, loader):
    scores: list[float] = []
    for images, _ in loader:
        probs = model(images.cuda()).sigmoid()
        scores.extend(to_host(probs).tolist())
    return scores
