import asyncio
import torch


async def worker():
    await asyncio.sleep(0)
    return torch.empty(200 << 30, dtype=torch.uint8, device="cuda")  # FAULT


async def main():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(worker())


asyncio.run(main())
