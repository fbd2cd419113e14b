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


__all__ = ("frozen",)
