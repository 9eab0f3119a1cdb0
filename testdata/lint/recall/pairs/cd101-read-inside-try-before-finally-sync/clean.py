import torch


def export_embeddings(encoder, batch, out_path: str) -> None:
    stream = torch.cuda.current_stream()
    try:
        emb = encoder(batch).to("cpu", non_blocking=True)
    finally:
        stream.synchronize()
    with open(out_path, "wb") as fh:
        fh.write(emb.numpy().tobytes())
