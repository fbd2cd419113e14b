"""Gymnasium ids for mathy tasks: `mathy-{task}-{difficulty}-v0`, one per task of
`mathy_envs.envs.ENV_TASKS` (or of your own mapping) and difficulty.

Every id is registered with Gymnasium's own keywords: the entry point is
`MathyGymEnv` and the registered `kwargs` hold the env class and the difficulty,
`{"env_class": ..., "env_problem_args": MathyEnvProblemArgs(difficulty)}`.
`gymnasium.make(id, **kwargs)` merges its keywords over those (a copy of the
registered ones, updated with yours), so any `MathyGymEnv` or `MathyEnv` keyword
passes through.
"""

import re
import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Type

import gymnasium
from gymnasium.envs.registration import EnvSpec, parse_env_id

from ..env import MathyEnv
from ..envs import ENV_TASKS
from ..limits import quote, shorten, type_name
from ..types import MathyEnvDifficulty, MathyEnvProblemArgs
from .env import MathyGymEnv

ENTRY_POINT = f"{MathyGymEnv.__module__}:{MathyGymEnv.__qualname__}"
"""The entry point every id is registered with, `mathy_envs.gym.env:MathyGymEnv`."""

_LOCK = threading.Lock()


def gym_id(task: str, difficulty: MathyEnvDifficulty) -> str:
    """The Gymnasium id of a task at a difficulty, e.g. `mathy-poly-easy-v0`."""
    return f"mathy-{task}-{difficulty.value}-v0"


@dataclass(frozen=True)
class GymEnvFactory:
    """Builds `MathyGymEnv(env_class, env_problem_args=MathyEnvProblemArgs(difficulty),
    **kwargs)`: calling it takes the keywords of `MathyGymEnv` (and of the
    `MathyEnv` class), and an `env_problem_args` keyword overrides the difficulty.

    A factory pickles (by reference to its env class), and every env it builds
    gets its own `MathyEnvProblemArgs`.
    """

    env_class: Type[MathyEnv]
    difficulty: MathyEnvDifficulty

    def kwargs(self) -> Dict[str, Any]:
        """The keywords the id is registered with."""
        return {
            "env_class": self.env_class,
            "env_problem_args": MathyEnvProblemArgs(self.difficulty),
        }

    def __call__(self, **kwargs: Any) -> MathyGymEnv:
        return MathyGymEnv(**{**self.kwargs(), **kwargs})


def gym_env_factories(
    tasks: Optional[Mapping[str, Type[MathyEnv]]] = None,
) -> Dict[str, GymEnvFactory]:
    """Gymnasium id -> its `GymEnvFactory`, for every task of `tasks` (task name ->
    `MathyEnv` class; the built-in `ENV_TASKS` by default) and every difficulty.

    A `ValueError` for a class that defines neither `get_env_namespace` nor a
    `namespace`, or neither `problem_fn` nor a `generator` (`MathyEnv` itself,
    `GoalEnv`): every reset of its ids would fail."""
    factories: Dict[str, GymEnvFactory] = {}
    for task, env_class in _task_items(tasks):
        check_task_name(task)
        if not (isinstance(env_class, type) and issubclass(env_class, MathyEnv)):
            raise ValueError(
                f"task {quote(task)}: expected a MathyEnv subclass, got {quote(env_class)}"
            )
        missing = [
            (method, attribute)
            for method, attribute in _ABSTRACT
            if getattr(env_class, method) is vars(MathyEnv)[method]
            and getattr(env_class, attribute, None) is None
        ]
        if missing:
            raise ValueError(
                f"task {quote(task)}: {quote(env_class)} can't play an id: it does not "
                f"define {' or '.join(method for method, _ in missing)} (nor declare "
                f"{' or '.join(attribute for _, attribute in missing)}; MathyEnv's "
                "raise NotImplementedError at every reset); register a subclass that "
                "defines them"
            )
        for difficulty in MathyEnvDifficulty:
            factories[gym_id(task, difficulty)] = GymEnvFactory(env_class, difficulty)
    return factories


_ABSTRACT = (("get_env_namespace", "namespace"), ("problem_fn", "generator"))
"""The `MathyEnv` methods a class must define to play an id, each with the class
attribute their defaults read instead: every episode's problem type is
`get_env_namespace()` (the class's `namespace`), and an id's problems come from
`problem_fn` (which calls the class's `generator`)."""


