"""Gymnasium wrappers for mathy gym environments."""

from typing import Any, Dict

import gymnasium
import numpy as np
from gymnasium.utils import RecordConstructorArgs

from .env import MathyGymEnv
from .spaces import (
    is_masked_observation_space,
    masked_observation,
    masked_observation_space,
)


class ActionMaskObservation(
    gymnasium.ObservationWrapper[Dict[str, Any], Any, Any], RecordConstructorArgs
):
    """Put the action mask into every observation of a mathy gym env.

    Observations become `{"observations": <the wrapped env's observation>,
    "action_mask": <mask>}` and `observation_space` the matching `Dict`
    (`masked_observation_space`), the layout RL libraries' action-masking models
    read (RLlib's, for one). It does for an env that is already built what
    `MathyGymEnv(..., mask_in_observation=True)` does, for any observation type.
    It records itself in the env's `spec`, so `gymnasium.make(env.spec)` builds
    the wrapped env again.

    The mask is the wrapped `MathyGymEnv`'s current one (`action_masks()`, equal
    to `info["action_mask"]`), always a float32 0/1 vector of length
    `action_size`, whatever `mask_as_probabilities` does to the mask inside the
    observation.

    Arguments:
        env: a `MathyGymEnv`, or a wrapper of one, e.g. what `gymnasium.make`
            returns (with its OrderEnforcing and PassiveEnvChecker wrappers)

    Raises:
        ValueError: `env` is not a mathy gym env, or its observations already
            carry the mask (`mask_in_observation=True`, or an
            `ActionMaskObservation` somewhere in `env`)

    ```python
    env = ActionMaskObservation(gymnasium.make("mathy-poly-easy-v0"))
    obs, info = env.reset(seed=0)
    obs["action_mask"]  # float32 0/1, the same as info["action_mask"]
    ```
    """

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        if not isinstance(env, gymnasium.Env):
            raise ValueError(
                "ActionMaskObservation wraps a mathy gym env (MathyGymEnv or a "
                f"wrapper of one), got {type(env).__name__}"
            )
        mathy_env = env.unwrapped
        if not isinstance(mathy_env, MathyGymEnv):
            raise ValueError(
                "ActionMaskObservation wraps a mathy gym env (MathyGymEnv or a "
                f"wrapper of one), got an env whose unwrapped env is "
                f"{type(mathy_env).__name__}"
            )
        if mathy_env.mask_in_observation:
            raise ValueError(
                "the env's observations already carry the action mask "
                "(mask_in_observation=True); wrapping it would nest the mask twice"
            )
        if is_masked_observation_space(env.observation_space):
            raise ValueError(
                "the env's observations already carry the action mask (its "
                "observation space is a Dict of 'observations' and 'action_mask', "
                "e.g. it is an ActionMaskObservation already); wrapping it would "
                "nest the mask twice"
            )
        RecordConstructorArgs.__init__(self)
        gymnasium.ObservationWrapper.__init__(self, env)
        self.mathy_env: MathyGymEnv = mathy_env
        """The wrapped `MathyGymEnv`, whose mask the observations carry."""
        self.observation_space = masked_observation_space(
            env.observation_space, mathy_env.action_size
        )

    def observation(self, observation: Any) -> Dict[str, Any]:
        """`observation` with the wrapped env's current action mask beside it."""
        return masked_observation(
            observation, np.asarray(self.mathy_env.action_masks(), np.float32)
        )


__all__ = ("ActionMaskObservation",)
