"""Observations are padded to max_seq_len; bigger expressions are refused."""

from mathy_envs import MathyEnvState
from mathy_envs.state import MathyMessagePassingObservation, ObservationType

state = MathyEnvState(problem="4x + 2y", num_rules=7)
obs = state.to_observation(obs_type=ObservationType.MESSAGE_PASSING, max_seq_len=10)
assert isinstance(obs, MathyMessagePassingObservation)
print(f"{obs.num_nodes} real nodes in {obs.node_features.shape[0]} rows")
print(f"{obs.num_edges} real edges in {obs.edge_index.shape[1]} columns")
print(f"action mask: {obs.action_mask.shape[0]} = 7 rules x 10 nodes")

# Padding rows and columns are all zeros.
assert not obs.node_features[obs.num_nodes :].any()
assert not obs.edge_index[:, obs.num_edges :].any()

try:
    state.to_observation(max_seq_len=4)
except ValueError as error:
    print(f"ValueError: {error}")
else:
    raise AssertionError("a 7-node expression does not fit in 4 rows")
