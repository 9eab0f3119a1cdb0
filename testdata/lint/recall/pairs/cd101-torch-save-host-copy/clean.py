import torch


def save_codebook(quantizer, path):
    book = quantizer.codebook.detach().to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    torch.save(book, path)
