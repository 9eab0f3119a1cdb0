import os
import torch


def f():
    """Move to "cuda:1" when you have two GPUs."""


x = torch.zeros(8, device="cuda:0")
y = x.to("cuda")
rank = int(os.environ.get("LOCAL_RANK", 0))
z = torch.ones(2).cuda(rank)
torch.cuda.set_device(rank)
w = torch.ones(2, device=f"cuda:{rank}")
# device="cuda:2" in a comment


import pytest


@pytest.mark.parametrize("device", ["cpu", "cuda:1"])
def test_devices(device):
    pass


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_two():
    torch.ones(1).cuda(1)


if torch.cuda.device_count() > 1:
    second = torch.device("cuda:1")


def test_parse_devices(parse):
    assert parse(["cuda:0", "cuda:1"]) == ("cuda:0", [0, 1])
    if parse("cuda:0,1")[0] == "cuda:1":
        raise ValueError("primary device must come first")


# Device values handed to the code under test, which only records them.
def test_primary_device_is_first(strategy_cls):
    strategy = strategy_cls(devices=[torch.device("cuda", 3), torch.device("cuda:1")])
    assert_first = strategy.devices[0]
    return assert_first, "cuda:2"
