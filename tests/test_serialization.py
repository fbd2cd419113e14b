"""Serialization of states: `mathy_envs.serialization` and the
`MathyEnvState` methods that call it."""

from typing import Any, Optional

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathy_envs import MathyEnvState, serialization
from mathy_envs.state import MathyEnvStateStep

from helpers import play, run_python, snapshot


# -- the module and the methods ------------------------------------------------------


def test_methods_and_functions_agree() -> None:
    state = play(seed=2, steps=5)
    text = serialization.to_string(state)
    assert state.to_string() == text
    assert np.array_equal(serialization.to_np(state, pad_to=300), state.to_np(pad_to=300))
    assert serialization.from_string(text) == MathyEnvState.from_string(text) == state
    codes = state.to_np()
    assert serialization.from_np(codes) == MathyEnvState.from_np(codes) == state


def test_format_constants() -> None:
    assert serialization.FIELD_SEPARATOR == "@"
    assert serialization.STEP_SEPARATOR == ","
    assert serialization.HEADER_FIELDS == (
        "max_moves",
        "num_rules",
        "moves_remaining",
        "problem",
        "problem_type",
        "reward",
    )


class TaggedState(MathyEnvState):
    """A subclass, to check that the class methods build instances of it."""


def test_class_methods_build_the_calling_class() -> None:
    state = TaggedState(problem="4x + 2x", max_moves=3, num_rules=7)
    back = TaggedState.from_string(state.to_string())
    assert type(back) is TaggedState and back == state
    again = TaggedState.from_np(state.to_np(pad_to=60))
    assert type(again) is TaggedState and again == state
    assert type(MathyEnvState.from_string(state.to_string())) is MathyEnvState


@pytest.mark.parametrize("first", ["mathy_envs.serialization", "mathy_envs.state"])
def test_either_module_imports_first(first: str) -> None:
    code = (
        f"import {first}\n"
        "from mathy_envs.state import MathyEnvState\n"
        "state = MathyEnvState(problem='x + 1', max_moves=3)\n"
        "print(MathyEnvState.from_string(state.to_string()) == state)\n"
    )
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


# -- format ---------------------------------------------------------------------


def test_to_string_format() -> None:
    state = MathyEnvState(problem="4x + 2x", max_moves=12, num_rules=7, problem_type="ns.a")
    state = state.get_out_state("6x", (3, 1), 11)
    state.agent.reward = -0.25
    assert state.to_string() == "12@7@11@6x@ns.a@-0.25@4x + 2x,-1,-1@6x,3,1"


def test_to_np_is_the_string_as_uint8_padded_with_spaces() -> None:
    state = MathyEnvState(problem="4x + 2x", max_moves=12, num_rules=7, problem_type="ns")
    text = state.to_string()
    codes = state.to_np()
    assert codes.dtype == np.uint8
    assert codes.ndim == 1
    assert bytes(codes.tobytes()) == text.encode("utf-8")
    padded = state.to_np(pad_to=len(text) + 10)
    assert padded.dtype == np.uint8
    assert padded.shape == (len(text) + 10,)
    assert padded[: len(text)].tobytes() == text.encode("utf-8")
    assert (padded[len(text) :] == ord(" ")).all()
    exact = state.to_np(pad_to=len(text))
    assert exact.tobytes() == text.encode("utf-8")
    assert MathyEnvState.from_np(padded) == state
    assert MathyEnvState.from_np(exact) == state


def test_to_np_pad_to_smaller_raises() -> None:
    state = MathyEnvState(problem="4x + 2x", max_moves=12, num_rules=7)
    size = len(state.to_string().encode("utf-8"))
    for pad_to in (size - 1, 1, 0):
        with pytest.raises(ValueError, match="pad_to"):
            state.to_np(pad_to=pad_to)


def test_from_np_accepts_other_integer_dtypes() -> None:
    state = play(seed=5, steps=3)
    codes = state.to_np(pad_to=400)
    assert MathyEnvState.from_np(codes.astype(np.int64)) == state
    assert MathyEnvState.from_np(codes.astype(np.int32)) == state


def test_non_ascii_round_trip() -> None:
    state = MathyEnvState(problem="x + 2", problem_type="espace.é.ü")
    codes = state.to_np(pad_to=200)
    assert MathyEnvState.from_np(codes) == state
    assert MathyEnvState.from_string(state.to_string()) == state


# -- round trips -------------------------------------------------------------------


def _assert_round_trips(state: MathyEnvState) -> None:
    text = state.to_string()
    back = MathyEnvState.from_string(text)
    assert back == state
    assert snapshot(back) == snapshot(state)
    assert back.to_string() == text
    assert type(back.agent.reward) is float
    assert all(type(s.action[0]) is int and type(s.action[1]) is int
               for s in back.agent.history)

    size = len(text.encode("utf-8"))
    for pad_to in (None, size, size + 1, size + 37):
        codes = state.to_np(pad_to=pad_to)
        again = MathyEnvState.from_np(codes)
        assert again == state
        assert again.to_string() == text
        assert np.array_equal(again.to_np(pad_to=pad_to), codes)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, 15))
