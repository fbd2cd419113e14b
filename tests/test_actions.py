"""Sampling one valid action per row of a batch of flat masks,
`sample_valid_actions` (also exported by `mathy_envs.gym`)."""

from typing import Any

import numpy as np
import pytest

from mathy_envs.actions import NO_VALID_ACTION, sample_valid_actions

MASKS = np.array(
    [
        [0, 1, 0, 1, 1, 0],
        [0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1],
        [1, 1, 1, 1, 1, 1],
    ],
    np.int8,
)


def _frequencies(masks: Any, draws: int, seed: int = 0) -> np.ndarray:
    """How often each (row, action) was drawn, as a fraction of `draws`."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(np.shape(masks), np.int64)
    rows = np.arange(len(counts))
    for _ in range(draws):
        counts[rows, sample_valid_actions(masks, rng)] += 1
    return counts / draws


def test_one_valid_action_per_row_as_int64() -> None:
    rng = np.random.default_rng(1)
    for _ in range(200):
        actions = sample_valid_actions(MASKS, rng)
        assert actions.dtype == np.int64 and actions.shape == (len(MASKS),)
        for row, action in enumerate(actions):
            if MASKS[row].any():
                assert MASKS[row, action] == 1


def test_valid_actions_are_equally_likely() -> None:
    frequencies = _frequencies(MASKS, 6000)
    for row, mask in enumerate(MASKS):
        if not mask.any():
            continue
        expected = 1.0 / mask.sum()
        np.testing.assert_allclose(frequencies[row][mask == 1], expected, atol=0.03)
        assert not frequencies[row][mask == 0].any()


def test_probabilities_are_masks_whatever_their_values() -> None:
    """A row of probabilities offers the actions with a nonzero one, each as
    likely as the others (a probability mask of mathy's is uniform anyway)."""
    probabilities = np.array([[0.7, 0.0, 0.3, 0.0], [0.0, 0.5, 0.0, 0.5]], np.float32)
    frequencies = _frequencies(probabilities, 4000)
    np.testing.assert_allclose(frequencies[0], [0.5, 0, 0.5, 0], atol=0.03)
    np.testing.assert_allclose(frequencies[1], [0, 0.5, 0, 0.5], atol=0.03)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.float32, np.float64])
def test_every_mask_dtype_gives_the_same_actions(dtype: Any) -> None:
    expected = sample_valid_actions(MASKS, np.random.default_rng(5))
    actions = sample_valid_actions(MASKS.astype(dtype), np.random.default_rng(5))
    np.testing.assert_array_equal(actions, expected)
    # Nested lists too.
    listed = sample_valid_actions(MASKS.astype(dtype).tolist(), np.random.default_rng(5))
    np.testing.assert_array_equal(listed, expected)


def test_a_row_without_a_valid_action_gets_action_0() -> None:
    assert NO_VALID_ACTION == 0
    rng = np.random.default_rng(2)
    for _ in range(50):
        assert sample_valid_actions(MASKS, rng)[1] == NO_VALID_ACTION
    assert sample_valid_actions(np.zeros((3, 9)), rng).tolist() == [0, 0, 0]


def test_a_seeded_generator_gives_the_same_actions_with_one_draw_per_batch() -> None:
    first = sample_valid_actions(MASKS, np.random.default_rng(9))
    assert sample_valid_actions(MASKS, np.random.default_rng(9)).tolist() == first.tolist()
    rng, reference = np.random.default_rng(3), np.random.default_rng(3)
    sample_valid_actions(MASKS, rng)
    reference.random(len(MASKS))
    assert rng.random() == reference.random()


def test_an_empty_batch_gives_no_actions() -> None:
    actions = sample_valid_actions(np.zeros((0, 4)), np.random.default_rng(0))
    assert actions.dtype == np.int64 and actions.shape == (0,)


@pytest.mark.parametrize(
    "masks, message",
    [
        (np.ones(4), r"2-D array .*got shape \(4,\) \(for one mask, pass mask\[None\]\)"),
        (np.ones((2, 3, 4)), r"2-D array .*got shape \(2, 3, 4\)"),
        (np.ones((2, 0)), r"at least one action, got shape \(2, 0\)"),
        ([[1, 0], [1]], "masks must be a 2-D array"),
        ([["1", "0"]], "bools, ints or floats, got dtype <U1"),
        ([[1 + 0j]], "bools, ints or floats, got dtype complex128"),
        ([[0.5, float("nan")]], "must not hold NaN"),
        ([[0, 2]], r"in \[0, 1\], got values from 0 to 2"),
        ([[-1, 1]], r"in \[0, 1\], got values from -1 to 1"),
        ([[0.0, float("inf")]], r"in \[0, 1\]"),
    ],
    ids=["1-d", "3-d", "no-actions", "ragged", "strings", "complex", "nan", "above-1",
         "negative", "inf"],
)
def test_bad_masks_are_value_errors(masks: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sample_valid_actions(masks, np.random.default_rng(0))


@pytest.mark.parametrize("rng", [0, None, np.random.RandomState(0)])
def test_rng_must_be_a_generator(rng: Any) -> None:
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        sample_valid_actions(MASKS, rng)
