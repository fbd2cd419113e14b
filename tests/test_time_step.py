"""Time steps: step types, transitions and terminations."""

import numpy as np
import pytest

from mathy_envs.time_step import (
    StepType,
    TimeStep,
    is_terminal_transition,
    termination,
    transition,
)


@pytest.mark.parametrize(
    "step_type, value", [(StepType.FIRST, 0), (StepType.MID, 1), (StepType.LAST, 2)]
)
def test_step_types_are_int32_arrays(step_type: np.ndarray, value: int) -> None:
    assert isinstance(step_type, np.ndarray)
    assert step_type.dtype == np.int32
    assert step_type.shape == (1,)
    assert step_type.tolist() == [value]


def test_step_types_are_distinct() -> None:
    values = {int(StepType.FIRST[0]), int(StepType.MID[0]), int(StepType.LAST[0])}
    assert values == {0, 1, 2}


def test_time_step_fields() -> None:
    assert TimeStep._fields == ("step_type", "reward", "discount", "observation")


def test_transition_is_mid_with_default_discount_one() -> None:
    observation = object()
    step = transition(observation, 0.25)
    assert isinstance(step, TimeStep)
    assert step.step_type.tolist() == StepType.MID.tolist()
    assert step.reward == 0.25
    assert step.discount == 1.0
    assert step.observation is observation


@pytest.mark.parametrize("discount", [0.0, 0.5, 0.99])
def test_transition_keeps_the_given_discount(discount: float) -> None:
    step = transition("obs", -0.01, discount)
    assert step.step_type.tolist() == [1]
    assert step.discount == discount
    assert step.reward == -0.01
    keyword = transition("obs", -0.01, discount=discount)
    assert keyword.discount == discount


def test_termination_is_last_with_discount_zero() -> None:
    observation = [1, 2, 3]
    step = termination(observation, -1.0)
    assert isinstance(step, TimeStep)
    assert step.step_type.tolist() == StepType.LAST.tolist() == [2]
    assert step.reward == -1.0
    assert step.discount == 0.0
    assert step.observation is observation


def test_is_terminal_transition() -> None:
    assert is_terminal_transition(termination(None, 1.0)) is True
    assert is_terminal_transition(termination(None, -1.0)) is True
    assert is_terminal_transition(transition(None, 1.0)) is False
    assert is_terminal_transition(transition(None, 0.0, 0.0)) is False
    # A hand-built time step is judged by its step type alone.
    assert is_terminal_transition(TimeStep(StepType.LAST, 0.0, 1.0, None)) is True
    assert is_terminal_transition(TimeStep(StepType.FIRST, 0.0, 1.0, None)) is False
    assert is_terminal_transition(TimeStep(StepType.MID, 0.0, 0.0, None)) is False
    fresh_last = np.asarray([2], dtype=np.int32)
    assert is_terminal_transition(TimeStep(fresh_last, 0.0, 0.0, None)) is True
