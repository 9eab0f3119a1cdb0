from collections import deque


def fit(model, loader, optimizer, criterion):
    window = deque(maxlen=100)
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        window.append(loss)  # want CD107
        print(sum(window) / len(window))
