import torch


def main(args, model):
    model.load_state_dict(torch.load(args.ckpt, map_location=args.device))
    return model.eval()
