"""State serialization, the one implementation: `@`-separated text and its
uint8 byte codes.

A state is written as its header fields, in the order of `HEADER_FIELDS`, then
one field per history step (`raw,rule,node`), all joined by `FIELD_SEPARATOR`:

    12@7@11@6x@ns.a@-0.25@4x + 2x,-1,-1@6x,3,1

`state_codes` gives the same text as uint8 codes, right padded with spaces.
`serialize_state`, `deserialize_state`, `state_to_codes` and `state_from_codes`
do the whole job for any state (an object with `max_moves`, `num_rules` and an
`agent`): `MathyEnvState.to_string` / `from_string` / `to_np` / `from_np` and the
functions of `mathy_envs.serialization` (the documented public face) only call
them.
"""

import math
import re
from typing import Any, NamedTuple, Optional, Protocol, Type, TypeVar

import numpy as np
import numpy.typing as npt

from .agent import MathyAgentState, MathyEnvStateStep
from ..limits import MAX_MOVES, MAX_RULES, quote
from .._engine import parse

FIELD_SEPARATOR = "@"
"""Separates the fields of a serialized state (so no text may hold it)."""
STEP_SEPARATOR = ","
"""Separates a history step's text, rule index and node index."""
HEADER_FIELDS = (
    "max_moves",
    "num_rules",
    "moves_remaining",
    "problem",
    "problem_type",
    "reward",
)
"""The fields before the history steps, in order."""
INTEGER = re.compile(r"[-+]?[0-9]{1,20}")
"""An integer field: ASCII decimal digits (at most 20) with an optional sign, as
`str(int)` writes it; not the other forms `int()` reads (`1_0`, ` 1 `, other
scripts' digits)."""
NUMBER = re.compile(
    r"[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|inf|infinity|nan)",
    re.IGNORECASE,
)
"""The reward field: a decimal number as `repr(float)` writes it (the names of
the values that are not finite are read, to be refused as such); not the other
forms `float()` reads (`1_0.5`, ` 1 `, other scripts' digits). No two of its
quantifiers can share a run of digits, so a long field is read in linear time."""


class SerializedState(Protocol):
    """What a serialized state holds (a `MathyEnvState` is one)."""

    max_moves: int
    num_rules: int
    agent: MathyAgentState


StateT = TypeVar("StateT", bound=SerializedState)


def serialize_state(state: SerializedState) -> str:
    """The `@`-separated text of `state` (`MathyEnvState.to_string`); a
    `ValueError` when a text of the state holds the field separator."""
    return write_state(state.max_moves, state.num_rules, state.agent)


def deserialize_state(cls: Type[StateT], text: str) -> StateT:
    """A state of class `cls` rebuilt from `serialize_state` output (its
    `__init__` is not called); a `ValueError` naming the field that is
    malformed."""
    fields = read_state(text)
    state = cls.__new__(cls)
    state.max_moves = fields.max_moves
    state.num_rules = fields.num_rules
    state.agent = fields.agent
    return state


def state_to_codes(state: SerializedState, pad_to: Optional[int] = None) -> npt.NDArray[np.uint8]:
    """`serialize_state(state)` as uint8 codes, right padded with spaces to
    `pad_to` (`MathyEnvState.to_np`)."""
    pad = check_pad(pad_to)
    return state_codes(serialize_state(state), pad)


def state_from_codes(cls: Type[StateT], input_bytes: npt.NDArray[Any]) -> StateT:
    """A state of class `cls` rebuilt from `state_to_codes` output (padding
    included)."""
    return deserialize_state(cls, codes_text(input_bytes))


class StateFields(NamedTuple):
    """What the text of a state holds: its episode constants and its agent."""

    max_moves: int
    num_rules: int
    agent: MathyAgentState


def write_state(max_moves: int, num_rules: int, agent: MathyAgentState) -> str:
    """The `@`-separated text of a state; see `read_state`.

    Raises `ValueError` when a text of the state holds the field separator.
    """
    texts = [agent.problem, agent.problem_type] + [s.raw for s in agent.history]
    for text in texts:
        if FIELD_SEPARATOR in text:
            raise ValueError(
                f"cannot serialize {quote(text)}: it contains the field separator "
                f"{FIELD_SEPARATOR!r}"
            )
    fields = [
        str(max_moves),
        str(num_rules),
        str(agent.moves_remaining),
        agent.problem,
        agent.problem_type,
        repr(float(agent.reward)),
    ]
    fields.extend(
        f"{step.raw}{STEP_SEPARATOR}{step.action[0]}{STEP_SEPARATOR}{step.action[1]}"
        for step in agent.history
    )
    return FIELD_SEPARATOR.join(fields)


