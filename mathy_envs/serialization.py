"""Serialization of states: `@`-separated text and its uint8 byte codes.

A state serializes to its header fields, in the order of `HEADER_FIELDS`, then one
field per history step (`raw,rule,node`), all joined by `FIELD_SEPARATOR`:

    12@7@11@6x@ns.a@-0.25@4x + 2x,-1,-1@6x,3,1

`to_np` gives the same text as uint8 codes, right padded with spaces. The
`MathyEnvState` methods of the same names (`state.to_string()`,
`MathyEnvState.from_string(text)`, ...) do the same; these functions never call
them, so a subclass's method may call the function. Both are the public face of
one implementation (`mathy_envs._env.state_text`).
"""

from typing import Any, Optional, Type

import numpy as np
import numpy.typing as npt

from .state import MathyEnvState, check_state
from ._env.state_text import (
    FIELD_SEPARATOR,
    HEADER_FIELDS,
    STEP_SEPARATOR,
    deserialize_state,
    serialize_state,
    state_from_codes,
    state_to_codes,
)


def to_string(state: MathyEnvState) -> str:
    """Serialize a state to `@`-separated fields; see `from_string`.

    Raises `ValueError` when a text of the state holds the field separator.
    """
    return serialize_state(check_state(state))


def from_string(text: str, cls: Type[MathyEnvState] = MathyEnvState) -> MathyEnvState:
    """Rebuild a state (an instance of `cls`) from `to_string` output.

    Raises `ValueError` naming the field that is malformed.
    """
    return deserialize_state(cls, text)


def to_np(state: MathyEnvState, pad_to: Optional[int] = None) -> npt.NDArray[np.uint8]:
    """`to_string(state)` as uint8 codes, right padded with spaces to `pad_to`."""
    return state_to_codes(check_state(state), pad_to)


def from_np(
    input_bytes: npt.NDArray[Any], cls: Type[MathyEnvState] = MathyEnvState
) -> MathyEnvState:
    """Rebuild a state (an instance of `cls`) from `to_np` output (padding
    included)."""
    return state_from_codes(cls, input_bytes)


__all__ = (
    "FIELD_SEPARATOR",
    "HEADER_FIELDS",
    "STEP_SEPARATOR",
    "from_np",
    "from_string",
    "to_np",
    "to_string",
)
