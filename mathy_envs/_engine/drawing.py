"""Problems drawn by the native core: a built-in generator's problem made by
the compiled core (native/problems.cpp) from the generator's own numpy random
generator, number for number as the Python generator draws it.

The compiled core replays what `numpy.random.Generator.random`, `integers`
and `permutation` make of their bit generator's outputs. That is numpy's
behaviour, observed, not a documented promise: before the first native draw of a
process, `replays_numpy` checks the replay against numpy itself (a few hundred
mixed draws), and where they differ (a numpy that changed its algorithms)
every problem is drawn in Python.

`draw_problem` draws only from a plain `numpy.random.Generator` over `PCG64`
(what `numpy.random.default_rng` and the envs' `np_random` are), holding the
bit generator's lock as numpy's own methods do. Where the compiled core leaves
a problem to Python (a knob out of its range, an error the generator raises, a
text or verdict it does not reproduce) it puts the bit generator's state back
as it was, and the caller draws the problem in Python: the same problem, and the
same generator state after it, either way.
"""

import functools
import threading
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from .admission import MOVE_LIMITS
from .native import NATIVE

_GENERATOR = np.random.Generator
_PCG64 = np.random.PCG64
"""numpy's classes, as they were at import (a class put in their place later
is not numpy's)."""
_CHECK_SEED = 20_261_128
_CHECK_DRAWS = 400
_NATIVE_COUNT = 2**62
"""Counts (and numbers) the compiled core is given are below this in size."""


def draw_problem(
    family: str,
    rng: object,
    counts: Sequence[int],
    chances: Sequence[float],
    ops: Sequence[str],
    variables: str,
    common_variables: str,
    numbers: Sequence[int],
) -> Optional[Tuple[str, int]]:
    """`(text, complexity)` of the problem `family`'s Python generator would draw
    from `rng` with these knobs (problems.py's constants `variables`,
    `common_variables` and `numbers`: MAX_COEFFICIENT, MAX_EXPONENT,
    MAX_ATTEMPTS, MAX_NODES), drawn by the native core, `rng` then in the
    state the Python generator leaves it in; None, `rng` unchanged, where the
    Python generator must draw it."""
    if NATIVE is None or type(rng) is not _GENERATOR:
        return None
    bit_generator = rng.bit_generator
    if type(bit_generator) is not _PCG64 or not replays_numpy():
        return None
    index = _family_index(family)
    if (
        index is None
        or not _plain(counts)
        or not _plain(chances)
        or not _plain(ops)
        or not _plain(numbers)
        or not _native_ints(counts)
        or not _native_ints(numbers)
        or not all(map(_exact_chance, chances))
        or not all(type(op) is str for op in ops)
        or type(variables) is not str
        or type(common_variables) is not str
    ):
        return None
    with bit_generator.lock:
        before = bit_generator.state
        drawn = NATIVE.draw_problem(
            bit_generator, index, counts, chances, ops, variables, common_variables,
            numbers, MOVE_LIMITS,
        )
        if drawn is None:
            bit_generator.state = before
    return drawn


def _plain(values: object) -> bool:
    """Whether knobs are a plain list or tuple (what the native core reads as
    Python does; anything else, a str or a list of your class, is Python's to
    read)."""
    return type(values) is list or type(values) is tuple


def _native_ints(values: Sequence[int]) -> bool:
    for each in values:
        if type(each) is not int or not -_NATIVE_COUNT < each < _NATIVE_COUNT:
            return False
    return True


def _exact_chance(number: object) -> bool:
    """Whether a chance is a number that compares with a draw as its float does
    (a float, or an int a float holds exactly)."""
    return type(number) is float or (type(number) is int and -(2**53) <= number <= 2**53)


@functools.lru_cache(maxsize=None)
def _family_index(family: str) -> Optional[int]:
    assert NATIVE is not None
    families = NATIVE.PROBLEM_FAMILIES
    return families.index(family) if family in families else None


_check_lock = threading.Lock()
_checked: List[bool] = []
"""The one verdict of `replays_numpy`, once made (under `_check_lock`)."""


def replays_numpy() -> bool:
    """Whether the native core's replay of numpy's draws gives numpy's numbers:
    checked once per process, on `_CHECK_DRAWS` draws of every kind the
    generators make (floats, integers over ranges small and past 2^31,
    permutations) from a seeded PCG64, and that both generators end in the
    same state."""
    with _check_lock:
        if not _checked:
            _checked.append(_replay_matches())
        return _checked[0]


def _replay_matches() -> bool:
    if NATIVE is None:
        return False
    plan = np.random.default_rng(_CHECK_SEED)
    asked: List[Tuple[int, int, int]] = []
    for _ in range(_CHECK_DRAWS):
        kind = int(plan.integers(3))
        low = int(plan.integers(-5, 6))
        span = int(plan.choice([1, 2, 3, 7, 12, 24, 1000, 2**31 + 5, 2**32 - 3]))
        asked.append((kind, low if kind == 1 else int(plan.integers(14)), low + span))
    numpy_rng = _GENERATOR(_PCG64(_CHECK_SEED))
    native_rng = _GENERATOR(_PCG64(_CHECK_SEED))
    expected: List[Union[float, int, List[int], None]] = []
    for kind, a, b in asked:
        if kind == 0:
            expected.append(float(numpy_rng.random()))
        elif kind == 1:
            expected.append(int(numpy_rng.integers(a, b)))
        else:
            expected.append([int(each) for each in numpy_rng.permutation(a)])
    with native_rng.bit_generator.lock:
        replayed = NATIVE.replay_draws(native_rng.bit_generator, asked)
    return replayed == expected and numpy_rng.random() == native_rng.random()


__all__ = ("draw_problem", "replays_numpy")
