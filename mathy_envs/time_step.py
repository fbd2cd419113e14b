"""Time steps: what an environment returns after each transition."""

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ._support.frozen import frozen


def _frozen_step(value: int) -> npt.NDArray[np.int32]:
    return frozen(np.asarray([value], dtype=np.int32))


class StepType:
    """Step types as read-only int32 numpy arrays, as in dm_env / tf_agents."""

    FIRST: npt.NDArray[np.int32] = _frozen_step(0)
    MID: npt.NDArray[np.int32] = _frozen_step(1)
    LAST: npt.NDArray[np.int32] = _frozen_step(2)


class TimeStep(NamedTuple):
    """One transition: its type, reward, discount and observation."""

    step_type: npt.NDArray[np.int32]
    reward: float
    discount: float
    observation: Any


def transition(observation: Any, reward: float, discount: float = 1.0) -> TimeStep:
    """A non-terminal (MID) time step."""
    return TimeStep(StepType.MID, float(reward), float(discount), observation)


def termination(observation: Any, reward: float) -> TimeStep:
    """A terminal (LAST) time step, with discount 0."""
    return TimeStep(StepType.LAST, float(reward), 0.0, observation)


def is_terminal_transition(time_step: TimeStep) -> bool:
    """True when `time_step` ends the episode."""
    return bool(int(time_step.step_type[0]) == int(StepType.LAST[0]))


__all__ = (
    "StepType",
    "TimeStep",
    "is_terminal_transition",
    "termination",
    "transition",
)
