import logging
import torch

logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
log = logging.getLogger("trainer")
log.info("starting")
try:
    x = torch.empty(300 << 30, dtype=torch.uint8, device="cuda")  # FAULT
except torch.OutOfMemoryError:
    log.exception("step failed")
    raise SystemExit(1)
