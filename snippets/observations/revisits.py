"""The revisit feature: how many times the episode saw the current expression."""

from mathy_envs import envs
from mathy_envs.state import ObservationType

env = envs.PolySimplify()
state = env.state_from_text("4x + 2y + 3x", max_moves=10)
swap = (1, 3)  # commutative swap at the first "+": it undoes itself
for move in range(7):
    flat = state.to_observation(
        move_mask=env.get_valid_moves(state), max_seq_len=env.max_seq_len, revisits=True
    )
    graph = state.to_observation(
        obs_type=ObservationType.GRAPH, max_seq_len=env.max_seq_len, revisits=True
    )
    raw = state.to_observation(max_seq_len=env.max_seq_len, revisits=True, normalize=False)
    assert graph.node_features[0, 4] == flat[3]  # the fifth node-feature column
    print(f"{state.agent.problem:<14} revisits {raw[3]:.0f}  normalized {flat[3]:.3f}")
    if move < 6:
        state, step, _ = env.get_next_state(state, swap)
print(f"the fourth visit ends the episode: reward {step.reward}")

published = state.to_observation(max_seq_len=env.max_seq_len)  # revisits=False
print(f"flat length {len(flat)} with the feature, {len(published)} without")
