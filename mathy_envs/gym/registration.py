"""One `MathyGymEnv` class per built-in task and difficulty, registered with
Gymnasium as `mathy-{task}-{difficulty}-v0`."""

from typing import Any, Dict, List, Type

import gymnasium

from ..env import MathyEnv
from ..envs import ENV_TASKS
from ..types import MathyEnvDifficulty, MathyEnvProblemArgs
from .env import MathyGymEnv


def gym_id(task: str, difficulty: MathyEnvDifficulty) -> str:
    """The Gymnasium id of a task at a difficulty, e.g. `mathy-poly-easy-v0`."""
    return f"mathy-{task}-{difficulty.value}-v0"


def _task_class(
    env_class: Type[MathyEnv], difficulty: MathyEnvDifficulty
) -> Type[MathyGymEnv]:
    name = f"{env_class.__name__}{difficulty.value.capitalize()}GymEnv"

    def __init__(self: MathyGymEnv, **kwargs: Any) -> None:
        kwargs.setdefault("env_problem_args", MathyEnvProblemArgs(difficulty))
        MathyGymEnv.__init__(self, env_class, **kwargs)

    doc = (
        f"{env_class.__name__} at {difficulty.value} difficulty as a Gymnasium env; "
        f"keywords are those of `MathyGymEnv` and `{env_class.__name__}`."
    )
    cls = type(
        name,
        (MathyGymEnv,),
        {"__init__": __init__, "__doc__": doc, "__module__": __name__, "__qualname__": name},
    )
    return cls


GYM_ENV_CLASSES: Dict[str, Type[MathyGymEnv]] = {}
"""Gymnasium id -> its env class."""

for _task, _env_class in ENV_TASKS.items():
    for _difficulty in MathyEnvDifficulty:
        _cls = _task_class(_env_class, _difficulty)
        globals()[_cls.__name__] = _cls  # importable by name, so instances pickle
        GYM_ENV_CLASSES[gym_id(_task, _difficulty)] = _cls

GYM_ENV_IDS: List[str] = list(GYM_ENV_CLASSES)


def register_envs() -> None:
    """Register every id with Gymnasium (ids already registered are left alone)."""
    for env_id, cls in GYM_ENV_CLASSES.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=f"{cls.__module__}:{cls.__name__}",
                disable_env_checker=False,
            )


__all__ = ("GYM_ENV_CLASSES", "GYM_ENV_IDS", "gym_id", "register_envs")
