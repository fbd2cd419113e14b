"""Read-only arrays that stay read-only.

numpy lets anyone set `writeable` back to True on an array that owns its data,
so `array.flags.writeable = False` does not protect an array the library shares
(a cached mask, a layout's node arrays, the step types). `frozen(array)` copies
it over immutable bytes: its flag can't be set again, and no write reaches the
library's copy.
"""

from typing import Any, TypeVar

import numpy as np

ArrayT = TypeVar("ArrayT", bound="np.ndarray[Any, Any]")


def frozen(array: ArrayT) -> ArrayT:
    """A read-only copy of `array` (same dtype and shape) whose `writeable`
    flag can't be set to True."""
    copy: ArrayT = np.frombuffer(array.tobytes(), dtype=array.dtype).reshape(array.shape)
    return copy


def is_frozen(array: "np.ndarray[Any, Any]") -> bool:
    """Whether `array` can never change: read-only over immutable bytes, with
    no writable array on the way to them (as `frozen` makes them)."""
    base: object = array
    while isinstance(base, np.ndarray):
        if base.flags.writeable:
            return False
        base = base.base
    return type(base) is bytes


__all__ = ("frozen", "is_frozen")
