"""The RL view of a step (`mathy_envs._env.outcome`): one derivation of the
Gymnasium flags and info facts, the same for every interface."""

import itertools

import numpy as np
import pytest

from mathy_envs._env.outcome import INFO_KEYS, outcome_of, step_info, step_outcome
from mathy_envs.time_step import termination, transition


@pytest.mark.parametrize(
    "reward,terminal,left,valid,oversize",
    list(itertools.product([-1.0, -0.01, 0.0, 1.5], [True, False], [-1, 0, 3], [True, False], [True, False])),
)
def test_step_outcome(reward: float, terminal: bool, left: int, valid: bool, oversize: bool) -> None:
    outcome = step_outcome(reward, terminal, left, valid, oversize)
    assert outcome.reward == reward and type(outcome.reward) is float
    assert outcome.terminated is terminal
    assert outcome.truncated is (left <= 0)
    assert outcome.valid is valid and outcome.oversize is oversize
    assert outcome.win is (terminal and not oversize and reward > 0)
    assert outcome.done is (terminal or left <= 0)


def test_outcome_of_a_time_step() -> None:
    won = outcome_of(termination(None, 1.25), 4, True, False)
    assert (won.reward, won.terminated, won.truncated, won.win) == (1.25, True, False, True)
    lost = outcome_of(termination(None, -1.0), 0, True, False)
    assert (lost.terminated, lost.truncated, lost.win, lost.done) == (True, True, False, True)
    # A positive terminal reward on an expression that outgrew max_seq_len is
    # no win.
    assert not outcome_of(termination(None, 2.0), 3, True, True).win
    going = outcome_of(transition(None, -0.01), 3, False, False)
    assert (going.terminated, going.truncated, going.done, going.valid) == (False, False, False, False)


def test_the_info_holds_bool_arrays_under_the_info_keys() -> None:
    info = step_outcome(1.5, True, 2, True, False).info()
    assert list(info) == list(INFO_KEYS) == ["valid", "oversize", "win"]
    for key, expected in zip(INFO_KEYS, (True, False, True)):
        assert info[key].shape == () and info[key].dtype == np.bool_
        assert bool(info[key]) is expected
    stacked = step_info(np.array([True, False]), np.array([False, False]), np.array([False, True]))
    assert [stacked[key].tolist() for key in INFO_KEYS] == [[True, False], [False, False], [False, True]]
    assert all(stacked[key].dtype == np.bool_ for key in INFO_KEYS)
