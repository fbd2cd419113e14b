"""`mathy_envs.state_text`: the `@`-separated text of a state and its uint8 byte
codes, read and written from the agent's side of a state. (The public
`mathy_envs.serialization` functions built on these are tested in
`test_serialization.py`.)"""

from typing import Any

import numpy as np
import pytest

from mathy_envs.agent import MathyAgentState, MathyEnvStateStep
from mathy_envs.state_text import (
    FIELD_SEPARATOR,
    StateFields,
    check_pad,
    codes_text,
    read_state,
    state_codes,
    write_state,
)

# The example of the module's documentation.
TEXT = "12@7@11@6x@ns.a@-0.25@4x + 2x,-1,-1@6x,3,1"


def agent() -> MathyAgentState:
    """The agent of `TEXT`."""
    return MathyAgentState(
        moves_remaining=11,
        problem="6x",
        problem_type="ns.a",
        reward=-0.25,
        history=[MathyEnvStateStep("4x + 2x", (-1, -1)), MathyEnvStateStep("6x", (3, 1))],
    )


def test_write_state_writes_the_documented_fields_and_read_state_reads_them_back() -> None:
    assert write_state(12, 7, agent()) == TEXT
    fields = read_state(TEXT)
    assert fields == StateFields(max_moves=12, num_rules=7, agent=agent())
    assert write_state(fields.max_moves, fields.num_rules, fields.agent) == TEXT


def test_a_text_holding_the_field_separator_cannot_be_written() -> None:
    for problem_type in ("ns@a", "@"):
        with pytest.raises(ValueError, match="contains the field separator"):
            write_state(10, 3, MathyAgentState(10, "x", problem_type))
    assert FIELD_SEPARATOR == "@"


@pytest.mark.parametrize(
    "text, message",
    [
        ("x@7@11@6x@ns.a@-0.25@6x,-1,-1", "max_moves field 'x' is not an integer"),
        ("12@7@11@6x@ns.a@nan@6x,-1,-1", "reward field 'nan' is not a finite number"),
        ("12@7@11@6x", "has 4 '@'-separated fields; expected at least 7"),
        ("12@7@11@6x@ns.a@0.0@6x,a,1", "history step 0 '6x,a,1' has a non-integer"),
        ("12@7@11@6x@ns.a@0.0@4x + 2x,-1,-1@7x,3,1", "last history step '7x' is not the problem"),
        ("12@7@11@4x +@ns.a@0.0@4x +,-1,-1", "problem field: cannot parse"),
    ],
)
def test_read_state_names_the_malformed_field(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_state(text)


def test_state_codes_are_the_utf8_bytes_padded_with_spaces_and_codes_text_undoes_them() -> None:
    text = "10@3@10@x@é.ns@0.0@x,-1,-1"
    raw = text.encode("utf-8")
    codes = state_codes(text)
    assert codes.dtype == np.uint8 and bytes(codes) == raw
    padded = state_codes(text, 64)
    assert padded.shape == (64,) and bytes(padded) == raw + b" " * (64 - len(raw))
    assert codes_text(padded) == codes_text(codes) == text
    with pytest.raises(ValueError, match="smaller than the serialized state"):
        state_codes(text, len(raw) - 1)


@pytest.mark.parametrize(
    "codes", [np.zeros((2, 3)), np.array([-1, 65]), np.array([256]), np.array([65.5]), [True]]
)
def test_codes_text_refuses_what_is_no_row_of_byte_codes(codes: Any) -> None:
    with pytest.raises(ValueError):
        codes_text(codes)


def test_check_pad_gives_a_plain_int_or_none() -> None:
    assert check_pad(None) is None
    assert check_pad(5) == 5
    padded = check_pad(np.int64(7))
    assert type(padded) is int and padded == 7
    for bad in (True, 2.5, "3"):
        with pytest.raises(ValueError, match="^pad_to must be an int"):
            check_pad(bad)
