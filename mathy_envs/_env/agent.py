"""The agent's side of a state: the current problem, its history and the moves
left (`MathyAgentState`), and one step of that history (`MathyEnvStateStep`).

Plain data: `mathy_envs.state` builds states from these, and the text form of a
state (`mathy_envs._env.state_text`) reads and writes them.
"""

from typing import List, NamedTuple, Optional

from ..types import ActionType

NO_ACTION: ActionType = (-1, -1)
"""The action of a history's first step: no action made the starting problem."""


class MathyEnvStateStep(NamedTuple):
    """One step of a state's history: the expression text and the action that
    produced it (`(-1, -1)` for the starting expression)."""

    raw: str
    action: ActionType


class MathyAgentState:
    """The agent's view of an episode: the current problem and how it got there."""

    moves_remaining: int
    """Moves left before the episode runs out of its budget."""
    problem: str
    """The current expression, as text."""
    problem_type: str
    """The namespace of the env that made the problem."""
    reward: float
    """A reward value stored with the state (0.0 unless set) and copied to the
    states after it; the env's step rewards come back in `get_next_state`'s time
    step instead."""
    history: List[MathyEnvStateStep]
    """Every expression of the episode with the action that produced it, the
    starting problem first."""

    def __init__(
        self,
        moves_remaining: int,
        problem: str,
        problem_type: str,
        reward: float = 0.0,
        history: Optional[List[MathyEnvStateStep]] = None,
    ) -> None:
        self.moves_remaining = moves_remaining
        self.problem = problem
        self.problem_type = problem_type
        self.reward = reward
        self.history = (
            list(history)
            if history is not None
            else [MathyEnvStateStep(problem, NO_ACTION)]
        )

    @classmethod
    def owning(
        cls,
        moves_remaining: int,
        problem: str,
        problem_type: str,
        reward: float,
        history: List[MathyEnvStateStep],
    ) -> "MathyAgentState":
        """The agent state `cls(...)` makes of these values, holding `history`
        itself, not a copy: for a list made for it, which nothing else holds
        (a step's new history)."""
        agent = cls.__new__(cls)
        agent.moves_remaining = moves_remaining
        agent.problem = problem
        agent.problem_type = problem_type
        agent.reward = reward
        agent.history = history
        return agent

    @property
    def action(self) -> ActionType:
        """The action that produced the current problem (`(-1, -1)` at the start)."""
        return self.history[-1].action if self.history else NO_ACTION

    @classmethod
    def copy(cls, from_state: "MathyAgentState") -> "MathyAgentState":
        return cls(
            moves_remaining=from_state.moves_remaining,
            problem=from_state.problem,
            problem_type=from_state.problem_type,
            reward=from_state.reward,
            history=from_state.history,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MathyAgentState):
            return NotImplemented
        return (
            self.moves_remaining == other.moves_remaining
            and self.problem == other.problem
            and self.problem_type == other.problem_type
            and self.reward == other.reward
            and self.history == other.history
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"MathyAgentState(moves_remaining={self.moves_remaining}, "
            f"problem={self.problem!r}, problem_type={self.problem_type!r}, "
            f"reward={self.reward!r}, history={self.history!r})"
        )


__all__ = ("MathyAgentState", "MathyEnvStateStep", "NO_ACTION")