TASK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""What a task name may be: 1 to 64 ASCII letters, digits, `_`, `-` or `.`,
starting with a letter or digit (no `/` or `:`, which Gymnasium ids give other
meanings)."""


def check_task_name(task: Any) -> str:
    """`task`, or a `ValueError` unless it is a valid task name (`TASK_NAME`)."""
    if not isinstance(task, str):
        raise ValueError(f"a task name must be a str, got {type_name(task)} {quote(task, 60)}")
    if TASK_NAME.fullmatch(task) is None:
        raise ValueError(
            f"task name {quote(task, 80)} must be 1 to 64 ASCII letters, digits, '_', "
            "'-' or '.', starting with a letter or digit"
        )
    return task


def _task_items(tasks: Optional[Mapping[str, Type[MathyEnv]]]) -> List[Tuple[Any, Any]]:
    """The (task, class) pairs of `tasks` (`ENV_TASKS` when None), or a
    `ValueError` when it is not a mapping."""
    if tasks is None:
        return list(ENV_TASKS.items())
    if not isinstance(tasks, Mapping):
        raise ValueError(
            "tasks must be a mapping of task name -> MathyEnv subclass (or None "
            f"for the built-in tasks), got {type_name(tasks)} {quote(tasks, 80)}"
        )
    try:
        return list(tasks.items())
    except Exception as error:  # a user's mapping that can't be read
        raise ValueError(
            f"tasks ({type_name(tasks)}) can't be read: {type_name(error)}"
        ) from error


GYM_ENV_CLASSES: Dict[str, GymEnvFactory] = gym_env_factories()
"""Built-in Gymnasium id -> a `GymEnvFactory`: a picklable callable taking the
keywords of `MathyGymEnv`, so `GYM_ENV_CLASSES[id](**kwargs)` builds the env that
`gymnasium.make(id, **kwargs)` wraps. (The values used to be one generated
`MathyGymEnv` subclass per id; every env is now a plain `MathyGymEnv`.)"""

GYM_ENV_IDS: List[str] = list(GYM_ENV_CLASSES)
"""The built-in Gymnasium ids, derived from `ENV_TASKS` x `MathyEnvDifficulty`."""


def register_envs(tasks: Optional[Mapping[str, Type[MathyEnv]]] = None) -> List[str]:
    """Register `mathy-{task}-{difficulty}-v0` with Gymnasium for every task of
    `tasks` (task name -> `MathyEnv` class; the built-in `ENV_TASKS` by default)
    and every difficulty, and return those ids.

    Ids already registered are left alone (no "overriding" warning): to change
    one, remove it from `gymnasium.registry` first. The one exception is an id
    registered for an earlier copy of the same class (same module and name, its
    module imported again since), which is registered anew for the class given.
    Registration holds a lock, so threads registering at once never register an
    id twice.

    ```python
    register_envs({"my-task": MyEnv})  # mathy-my-task-{easy,normal,hard}-v0
    env = gymnasium.make("mathy-my-task-easy-v0", max_seq_len=64)
    ```
    """
    factories = gym_env_factories(tasks)
    for env_id in factories:
        _check_gym_id(env_id)
    with _LOCK:
        # Registered specs as they were, to put back when gymnasium refuses an
        # id: a failed call leaves the registry unchanged.
        replaced: Dict[str, Optional[EnvSpec]] = {}
        try:
            for env_id, factory in factories.items():
                spec = gymnasium.registry.get(env_id)
                if spec is not None and not _stale(spec, factory):
                    continue
                replaced[env_id] = spec
                gymnasium.registry.pop(env_id, None)
                gymnasium.register(
                    id=env_id,
                    entry_point=ENTRY_POINT,
                    kwargs=factory.kwargs(),
                    disable_env_checker=False,
                )
        except Exception as error:
            for env_id, spec in replaced.items():
                gymnasium.registry.pop(env_id, None)
                if spec is not None:
                    gymnasium.registry[env_id] = spec
            if not isinstance(error, gymnasium.error.Error):
                raise
            raise ValueError(
                f"gymnasium refused to register {quote(env_id)}: "
                f"{shorten(str(error)).rstrip('.')}; nothing was registered"
            ) from error
    return list(factories)


def _check_gym_id(env_id: str) -> None:
    """A `ValueError` unless gymnasium reads `env_id` back as a name without
    namespace at version 0."""
    try:
        namespace, name, version = parse_env_id(env_id)
    except gymnasium.error.Error as error:
        raise ValueError(f"{quote(env_id)} is not a valid Gymnasium id: {error}") from None
    if namespace is not None or version != 0 or f"{name}-v0" != env_id:
        raise ValueError(f"{quote(env_id)} does not read back as a Gymnasium id")


def _stale(spec: EnvSpec, factory: GymEnvFactory) -> bool:
    """Whether `spec` was registered for an earlier copy of `factory`'s class, left
    behind when its module (or mathy_envs) was imported again."""
    registered = spec.kwargs.get("env_class")
    current = factory.env_class
    return (
        spec.entry_point == ENTRY_POINT
        and isinstance(registered, type)
        and registered is not current
        and registered.__module__ == current.__module__
        and registered.__qualname__ == current.__qualname__
    )


__all__ = (
    "ENTRY_POINT",
    "GYM_ENV_CLASSES",
    "GYM_ENV_IDS",
    "GymEnvFactory",
    "TASK_NAME",
    "check_task_name",
    "gym_env_factories",
    "gym_id",
    "register_envs",
)
