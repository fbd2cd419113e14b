"""The RL view of a step: what a reinforcement learning loop reads of it.

`MathyEnv.get_next_state` gives a `TimeStep`; an RL loop wants the Gymnasium
flags and a few facts about the step. The interfaces that step an env for a
learner derive them here: `MathyGymEnv.step`, `StepBatch` (and `MathyVectorEnv`
over it) and `TextEpisode.step`.

- `terminated`: the env's reward scheme ended the episode (a win or a loss);
- `truncated`: the step used the last move of the budget (an episode out of
  moves is also `terminated` by the default scheme, with the lose signal);
- `oversize`: the new expression has more nodes than the env's `max_seq_len`,
  so no observation holds it;
- `win`: the step ended the episode with a positive reward, the expression
  still fitting;
- `valid`: the action was a valid move of the state it was taken in.
"""

from typing import Any, Dict, NamedTuple, Tuple

import numpy as np
import numpy.typing as npt

from ..time_step import TimeStep, is_terminal_transition

INFO_KEYS: Tuple[str, ...] = ("valid", "oversize", "win")
"""The keys a step adds to a Gymnasium info (`step_info`), in order."""


class StepOutcome(NamedTuple):
    """One step as an RL loop reads it (see the module docstring)."""

    reward: float
    terminated: bool
    truncated: bool
    valid: bool
    oversize: bool
    win: bool

    @property
    def done(self) -> bool:
        """The episode is over: `terminated` or `truncated`."""
        return self.terminated or self.truncated

    def info(self) -> Dict[str, Any]:
        """The keys of `INFO_KEYS` as a Gymnasium step info holds them
        (`step_info`)."""
        return step_info(self.valid, self.oversize, self.win)


_new = tuple.__new__
"""Makes a `StepOutcome` from its values without the generated `__new__`
(steps are a hot path)."""


def step_outcome(
    reward: float, terminal: bool, moves_remaining: int, valid: bool, oversize: bool
) -> StepOutcome:
    """The RL view of a step whose reward scheme gave `reward` (ending the
    episode when `terminal`), leaving `moves_remaining` moves; `valid` and
    `oversize` as the step was."""
    reward = float(reward)
    return _new(
        StepOutcome,
        (
            reward,
            terminal,
            moves_remaining <= 0,
            valid,
            oversize,
            terminal and not oversize and reward > 0,
        ),
    )


def outcome_columns(
    rewards: "npt.NDArray[np.float64]",
    terminated: "npt.NDArray[np.bool_]",
    moves_remaining: "npt.NDArray[np.int64]",
    oversize: "npt.NDArray[np.bool_]",
) -> Tuple["npt.NDArray[np.bool_]", "npt.NDArray[np.bool_]"]:
    """`step_outcome`'s `truncated` and `win` of many steps at once, one per
    element of the arrays (`StepBatch`'s native steps): the same rules, element
    by element."""
    truncated = moves_remaining <= 0
    win = terminated & ~oversize & (rewards > 0)
    return truncated, win


def outcome_of(
    time_step: TimeStep, moves_remaining: int, valid: bool, oversize: bool
) -> StepOutcome:
    """`step_outcome` of a step `MathyEnv.get_next_state` scored as `time_step`."""
    return step_outcome(
        time_step.reward, is_terminal_transition(time_step), moves_remaining, valid, oversize
    )


def step_info(valid: Any, oversize: Any, win: Any) -> Dict[str, Any]:
    """The facts a Gymnasium step info holds, under `INFO_KEYS`, as bool
    arrays (0-d for one episode, `if info["win"]:` reads them; one value per
    episode for a vector env's stacked infos)."""
    return {
        key: np.asarray(value, np.bool_)
        for key, value in zip(INFO_KEYS, (valid, oversize, win))
    }


__all__ = (
    "INFO_KEYS",
    "StepOutcome",
    "outcome_columns",
    "outcome_of",
    "step_info",
    "step_outcome",
)
