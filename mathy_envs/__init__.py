"""mathy_envs: reinforcement learning environments for step-by-step algebra."""

# Before anything imports mathy_core: its colr dependency needs `typing.io`, which
# Python 3.13 removed (see `_mathy_envs_typing_io`).
import _mathy_envs_typing_io

_mathy_envs_typing_io.register()

from . import envs
from .env import MathyEnv
from .state import MathyEnvState, MathyObservation, ObservationType
from .time_step import TimeStep
from .types import (
    EnvRewards,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)

__version__ = "1.0.0"

__all__ = (
    "EnvRewards",
    "MathyEnv",
    "MathyEnvDifficulty",
    "MathyEnvProblem",
    "MathyEnvProblemArgs",
    "MathyEnvState",
    "MathyObservation",
    "ObservationType",
    "TimeStep",
    "envs",
)
