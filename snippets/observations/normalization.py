"""Node features with and without normalization."""

import numpy as np

from mathy_envs import MathyEnvState
from mathy_envs.state import MathyGraphObservation, ObservationType

state = MathyEnvState(problem="-3 * (4 + 7)", max_moves=10)
np.set_printoptions(precision=3, suppress=True)

for normalize in (False, True):
    obs = state.to_observation(
        obs_type=ObservationType.GRAPH, max_seq_len=8, normalize=normalize
    )
    assert isinstance(obs, MathyGraphObservation)
    features = obs.node_features[: obs.num_nodes]
    print(f"normalize={normalize}  [type_id, value, time, is_leaf] per node:")
    print(features)
    if normalize:
        assert features.min() >= 0.0 and features.max() <= 1.0
