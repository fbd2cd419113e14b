"""Behavioural cloning: a small torch policy learns the swarm planner's moves from
expert trajectories, then plays held-out problems on its own.

Needs `pip install "mathy_envs[data]" torch`. The trajectories are written to
Parquet and read back, as `mathy-envs dataset poly -n 400 --out DIR` would write
them; each row is one move (expression, action, mask, reward...).
"""

import tempfile
from collections import defaultdict

import numpy as np
import pyarrow.parquet as pq
import torch
from torch import nn

from mathy_envs import envs
from mathy_envs.expert import expert_steps, write_parquet
from mathy_envs.time_step import is_terminal_transition

torch.manual_seed(0)
torch.set_num_threads(1)
env = envs.PolySimplify()
L = env.max_seq_len


def observe(state):
    """The flat observation an agent sees and the flat mask of the actions it is
    offered, as the Gymnasium adapter gives them (with the revisit feature, and
    no move back to a more visited expression)."""
    moves = env.least_visited_moves_array(state)
    obs = state.to_observation(move_mask=moves, max_seq_len=L, revisits=True)
    mask = np.zeros((len(env.rules), L), bool)
    mask[:, : moves.shape[1]] = moves
    return obs, mask.reshape(-1)


# 1. Expert data: the planner's solutions of 400 problems, one row a move.
folder = tempfile.mkdtemp()
path = write_parquet(expert_steps(env, 400, seed=0), folder, {"env": "poly"})
rows = pq.read_table(path).to_pylist()
trajectories = defaultdict(list)
for row in rows:
    trajectories[row["problem_id"]].append(row)
print(f"{len(rows)} moves of {len(trajectories)} solved problems")

# 2. Observations: replay each trajectory from its problem (time and revisits
#    depend on the moves before), and check the replay agrees with the file.
inputs, targets, masks = [], [], []
for moves in trajectories.values():
    state = env.state_from_text(moves[0]["problem"], moves[0]["max_moves"])
    for row in moves:
        assert state.agent.problem == row["expression"]
        obs, mask = observe(state)
        assert mask.astype(np.int8).tolist() == row["mask"]
        inputs.append(obs)
        masks.append(mask)
        targets.append(row["action"])
        state, _, _ = env.get_next_state(state, (row["rule_index"], row["node"]))
x = torch.tensor(np.array(inputs))
m = torch.tensor(np.array(masks))
y = torch.tensor(targets)

# 3. Cloning: cross-entropy of the masked logits on the expert's action.
policy = nn.Sequential(nn.Linear(x.shape[1], 256), nn.ReLU(), nn.Linear(256, m.shape[1]))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
for epoch in range(30):
    for batch in torch.randperm(len(y)).split(64):
        logits = policy(x[batch]).masked_fill(~m[batch], -1e9)
        loss = nn.functional.cross_entropy(logits, y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
with torch.no_grad():
    agree = (policy(x).masked_fill(~m, -1e9).argmax(-1) == y).float().mean()
print(f"after cloning: the policy picks the expert's move {agree:.0%} of the time")


# 4. Held-out problems (seeds the data never used): the cloned policy, greedy,
#    against uniformly random valid moves.
def play(choose, problem_seed):
    state, _ = env.get_initial_state(seed=problem_seed)
    rng = np.random.default_rng(problem_seed)
    while True:
        obs, mask = observe(state)
        action = choose(obs, mask, rng)
        state, step, _ = env.get_next_state(state, divmod(action, L))
        if is_terminal_transition(step):
            return step.reward > 0


def cloned(obs, mask, rng):
    with torch.no_grad():
        logits = policy(torch.tensor(obs)).masked_fill(~torch.tensor(mask), -1e9)
    return int(logits.argmax())


def random_valid(obs, mask, rng):
    return int(rng.choice(np.flatnonzero(mask)))


held_out = range(1_000_000, 1_000_100)
for name, choose in (("cloned policy", cloned), ("random play", random_valid)):
    wins = sum(play(choose, seed) for seed in held_out)
    print(f"{name:<14} wins {wins} of {len(held_out)} held-out problems")
