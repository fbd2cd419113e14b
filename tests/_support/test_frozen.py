"""Arrays the library shares can't be made writable again: a user's write can't
change a later answer."""

import pickle

import numpy as np
import pytest

from mathy_envs.envs import PolySimplify
from mathy_envs._support.frozen import frozen
from mathy_envs.time_step import StepType


def _locked(array: np.ndarray) -> None:
    with pytest.raises(ValueError):
        array.flags.writeable = True
    with pytest.raises(ValueError):
        array[...] = 0


def test_shared_arrays_stay_read_only() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 3x")
    after, _, _ = env.get_next_state(state, (1, 3))
    mask = env.valid_moves_array(after)
    before = mask.copy()
    offered = env.least_visited_moves_array(after)
    assert not (offered == mask).all()  # a new array, the swap back left out
    layout = env._expressions.parse(after.agent.problem).layout
    for array in (mask, offered, layout.type_ids, layout.values, layout.preorder,
                  StepType.FIRST, StepType.MID, StepType.LAST):
        _locked(array)
    assert (env.valid_moves_array(after) == before).all()
    assert int(StepType.FIRST[0]) == 0


def test_frozen_is_a_copy_of_the_same_values() -> None:
    source = np.arange(12, dtype=np.float32).reshape(3, 4)
    copy = frozen(source)
    assert copy.dtype == source.dtype and copy.shape == source.shape
    assert (copy == source).all()
    source[0, 0] = 99.0
    assert copy[0, 0] == 0.0
    assert frozen(np.zeros((7, 0), np.int8)).shape == (7, 0)


def test_an_env_pickled_before_move_results_were_kept_still_answers() -> None:
    env = PolySimplify()
    # As an env pickled by an earlier version: its mask cache, no move results.
    env.__dict__["_masks"] = env.__dict__.pop("_moves")._masks
    restored = pickle.loads(pickle.dumps(env))
    state = restored.state_from_text("4x + 2y + 3x")
    assert restored.move_results(state)[(1, 3)] == "2y + 4x + 3x"


def test_is_frozen_tells_arrays_that_can_never_change() -> None:
    from mathy_envs._support.frozen import is_frozen

    made = frozen(np.arange(6).reshape(2, 3))
    assert is_frozen(made) and is_frozen(made[1:])
    owned = np.arange(6)
    owned.flags.writeable = False  # its flag can be set back
    assert not is_frozen(owned)
    view = np.arange(6)[2:]
    view.flags.writeable = False  # a view of a writable array
    assert not is_frozen(view)
    assert not is_frozen(np.frombuffer(bytearray(4), np.int8))  # over mutable bytes