def read_state(text: str) -> StateFields:
    """The fields of `write_state` output.

    Raises `ValueError` naming the field that is malformed.
    """
    if not isinstance(text, str):
        raise ValueError(f"serialized state must be a str, got {type(text).__name__}")
    fields = text.split(FIELD_SEPARATOR)
    if len(fields) < len(HEADER_FIELDS) + 1:
        raise ValueError(
            f"serialized state has {len(fields)} '{FIELD_SEPARATOR}'-separated "
            f"fields; expected at least {len(HEADER_FIELDS) + 1} "
            f"({', '.join(HEADER_FIELDS)}, then one per history step)"
        )
    max_moves = _int_field("max_moves", fields[0])
    if not 0 <= max_moves <= MAX_MOVES:
        # What MathyEnvState(max_moves=...) takes.
        raise ValueError(
            f"max_moves field {max_moves} is outside [0, MAX_MOVES={MAX_MOVES}]"
        )
    num_rules = _int_field("num_rules", fields[1])
    if not 0 <= num_rules <= MAX_RULES:
        raise ValueError(
            f"num_rules field {num_rules} is outside [0, MAX_RULES={MAX_RULES}]"
        )
    moves_remaining = _int_field("moves_remaining", fields[2])
    problem = fields[3]
    if problem.strip() == "":
        raise ValueError("problem field is empty")
    try:
        parse(problem)  # as MathyEnvState(problem=...) does
    except ValueError as error:
        raise ValueError(f"problem field: {error}") from None
    problem_type = fields[4]
    if NUMBER.fullmatch(fields[5]) is None:
        raise ValueError(f"reward field {quote(fields[5])} is not a number")
    reward = float(fields[5])
    if not math.isfinite(reward):
        raise ValueError(f"reward field {quote(fields[5])} is not a finite number")
    history = [_step_field(index, field) for index, field in enumerate(fields[6:])]
    if history[-1].raw != problem:
        raise ValueError(
            f"last history step {quote(history[-1].raw)} is not the problem "
            f"{quote(problem)}"
        )
    agent = MathyAgentState(
        moves_remaining=moves_remaining,
        problem=problem,
        problem_type=problem_type,
        reward=reward,
        history=history,
    )
    return StateFields(max_moves, num_rules, agent)


def check_pad(pad_to: Any) -> Optional[int]:
    """`pad_to` as a plain int (None stays None), or a `ValueError`."""
    if pad_to is None:
        return None
    if isinstance(pad_to, bool) or not isinstance(pad_to, (int, np.integer)):
        raise ValueError(f"pad_to must be an int, got {quote(pad_to, 40)}")
    return int(pad_to)  # a plain int: messages never format a user's object


def state_codes(text: str, pad_to: Optional[int] = None) -> npt.NDArray[np.uint8]:
    """A state's text as uint8 codes, right padded with spaces to `pad_to` (a
    value `check_pad` gave)."""
    codes = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if pad_to is None:
        return np.array(codes, dtype=np.uint8)
    if pad_to < len(codes):
        raise ValueError(
            f"pad_to={pad_to} is smaller than the serialized state "
            f"({len(codes)} bytes)"
        )
    out = np.full(pad_to, ord(" "), dtype=np.uint8)
    out[: len(codes)] = codes
    return out


def codes_text(input_bytes: npt.NDArray[Any]) -> str:
    """The text of `state_codes` output, padding removed."""
    try:
        array = np.asarray(input_bytes)
    except Exception as error:  # ragged lists, objects numpy can't convert
        raise ValueError(
            f"expected a 1-D array of byte codes, got {quote(input_bytes, 80)}"
        ) from error
    if array.ndim != 1:
        raise ValueError(f"expected a 1-D array of byte codes, got shape {array.shape}")
    # Integers, or floats holding whole numbers; not bools, complex numbers,
    # times (timedelta64 counts as an integer type in numpy), objects or text.
    if array.size and array.dtype.kind not in "iuf":
        raise ValueError(
            f"expected integer byte codes, got dtype {array.dtype} (kind "
            f"{array.dtype.kind!r})"
        )
    if array.size and (
        np.any(array < 0) or np.any(array > 255) or np.any(array != np.floor(array))
    ):
        raise ValueError("byte codes must be whole numbers in [0, 255]")
    try:
        text = array.astype(np.uint8).tobytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"byte codes are not valid UTF-8: {error}") from None
    return text.rstrip(" ")


def _int_field(name: str, value: str) -> int:
    if len(value) > 20:
        raise ValueError(f"{name} field {quote(value)} is not an integer of at most 20 digits")
    if INTEGER.fullmatch(value) is None:
        raise ValueError(
            f"{name} field {quote(value)} is not an integer (ASCII digits, with an "
            "optional sign)"
        )
    return int(value)


def _step_field(index: int, value: str) -> MathyEnvStateStep:
    parts = value.rsplit(STEP_SEPARATOR, 2)
    if len(parts) != 3 or parts[0] == "":
        raise ValueError(
            f"history step {index} {quote(value)} is not 'raw{STEP_SEPARATOR}rule"
            f"{STEP_SEPARATOR}node'"
        )
    raw, rule, node = parts
    if INTEGER.fullmatch(rule) is None or INTEGER.fullmatch(node) is None:
        raise ValueError(
            f"history step {index} {quote(value)} has a non-integer rule or node "
            "(ASCII digits, at most 20, with an optional sign)"
        )
    return MathyEnvStateStep(raw, (int(rule), int(node)))


__all__ = (
    "FIELD_SEPARATOR",
    "HEADER_FIELDS",
    "INTEGER",
    "NUMBER",
    "STEP_SEPARATOR",
    "SerializedState",
    "StateFields",
    "check_pad",
    "codes_text",
    "deserialize_state",
    "read_state",
    "serialize_state",
    "state_codes",
    "state_from_codes",
    "state_to_codes",
    "write_state",
)