def test_round_trip_random_play(seed: int, steps: int) -> None:
    _assert_round_trips(play(seed, steps))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    steps=st.integers(1, 12),
    reward=st.floats(allow_nan=False, allow_infinity=False, width=64),
)
def test_round_trip_with_invalid_actions_and_reward(
    seed: int, steps: int, reward: float
) -> None:
    state = play(seed, steps, invalid_every=3).clone()
    state.agent.reward = reward
    _assert_round_trips(state)


def test_round_trip_initial_state_and_unusual_fields() -> None:
    _assert_round_trips(MathyEnvState(problem="x"))
    # Commas (the step separator) in the problem type and in a history step's
    # text (a problem must parse, so it holds none), and zero moves and rules.
    _assert_round_trips(
        MathyEnvState.from_string("0@0@0@4x@n,s@0.0@4x, 2,-1,-1@4x,0,1")
    )
    _assert_round_trips(
        MathyEnvState(problem="x + 1", max_moves=3, problem_type="")
    )
    state = MathyEnvState(problem="x", max_moves=3).get_out_state("x", (-1, 9), -4)
    _assert_round_trips(state)


# -- malformed input ------------------------------------------------------------------


GOOD = "12@7@11@6x@ns.a@-0.25@4x + 2x,-1,-1@6x,3,1"


def test_good_string_parses() -> None:
    state = MathyEnvState.from_string(GOOD)
    assert state.max_moves == 12
    assert state.num_rules == 7
    assert state.agent.moves_remaining == 11
    assert state.agent.problem == "6x"
    assert state.agent.problem_type == "ns.a"
    assert state.agent.reward == -0.25
    assert state.agent.history == [
        MathyEnvStateStep("4x + 2x", (-1, -1)),
        MathyEnvStateStep("6x", (3, 1)),
    ]
    assert state.agent.action == (3, 1)


def _replace_field(index: int, value: str) -> str:
    fields = GOOD.split("@")
    fields[index] = value
    return "@".join(fields)


@pytest.mark.parametrize(
    "index,name",
    [(0, "max_moves"), (1, "num_rules"), (2, "moves_remaining")],
)
@pytest.mark.parametrize("bad", ["x", "1.5", "", "ten", "1e3"])
def test_non_integer_header_field(index: int, name: str, bad: str) -> None:
    with pytest.raises(ValueError, match=name):
        MathyEnvState.from_string(_replace_field(index, bad))


@pytest.mark.parametrize("bad", ["x", "", "1.0.0", "zero"])
def test_non_numeric_reward(bad: str) -> None:
    with pytest.raises(ValueError, match="reward"):
        MathyEnvState.from_string(_replace_field(5, bad))


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 5, 6])
def test_too_few_fields(count: int) -> None:
    text = "@".join(GOOD.split("@")[:count])
    with pytest.raises(ValueError, match="field"):
        MathyEnvState.from_string(text)


@pytest.mark.parametrize(
    "bad",
    ["6x", "6x,3", ",3,1", "6x,a,1", "6x,3,b", "6x,3,1.5", "6x,,1"],
)
def test_bad_history_step(bad: str) -> None:
    with pytest.raises(ValueError, match="history step"):
        MathyEnvState.from_string(_replace_field(7, bad))


def test_bad_first_history_step_names_its_index() -> None:
    with pytest.raises(ValueError, match=r"history step 0"):
        MathyEnvState.from_string(_replace_field(6, "4x + 2x"))
    with pytest.raises(ValueError, match=r"history step 1"):
        MathyEnvState.from_string(_replace_field(7, "6x"))


def test_from_string_rejects_non_strings() -> None:
    with pytest.raises(ValueError):
        MathyEnvState.from_string(b"12@7@11@6x@ns@0.0@6x,-1,-1")  # type: ignore[arg-type]


def test_from_np_two_dimensional_raises() -> None:
    codes = MathyEnvState(problem="x").to_np()
    with pytest.raises(ValueError, match="1-D"):
        MathyEnvState.from_np(codes.reshape(1, -1))
    with pytest.raises(ValueError, match="1-D"):
        MathyEnvState.from_np(np.stack([codes, codes]))


@pytest.mark.parametrize("bad_code", [-1, 256, 1000])
def test_from_np_out_of_range_codes_raise(bad_code: int) -> None:
    codes = MathyEnvState(problem="x").to_np(pad_to=40).astype(np.int64)
    codes[-1] = bad_code
    with pytest.raises(ValueError, match=r"0, 255|255"):
        MathyEnvState.from_np(codes)


