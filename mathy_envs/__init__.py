"""mathy_envs: reinforcement learning environments for step-by-step algebra."""

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
