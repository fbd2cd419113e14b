"""`mathy_envs.observations.flat`: the flat observation, one float32 vector of
the problem hash, the time, the pre-order node types and values, and the action
mask.

Expected values are computed independently from mathy_core trees (a fresh
`ExpressionParser`, `to_list(...)`), not from the library's own node arrays.
"""

import numpy as np
import pytest
from mathy_core.expressions import MathTypeKeys

from helpers import EXPRESSIONS, MAIN, expected_features, make_state, random_mask, tree


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_flat_shape_dtype_and_layout(text: str, normalize: bool) -> None:
    L, R = 16, 4
    state = make_state(text, num_rules=R, moves_remaining=7)
    root = tree(text)
    pre = root.to_list("preorder")
    n = len(pre)
    obs = state.to_observation(max_seq_len=L, normalize=normalize)
    assert isinstance(obs, np.ndarray)
    assert obs.dtype == np.float32
    assert obs.shape == (3 + 2 * L + R * L,)

    hash0, hash1 = state.get_problem_hash()
    assert obs[0] == np.float32(hash0)
    assert obs[1] == np.float32(hash1)
    assert obs[2] == pytest.approx(0.3)

    types = obs[3 : 3 + L]
    values = obs[3 + L : 3 + 2 * L]
    mask = obs[3 + 2 * L :]
    feats = expected_features(pre, pre, 0.3, normalize)
    np.testing.assert_allclose(types[:n], feats[:, 0], rtol=1e-6)
    np.testing.assert_allclose(values[:n], feats[:, 1], rtol=1e-6, atol=1e-7)
    assert not types[n:].any()
    assert not values[n:].any()
    # No move mask: all zeros.
    assert not mask.any()
    if normalize:
        assert obs.min() >= 0.0 and obs.max() <= 1.0


def test_flat_raw_constant_value_and_type_ids() -> None:
    L = 8
    obs = make_state("7x", num_rules=1).to_observation(max_seq_len=L, normalize=False)
    # pre-order of 7x: *, 7, x
    types = obs[3 : 3 + L]
    values = obs[3 + L : 3 + 2 * L]
    assert types[:3].tolist() == [
        MathTypeKeys["multiply"],
        MathTypeKeys["constant"],
        tree("x").type_id,
    ]
    assert values[:3].tolist() == [0.0, 7.0, 0.0]


def test_flat_mask_placement() -> None:
    L, R = 16, 3
    root = tree(MAIN)
    n = len(root.to_list())
    rng = np.random.default_rng(0)
    move_mask = random_mask(rng, R, n)
    obs = make_state(MAIN, num_rules=R).to_observation(move_mask=move_mask, max_seq_len=L)
    mask = obs[3 + 2 * L :].reshape(R, L)
    np.testing.assert_array_equal(mask[:, :n], move_mask)
    assert not mask[:, n:].any()
