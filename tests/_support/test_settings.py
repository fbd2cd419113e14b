"""`mathy_envs._support.settings`: the checks of constructor keywords and options, which
return a setting in its plain form or raise a `ValueError` naming the setting."""

from typing import Any

import numpy as np
import pytest

from mathy_envs._support.settings import check_flag, check_real, check_seed


def test_check_flag_takes_bools_as_plain_bools() -> None:
    for value, expected in ((True, True), (False, False), (np.bool_(True), True)):
        result = check_flag("verbose", value)
        assert type(result) is bool and result is expected


@pytest.mark.parametrize("value", [1, 0, "yes", "False", None, 1.0])
def test_check_flag_refuses_what_is_not_a_bool(value: Any) -> None:
    with pytest.raises(ValueError, match="^verbose must be a bool, got "):
        check_flag("verbose", value)


def test_check_real_takes_numbers_in_range_as_plain_floats() -> None:
    for value, expected in ((0.5, 0.5), (np.float32(0.25), 0.25), (0, 0.0), (1, 1.0)):
        result = check_real("reward_discount", value, 0.0, 1.0)
        assert type(result) is float and result == expected


@pytest.mark.parametrize(
    "value", [True, np.bool_(False), float("nan"), float("inf"), 1.5, -0.1, "0.5", None, 10**400]
)
def test_check_real_refuses_bools_and_numbers_out_of_range(value: Any) -> None:
    with pytest.raises(ValueError, match=r"^reward_discount must be a number in \[0.0, 1.0\]"):
        check_real("reward_discount", value, 0.0, 1.0)


@pytest.mark.parametrize(
    "seed",
    [None, 0, 2**70, [1, 2], (3,), np.array([1, 2]), np.int64(5)],
)
def test_check_seed_takes_what_numpy_seeds_with(seed: Any) -> None:
    check_seed("seed", seed)
    np.random.default_rng(seed)  # the seeds it takes are seeds numpy takes


def test_check_seed_takes_numpy_seed_objects() -> None:
    for seed in (np.random.SeedSequence(1), np.random.PCG64(1), np.random.default_rng(1)):
        check_seed("seed", seed)


@pytest.mark.parametrize(
    "seed", [-1, 1.5, True, "3", [1, -2], [1.0], np.array([-1]), np.array([1.0]), {}]
)
def test_check_seed_refuses_what_is_no_non_negative_int(seed: Any) -> None:
    with pytest.raises(ValueError, match="^seed must be a non-negative int or None, got "):
        check_seed("seed", seed)
