import torch


def main(args, model):
    model.load_state_dict(torch.load(args.ckpt))  # want CD112
    return model.eval()