def test_from_np_invalid_utf8_raises() -> None:
    codes = MathyEnvState(problem="x").to_np(pad_to=40)
    codes[-1] = 0xFF
    with pytest.raises(ValueError, match="UTF-8"):
        MathyEnvState.from_np(codes)
    codes = MathyEnvState(problem="x").to_np(pad_to=40)
    codes[3] = 0xC3  # a lone lead byte
    with pytest.raises(ValueError, match="UTF-8"):
        MathyEnvState.from_np(codes)


def test_from_np_garbage_raises_value_error() -> None:
    with pytest.raises(ValueError):
        MathyEnvState.from_np(np.frombuffer(b"hello world", dtype=np.uint8))
    with pytest.raises(ValueError):
        MathyEnvState.from_np(np.zeros(0, dtype=np.uint8))
    with pytest.raises(ValueError):
        MathyEnvState.from_np(np.full(10, ord(" "), dtype=np.uint8))


def test_to_string_rejects_separator_in_text() -> None:
    state = MathyEnvState(problem="x", problem_type="a@b")
    with pytest.raises(ValueError):
        state.to_string()


@pytest.mark.parametrize(
    "dtype",
    ["timedelta64[s]", "datetime64[s]", object, complex, bool, "U1", "S1", "V2"],
)
def test_from_np_codes_of_non_integer_dtypes_raise(dtype: object) -> None:
    codes = MathyEnvState(problem="x").to_np(pad_to=40)
    with pytest.raises(ValueError, match="expected integer byte codes"):
        MathyEnvState.from_np(codes.astype(dtype))  # type: ignore[call-overload]


@pytest.mark.parametrize(
    "codes",
    [
        np.array([49.5, 50.0]),
        np.array([-1, 50]),
        np.array([300, 50]),
        np.array([np.nan]),
        np.array([np.inf]),
        np.array([2**64 - 1], dtype=np.uint64),
        np.ones((2, 3), dtype=np.uint8),
        np.array(5),
        [[1], [1, 2]],  # ragged
        [1, "a"],
        None,
    ],
    ids=["fractions", "negative", "above-255", "nan", "inf", "uint64-max", "2-d", "0-d",
         "ragged", "mixed", "None"],
)
def test_from_np_bad_codes_raise_value_errors(codes: Any) -> None:
    with pytest.raises(ValueError):
        MathyEnvState.from_np(codes)


def test_from_np_takes_whole_floats() -> None:
    state = MathyEnvState(problem="4x + 2x")
    assert MathyEnvState.from_np(state.to_np().astype(np.float64)) == state


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "NaN", "1e400"])
def test_a_reward_that_is_not_finite_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="reward field .* is not a finite number"):
        MathyEnvState.from_string(_replace_field(5, bad))


@pytest.mark.parametrize("bad", ["4x +* 2x", "((((x", "x ** 2", "1/0 + x", "9" * 20 + "x"])
def test_a_problem_that_does_not_parse_is_refused(bad: str) -> None:
    text = f"12@7@11@{bad}@ns@0.0@{bad},-1,-1"
    with pytest.raises(ValueError, match="problem field"):
        MathyEnvState.from_string(text)
    with pytest.raises(ValueError, match="problem field"):
        MathyEnvState.from_np(np.frombuffer(text.encode("utf-8"), dtype=np.uint8))


@pytest.mark.parametrize("bad", ["-1", "-5", "1000000001", "99999999999999999999"])
def test_a_max_moves_field_the_constructor_refuses_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="max_moves field"):
        MathyEnvState.from_string(_replace_field(0, bad))


def test_a_subclass_method_may_call_the_module_function() -> None:
    # The functions never call the methods, so a method built on its function
    # gives the function's answer instead of recursing.
    class ViaFunctions(MathyEnvState):
        def to_string(self) -> str:
            return serialization.to_string(self)

        def to_np(self, pad_to: Optional[int] = None) -> np.ndarray:  # type: ignore[override]
            return serialization.to_np(self, pad_to)

        @classmethod
        def from_string(cls, text: str) -> "ViaFunctions":  # type: ignore[override]
            return serialization.from_string(text, cls)  # type: ignore[return-value]

        @classmethod
        def from_np(cls, input_bytes: np.ndarray) -> "ViaFunctions":  # type: ignore[override]
            return serialization.from_np(input_bytes, cls)  # type: ignore[return-value]

    state = ViaFunctions(problem="4x + 2x", max_moves=5).get_out_state("6x", (3, 1), 4)
    text = state.to_string()
    assert text == "5@0@4@6x@mathy.unknown@0.0@4x + 2x,-1,-1@6x,3,1"
    assert ViaFunctions.from_string(text) == state
    assert ViaFunctions.from_np(state.to_np(pad_to=60)) == state
    assert type(ViaFunctions.from_string(text)) is ViaFunctions
