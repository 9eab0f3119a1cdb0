import torch


def train_steps(policy, rollouts, opt):
    acc = 0.0
    for r in rollouts:
        l = policy.loss(r)
        opt.zero_grad()
        l.backward()
        opt.step()
        acc += float(l)
    return acc / len(rollouts)
