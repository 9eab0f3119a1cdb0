import torch

state = torch.load("ckpt.pt", map_location="cpu")
state2 = torch.load("ckpt.pt", "cpu")
state3 = torch.load("ckpt.pt", map_location=lambda storage, loc: storage)
kwargs = {"map_location": "cpu"}
state4 = torch.load("ckpt.pt", **kwargs)
text = "torch.load('x.pt')"


def test_roundtrip(tmp_path, model):
    path = tmp_path / "w.pt"
    torch.save(model.state_dict(), path)
    state = torch.load(path)
    model.load_state_dict(state)
