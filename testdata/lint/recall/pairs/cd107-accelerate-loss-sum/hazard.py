import time

import torch


def training_function(model, train_dl, optimizer, lr_scheduler, accelerator, epochs: int):
    for epoch in range(epochs):
        model.train()
        loss_sum = torch.tensor(0.0, device=accelerator.device)
        s_epoch = time.time()
        for step, batch in enumerate(train_dl):
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                loss_sum += loss  # want CD107
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        accelerator.print(f"epoch {epoch} loss {loss_sum.item() / (step + 1):.4f} in {time.time() - s_epoch:.1f}s")
