"""`mathy_envs._env.state_text`: the `@`-separated text of a state and its uint8 byte
codes, read and written from the agent's side of a state. (The public
`mathy_envs.serialization` functions built on these are tested in
`test_serialization.py`.)"""

from typing import Any

import numpy as np
import pytest

from mathy_envs._env.agent import MathyAgentState, MathyEnvStateStep
from mathy_envs._env.state_text import (
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


ARABIC_INDIC_12 = "\u0661\u0662"  # the digits 1 and 2 of Arabic script


@pytest.mark.parametrize("bad", ["1_2", " 12", "12 ", "+", "-", "", "0x0c", ARABIC_INDIC_12, "12.0", "1e1"])
@pytest.mark.parametrize("field", ["max_moves", "num_rules", "moves_remaining"])
def test_integer_fields_are_plain_decimal_digits(field: str, bad: str) -> None:
    """`int()` also reads `1_2`, ` 12 ` and other scripts' digits; the fields
    take what `write_state` writes: ASCII digits, with an optional sign."""
    fields = TEXT.split(FIELD_SEPARATOR)
    fields[("max_moves", "num_rules", "moves_remaining").index(field)] = bad
    with pytest.raises(ValueError, match=f"^{field} field .* is not an integer"):
        read_state(FIELD_SEPARATOR.join(fields))


@pytest.mark.parametrize("bad", ["3_1", " 3", "3 ", "", "+", ARABIC_INDIC_12, "3.0"])
@pytest.mark.parametrize("part", ["rule", "node"])
def test_history_step_actions_are_plain_decimal_digits(part: str, bad: str) -> None:
    rule, node = (bad, "1") if part == "rule" else ("3", bad)
    text = f"{TEXT.rsplit(FIELD_SEPARATOR, 1)[0]}{FIELD_SEPARATOR}6x,{rule},{node}"
    with pytest.raises(ValueError, match="^history step 1 .* has a non-integer rule or node"):
        read_state(text)


@pytest.mark.parametrize("bad", ["1_0.5", " 0.5", "0.5 ", "", ".", "e5", "\u0660.\u0665", "0x1p-2"])
def test_the_reward_field_is_a_plain_decimal_number(bad: str) -> None:
    """`float()` also reads `1_0.5`, ` 0.5 ` and other scripts' digits."""
    fields = TEXT.split(FIELD_SEPARATOR)
    fields[5] = bad
    with pytest.raises(ValueError, match="^reward field .* is not a number"):
        read_state(FIELD_SEPARATOR.join(fields))


@pytest.mark.parametrize("moves, reward", [(0, 0.0), (-3, 1e-05), (+7, -1.5e16), (12, 5e-324)])
def test_what_write_state_writes_reads_back(moves: int, reward: float) -> None:
    """Every integer and float `write_state` writes (signs, exponents) is read."""
    state = agent()
    state.moves_remaining, state.reward = moves, reward
    written = write_state(20, 7, state)
    fields = read_state(written)
    assert (fields.agent.moves_remaining, fields.agent.reward) == (moves, reward)
    assert read_state("+12@+7@+11@6x@ns.a@+0.25@4x + 2x,+1,-1@6x,3,+1").agent.history[1].action == (3, 1)


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


def test_a_long_malformed_number_field_is_refused_in_linear_time() -> None:
    from helpers import time_limit

    from mathy_envs._env.state_text import read_state

    for field in ("1" * 100_000 + "x", "1." + "1" * 100_000 + "e", "-" + "9" * 100_000 + "_"):
        text = "@".join(["10", "7", "9", "4x + 2x", "mathy.test", field, "4x + 2x,-1,-1"])
        with time_limit(5.0):  # linear: milliseconds; quadratic: minutes
            with pytest.raises(ValueError, match="reward field"):
                read_state(text)


def test_serialize_and_deserialize_a_state_of_any_class() -> None:
    """The one implementation: `serialize_state` writes what `write_state`
    writes, and `deserialize_state` rebuilds an instance of the class asked for
    without calling its `__init__`; the codes forms round-trip too."""
    from mathy_envs import MathyEnvState
    from mathy_envs._env.state_text import (
        deserialize_state,
        serialize_state,
        state_from_codes,
        state_to_codes,
    )

    class Tagged(MathyEnvState):
        def __init__(self) -> None:
            raise AssertionError("never called by deserialize_state")

    start = MathyEnvState(problem="4x + 2x", max_moves=12, num_rules=7)
    state = start.get_out_state("6x", (3, 1), 11)
    text = serialize_state(state)
    assert text == write_state(12, 7, state.agent)
    back = deserialize_state(Tagged, text)
    assert type(back) is Tagged and back == state
    codes = state_to_codes(state, 80)
    assert len(codes) == 80 and codes_text(codes) == text
    assert state_from_codes(MathyEnvState, codes) == state
    with pytest.raises(ValueError, match="smaller than the serialized state"):
        state_to_codes(state, 3)
