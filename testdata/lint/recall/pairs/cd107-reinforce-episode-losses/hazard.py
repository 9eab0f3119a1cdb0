import torch


def finish_episode(policy, optimizer, gamma, eps):
    returns, R = [], 0.0
    for r in reversed(policy.rewards):
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = torch.stack([-lp * g for lp, g in zip(policy.saved_log_probs, returns)]).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss


def train(env, policy, optimizer, episodes, gamma=0.99, eps=1e-8):
    loss_history = []
    for episode in range(episodes):
        state, _ = env.reset()
        done = False
        while not done:
            probs = policy(torch.from_numpy(state).float().unsqueeze(0))
            m = torch.distributions.Categorical(probs)
            action = m.sample()
            policy.saved_log_probs.append(m.log_prob(action))
            state, reward, terminated, truncated, _ = env.step(action.item())
            policy.rewards.append(reward)
            done = terminated or truncated
        loss_history.append(finish_episode(policy, optimizer, gamma, eps))  # want CD107
    return loss_history
