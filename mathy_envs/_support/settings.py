"""Checks of settings (constructor keywords and options): each returns the value
in its plain form or raises a `ValueError` that names the setting and quotes what
it got (see `mathy_envs.limits.quote`)."""

import math
import numbers
from typing import Any

import numpy as np

from ..limits import quote, type_name


def check_flag(name: str, value: Any) -> bool:
    """A bool (or numpy bool) setting, as a bool; `1`, `"yes"` or None are not."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {type_name(value)} {quote(value, 40)}")
    return bool(value)


def check_real(name: str, value: Any, low: float, high: float) -> float:
    """A finite real number (not a bool) in `[low, high]`, as a float."""
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise ValueError(
            f"{name} must be a number in [{low}, {high}], got {type_name(value)} "
            f"{quote(value, 40)}"
        )
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        number = math.nan
    if not (math.isfinite(number) and low <= number <= high):
        raise ValueError(f"{name} must be a number in [{low}, {high}], got {quote(value, 40)}")
    return number


def check_seed(name: str, seed: Any) -> None:
    """A seed numpy's `default_rng` takes: None, an int >= 0, a sequence of such
    ints, or a numpy `SeedSequence`, `BitGenerator` or `Generator`. Checked
    before numpy sees it, so that numpy never formats a user's object into its
    own error message."""
    if seed is None or isinstance(
        seed, (np.random.SeedSequence, np.random.BitGenerator, np.random.Generator)
    ):
        return
    if isinstance(seed, (list, tuple)):
        entries = list(seed)
    elif isinstance(seed, np.ndarray) and seed.dtype.kind in "iu" and seed.ndim <= 1:
        entries = [int(entry) for entry in seed.reshape(-1)]
    else:
        entries = [seed]
    for entry in entries:
        if isinstance(entry, (bool, np.bool_)) or not isinstance(entry, (int, np.integer)):
            raise ValueError(
                f"{name} must be a non-negative int or None, got {quote(seed, 60)}"
            )
        if entry < 0:
            raise ValueError(f"{name} must be a non-negative int or None, got {quote(seed, 60)}")


__all__ = ("check_flag", "check_real", "check_seed")
