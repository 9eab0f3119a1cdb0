import torch


@torch.no_grad()
def feature_energy(model: torch.nn.Module, images: torch.Tensor) -> torch.Tensor:
    model = model.half().eval()
    feats = model(images.cuda().half())
    scaled = feats.half() * 4.0
    return scaled.float().pow(2).sum(dim=-1)
