"""Gymnasium adapter for the mathy environments.

Importing this module registers 24 environment ids, `mathy-{task}-{difficulty}-v0`,
for every built-in task and difficulty. It needs gymnasium:
`pip install mathy_envs[gym]`.
"""

try:
    import gymnasium  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised by a test that hides it
    raise ImportError(
        "mathy_envs.gym needs gymnasium, which is not installed. Install it with: "
        "pip install mathy_envs[gym]"
    ) from error

from .env import MathyGymEnv, StepChange
from .registration import GYM_ENV_CLASSES, GYM_ENV_IDS, gym_id, register_envs
from .spaces import MaskedDiscrete, observation_space

register_envs()

__all__ = (
    "GYM_ENV_CLASSES",
    "GYM_ENV_IDS",
    "MaskedDiscrete",
    "MathyGymEnv",
    "StepChange",
    "gym_id",
    "observation_space",
    "register_envs",
)
