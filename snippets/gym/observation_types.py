"""Every observation type through the Gymnasium adapter."""

import gymnasium

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)
from mathy_envs.state import ObservationType

for obs_type in ObservationType:
    env = gymnasium.make("mathy-binomial-normal-v0", obs_type=obs_type, max_seq_len=64)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    if isinstance(obs, dict):
        shapes = ", ".join(
            f"{key} {value.shape}" if getattr(value, "ndim", 0) else f"{key}={value}"
            for key, value in obs.items()
        )
    else:
        shapes = f"array {obs.shape}"
    print(f"{obs_type.value:<16} {shapes}")
    env.close()
