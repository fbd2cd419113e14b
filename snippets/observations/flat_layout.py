"""Slice a flat observation into its parts."""

from mathy_envs import envs
from mathy_envs.state import ObservationType

env = envs.PolySimplify()
state = env.state_from_text("2x + 3x")
L = 10  # max_seq_len
R = len(env.rules)
flat = state.to_observation(
    move_mask=env.get_valid_moves(state),
    max_seq_len=L,
    obs_type=ObservationType.FLAT,
    normalize=False,
)
assert flat.shape == (3 + 2 * L + R * L,)

problem_hash = flat[0:2]
time = flat[2]
node_types = flat[3 : 3 + L]
node_values = flat[3 + L : 3 + 2 * L]
action_mask = flat[3 + 2 * L :].reshape(R, L)

print(f"length      {flat.shape[0]} = 3 + 2 * {L} + {R} * {L}")
print(f"hash        {[round(float(h), 3) for h in problem_hash]}")
print(f"time        {time}")
print(f"node types  {node_types.astype(int).tolist()}")
print(f"node values {node_values.tolist()}")
for rule, row in zip(env.rules, action_mask):
    print(f"mask        {row.astype(int).tolist()}  {rule.name}")
