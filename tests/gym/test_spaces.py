"""`mathy_envs.gym.spaces`: the masked action space (`MaskedDiscrete`), the
observation space of each registered type (`observation_space`), and the space
and values of observations that carry their action mask.

Expected spaces come from the documentation and from observations the states
build, never from the spaces themselves.
"""

import mathy_envs  # noqa: F401  (first: it lets mathy_core import on Python 3.13)
import numpy as np
import pytest

from gymnasium import spaces

from mathy_envs import MathyEnvState
from mathy_envs.gym import MaskedDiscrete, masked_observation_space, observation_space
from mathy_envs.gym.spaces import masked_observation

OBS_TYPES = ["flat", "graph", "hierarchical", "message_passing"]


# -- the masked action space ----------------------------------------------------------


def test_masked_discrete() -> None:
    space = MaskedDiscrete(6, mask=[0, 1, 0, 0, 1, 0], seed=0)
    assert isinstance(space, spaces.Discrete)
    assert {int(space.sample()) for _ in range(200)} == {1, 4}
    space.update_mask([0, 0, 1, 0, 0, 0])
    assert {int(space.sample()) for _ in range(50)} == {2}
    # an explicit mask still wins over the stored one
    assert {
        int(space.sample(mask=np.array([0, 0, 0, 0, 0, 1], np.int8))) for _ in range(20)
    } == {5}
    with pytest.raises(ValueError):
        space.update_mask([1, 0])
    space.update_mask(np.zeros(6))
    assert 0 <= int(space.sample()) < 6  # nothing valid: any action


# -- observation spaces -------------------------------------------------------------


@pytest.mark.parametrize("obs_type", OBS_TYPES)
@pytest.mark.parametrize("max_seq_len,num_rules", [(128, 7), (16, 3)])
def test_observation_space_layout(obs_type: str, max_seq_len: int, num_rules: int) -> None:
    L, R = max_seq_len, num_rules
    space = observation_space(obs_type, L, R)
    mask = np.zeros((R, 5), np.int8)
    mask[0, 1] = 1
    state = MathyEnvState(problem="4x + 2x", max_moves=10, num_rules=R)
    built = state.to_observation(
        move_mask=mask, max_seq_len=L, obs_type=obs_type, normalize=True
    )
    if obs_type == "flat":
        assert isinstance(space, spaces.Box)
        assert space.shape == (3 + 2 * L + R * L,)
        assert space.dtype == np.float32
        assert np.all(space.low == 0.0) and np.all(space.high == 1.0)
        assert space.contains(built)
        return
    assert isinstance(space, spaces.Dict)
    as_dict = built.to_dict()
    assert set(space.spaces) == set(as_dict)
    assert space.contains(as_dict)
    for key, sub in space.spaces.items():
        value = as_dict[key]
        if isinstance(sub, spaces.Box):
            assert sub.shape == np.asarray(value).shape, key
            assert sub.dtype == np.asarray(value).dtype, key
            if sub.dtype == np.float32:
                assert np.all(sub.low == 0.0) and np.all(sub.high == 1.0), key
            else:
                # indexes and depths of at most L nodes; edge types are 0/1
                high = 1 if key == "edge_types" else L - 1
                assert np.all(sub.low == 0) and np.all(sub.high == high), key
        else:
            assert isinstance(sub, spaces.Discrete), key
            assert sub.start == 0
    assert space["num_nodes"].n == L + 1  # 0..L nodes
    if obs_type == "message_passing":
        assert space["num_edges"].n == 2 * L + 1


# -- observations that carry their action mask ----------------------------------------


def test_masked_observation_space_rejects_bad_input() -> None:
    box = spaces.Box(0.0, 1.0, (3,), np.float32)
    with pytest.raises(ValueError, match="observations must be a gymnasium Space"):
        masked_observation_space("box", 4)  # type: ignore[arg-type]
    for size in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="action_size must be a positive int"):
            masked_observation_space(box, size)  # type: ignore[arg-type]


def test_masked_observation_makes_any_numeric_mask_0_1_and_rejects_others() -> None:
    obs = masked_observation("inner", np.array([0.0, 0.25, 1.0]))
    assert obs["observations"] == "inner"
    np.testing.assert_array_equal(obs["action_mask"], [0, 1, 1])
    assert obs["action_mask"].dtype == np.float32
    for mask in (None, "0101", np.ones((2, 3)), 1.0, [[1, 0]]):
        with pytest.raises(ValueError, match="mask must be a 1-D array"):
            masked_observation("inner", mask)
    with pytest.raises(ValueError, match="mask must not hold NaN"):
        masked_observation("inner", np.array([1.0, np.nan]))
