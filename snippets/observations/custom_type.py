"""A fifth observation type: node types and values in pre-order, plus the mask."""

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from mathy_envs import envs
from mathy_envs.gym import MathyGymEnv
from mathy_envs.observations import (
    FloatArray,
    ObservationInputs,
    ObservationKind,
    register_observation,
)

if TYPE_CHECKING:
    from gymnasium import spaces


class TokenObservation(NamedTuple):
    type_ids: FloatArray  # (L,) pre-order, zero padded
    values: FloatArray  # (L,)
    action_mask: FloatArray  # (R * L,) like every built-in type


class Tokens(ObservationKind[TokenObservation]):
    name = "tokens"

    def build(self, inputs: ObservationInputs) -> TokenObservation:
        n, length = inputs.num_nodes, inputs.max_seq_len
        types, values = inputs.layout.preordered(inputs.normalize)
        type_ids = np.zeros(length, np.float32)
        type_ids[:n] = types
        padded_values = np.zeros(length, np.float32)
        padded_values[:n] = values
        return TokenObservation(type_ids, padded_values, inputs.action_mask())

    def space(self, max_seq_len: int, num_rules: int) -> "spaces.Dict":
        from gymnasium import spaces  # optional dependency: import it here

        row = spaces.Box(0.0, 1.0, (max_seq_len,), np.float32)
        mask = spaces.Box(0.0, 1.0, (num_rules * max_seq_len,), np.float32)
        return spaces.Dict({"type_ids": row, "values": row, "action_mask": mask})


register_observation(Tokens())

# Wherever obs_type is taken: states, envs and the Gymnasium adapter.
env = envs.PolySimplify(max_seq_len=8)
state = env.state_from_text("2x + 3x")
obs = state.to_observation(
    move_mask=env.get_valid_moves(state),
    max_seq_len=env.max_seq_len,
    obs_type="tokens",
    normalize=False,
)
assert isinstance(env.state_to_observation(state, obs_type="tokens"), TokenObservation)
print(f"type ids {obs.type_ids.astype(int).tolist()}")
print(f"values   {obs.values.tolist()}")
mask = obs.action_mask.reshape(len(env.rules), env.max_seq_len)
for rule, node in zip(*np.nonzero(mask)):
    print(f"valid    {env.rules[rule].name} at node {node}")

gym_env = MathyGymEnv(
    envs.PolySimplify, obs_type="tokens", max_seq_len=8, mask_as_probabilities=True
)
observation, info = gym_env.reset(seed=0)
assert gym_env.observation_space.contains(observation)
print(f"gym      {sorted(observation)}, mask sums to {observation['action_mask'].sum()}")
