"""Gymnasium adapter for the mathy environments.

Importing this module registers the environment ids `mathy-{task}-{difficulty}-v0`
for every built-in task (`mathy_envs.envs.ENV_TASKS`) and difficulty; register
your own environment classes with `register_envs({"my-task": MyEnv})`. It needs
gymnasium: `pip install mathy_envs[gym]`.
"""

try:
    import gymnasium  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised by a test that hides it
    raise ImportError(
        "mathy_envs.gym needs gymnasium, which is not installed. Install it with: "
        "pip install mathy_envs[gym]"
    ) from error

from .._env.actions import NO_VALID_ACTION, sample_valid_actions
from .env import MathyGymEnv, StepChange
from .registration import (
    GYM_ENV_CLASSES,
    GYM_ENV_IDS,
    GymEnvFactory,
    gym_env_factories,
    gym_id,
    register_envs,
)
from .spaces import MaskedDiscrete, masked_observation_space, observation_space
from .vector import MathyVectorEnv
from .wrappers import ActionMaskObservation

register_envs()

__all__ = (
    "ActionMaskObservation",
    "GYM_ENV_CLASSES",
    "GYM_ENV_IDS",
    "GymEnvFactory",
    "MaskedDiscrete",
    "MathyGymEnv",
    "MathyVectorEnv",
    "NO_VALID_ACTION",
    "StepChange",
    "gym_env_factories",
    "gym_id",
    "masked_observation_space",
    "observation_space",
    "register_envs",
    "sample_valid_actions",
)
