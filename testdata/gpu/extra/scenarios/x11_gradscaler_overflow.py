import torch
model = torch.nn.Linear(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1.0)
scaler = torch.amp.GradScaler("cuda", init_scale=2.0**16)
x = torch.full((4, 8), 6e4, device="cuda")
for step in range(3):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = (model(x) * 1e4).sum()  # FAULT
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    print(f"step {step} loss {loss.item()} scale {scaler.get_scale()}")
