"""Plain value types shared by every environment."""

from dataclasses import dataclass
from enum import Enum
from typing import Callable, NamedTuple, Tuple

import numpy as np

from .limits import quote

ActionType = Tuple[int, int]
"""An action is a `(rule_index, node_index)` pair."""


class EnvRewards:
    """The reward constants every environment uses (`mathy_envs.rewards` says
    when each one is given)."""

    LOSE: float = -1.0
    WIN: float = 1.0
    HELPFUL_MOVE: float = 0.01
    UNHELPFUL_MOVE: float = -0.01
    TIMESTEP: float = -0.01
    PREVIOUS_LOCATION: float = -0.02
    INVALID_MOVE: float = -0.5


MAX_VISITS = 3
"""Visits of one expression an episode allows; the next one loses (the default
`RewardScheme`). The revisit feature of observations is scaled by it."""


class MathyEnvDifficulty(Enum):
    """How hard the generated problems of an environment are."""

    easy = "easy"
    normal = "normal"
    hard = "hard"


@dataclass
class MathyEnvProblemArgs:
    """Arguments passed to an environment's `problem_fn`."""

    difficulty: MathyEnvDifficulty = MathyEnvDifficulty.easy

    def __post_init__(self) -> None:
        # "easy", "normal" and "hard" are accepted for their enum values.
        difficulty: object = self.difficulty
        if isinstance(difficulty, MathyEnvDifficulty):
            return
        names = {d.value: d for d in MathyEnvDifficulty}
        if isinstance(difficulty, str) and str.__str__(difficulty) in names:
            self.difficulty = names[str.__str__(difficulty)]
            return
        raise ValueError(
            f"difficulty must be one of {', '.join(names)}, got {quote(difficulty, 40)}"
        )


class MathyEnvProblem(NamedTuple):
    """A generated problem: its text, its complexity and the env namespace."""

    text: str
    complexity: int
    type: str


ProblemGenerator = Callable[[np.random.Generator, MathyEnvProblemArgs], MathyEnvProblem]
"""Draws a problem: a function of a random generator (the env's `np_random`)
and the problem arguments, as an env's `generator=` argument takes it."""


__all__ = (
    "ActionType",
    "EnvRewards",
    "MAX_VISITS",
    "MathyEnvDifficulty",
    "MathyEnvProblem",
    "MathyEnvProblemArgs",
    "ProblemGenerator",
)
