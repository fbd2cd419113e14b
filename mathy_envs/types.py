"""Plain value types shared by every environment."""

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple, Tuple

from .limits import quote
from .rewards import EnvRewards

ActionType = Tuple[int, int]
"""An action is a `(rule_index, node_index)` pair."""


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


__all__ = (
    "ActionType",
    "EnvRewards",
    "MathyEnvDifficulty",
    "MathyEnvProblem",
    "MathyEnvProblemArgs",
)
