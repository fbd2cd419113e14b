"""mathy_envs: reinforcement learning environments for step-by-step algebra."""

# Before anything imports mathy_core: its colr dependency needs `typing.io`, which
# Python 3.13 removed (see `_mathy_envs_typing_io`; on 3.13 and later its start-up
# hook has registered it already, unless start-up files were skipped).
from ._support.typing_io import register as _register_typing_io

_register_typing_io()

from . import envs
from .checker import MathyEnvContractError, check_mathy_env
from ._support.pristine import record_modules
from .env import MathyEnv
from .state import MathyEnvState, MathyObservation, ObservationType
from .time_step import TimeStep
from .version import __version__
from .types import (
    EnvRewards,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)


__all__ = (
    "EnvRewards",
    "MathyEnv",
    "MathyEnvContractError",
    "MathyEnvDifficulty",
    "MathyEnvProblem",
    "MathyEnvProblemArgs",
    "MathyEnvState",
    "MathyObservation",
    "ObservationType",
    "TimeStep",
    "check_mathy_env",
    "envs",
)

# The library's modules as imported, before any user code can change them: the
# batch's native steps are taken only while they are (`mathy_envs._support.pristine`).
record_modules(__name__)

