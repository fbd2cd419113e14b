"""A CleanRL-style PPO loop with action masking, on `gymnasium.make_vec`.

One file, no RL library: eight environments stepped together, masked logits (an
invalid action gets probability 0), generalized advantage estimation and the
clipped PPO objective. Needs `pip install mathy_envs[gym] torch`.
"""

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)

NUM_ENVS, NUM_STEPS, UPDATES = 8, 128, 12
GAMMA, LAMBDA, CLIP, EPOCHS, MINIBATCHES = 0.99, 0.95, 0.2, 4, 4
torch.manual_seed(1)
rng = np.random.default_rng(1)
torch.set_num_threads(1)  # a small MLP: extra threads only contend for the CPU

# SAME_STEP autoreset: the step that ends an episode already returns the next
# episode's observation and mask, so every mask the agent acts on has a valid action.
envs = gymnasium.make_vec(
    "mathy-poly-easy-v0",
    num_envs=NUM_ENVS,
    vectorization_mode="sync",
    vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP},
)
obs_size = envs.single_observation_space.shape[0]
num_actions = int(envs.single_action_space.n)


class Agent(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_size, 64), nn.Tanh(), nn.Linear(64, 1))
        self.actor = nn.Sequential(
            nn.Linear(obs_size, 64), nn.Tanh(), nn.Linear(64, num_actions)
        )

    def policy(self, obs: torch.Tensor, mask: torch.Tensor) -> Categorical:
        logits = self.actor(obs).masked_fill(~mask, -1e8)  # invalid: probability 0
        return Categorical(logits=logits)


agent = Agent()
optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)

shape = (NUM_STEPS, NUM_ENVS)
observations = torch.zeros(shape + (obs_size,))
masks = torch.zeros(shape + (num_actions,), dtype=torch.bool)
actions, logprobs = torch.zeros(shape, dtype=torch.long), torch.zeros(shape)
rewards, dones, values = torch.zeros(shape), torch.zeros(shape), torch.zeros(shape)

obs, infos = envs.reset(seed=1)
next_obs = torch.tensor(obs)
next_mask = torch.tensor(infos["action_mask"], dtype=torch.bool)  # int8 0/1 in infos
next_done = torch.zeros(NUM_ENVS)
for update in range(UPDATES):
    wins = episodes = 0
    for step in range(NUM_STEPS):
        observations[step], masks[step], dones[step] = next_obs, next_mask, next_done
        with torch.no_grad():
            dist = agent.policy(next_obs, next_mask)
            action = dist.sample()
            values[step] = agent.critic(next_obs).squeeze(-1)
        actions[step], logprobs[step] = action, dist.log_prob(action)
        obs, reward, terminated, truncated, infos = envs.step(action.numpy())
        rewards[step] = torch.tensor(reward, dtype=torch.float32)
        ended = np.logical_or(terminated, truncated)
        episodes += int(ended.sum())
        wins += int((terminated & (reward > 0)).sum())
        next_obs = torch.tensor(obs)
        next_mask = torch.tensor(infos["action_mask"], dtype=torch.bool)
        next_done = torch.tensor(ended, dtype=torch.float32)

    # Generalized advantage estimation, backwards through the rollout.
    with torch.no_grad():
        next_value = agent.critic(next_obs).squeeze(-1)
        advantages, last = torch.zeros(shape), torch.zeros(NUM_ENVS)
        for t in reversed(range(NUM_STEPS)):
            alive = 1.0 - (next_done if t == NUM_STEPS - 1 else dones[t + 1])
            following = next_value if t == NUM_STEPS - 1 else values[t + 1]
            delta = rewards[t] + GAMMA * following * alive - values[t]
            last = delta + GAMMA * LAMBDA * alive * last
            advantages[t] = last
        returns = advantages + values

    flat = lambda x: x.reshape((-1,) + x.shape[2:])  # noqa: E731
    b_obs, b_masks, b_actions = flat(observations), flat(masks), flat(actions)
    b_logprobs, b_advantages, b_returns = flat(logprobs), flat(advantages), flat(returns)
    batch = NUM_STEPS * NUM_ENVS
    for epoch in range(EPOCHS):
        for chunk in np.array_split(rng.permutation(batch), MINIBATCHES):
            dist = agent.policy(b_obs[chunk], b_masks[chunk])
            ratio = (dist.log_prob(b_actions[chunk]) - b_logprobs[chunk]).exp()
            adv = b_advantages[chunk]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            policy_loss = torch.max(
                -adv * ratio, -adv * ratio.clamp(1 - CLIP, 1 + CLIP)
            ).mean()
            value = agent.critic(b_obs[chunk]).squeeze(-1)
            value_loss = 0.5 * ((value - b_returns[chunk]) ** 2).mean()
            loss = policy_loss + 0.5 * value_loss - 0.01 * dist.entropy().mean()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()
    if update % 3 == 0 or update == UPDATES - 1:
        won = wins / max(episodes, 1)
        print(f"update {update + 1:>2}: {episodes} episodes ended, {won:.0%} won")
envs.close()
