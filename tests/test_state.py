"""MathyEnvState: values, problem hash and serialization (SPEC section 3)."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathy_envs import MathyEnvState, envs
from mathy_envs.state import MathyAgentState, MathyEnvStateStep
from mathy_envs.time_step import is_terminal_transition

REPO = Path(__file__).resolve().parent.parent
NAMESPACES = [
    "mathy.polynomials.simplify",
    "mathy.polynomials.commute_then_simplify",
    "mathy.polynomials.combine.in.place",
    "mathy.polynomials.commute.like.terms",
    "mathy.polynomials.group_like_terms",
    "mathy.polynomials.haystack.like.terms",
    "mathy.monomials.complex_simplify",
    "mathy.binomials.mulptiply",
    "mathy.unknown",
]


def play(seed: int, steps: int, invalid_every: int = 0) -> MathyEnvState:
    """A state reached by masked random play (optionally with penalized invalid
    actions every `invalid_every` steps)."""
    kwargs = {"invalid_action_response": "penalize"} if invalid_every else {}
    env = envs.PolySimplify(seed=seed, **kwargs)  # type: ignore[arg-type]
    state, _ = env.get_initial_state(print_problem=False)
    rng = np.random.default_rng(seed)
    for i in range(steps):
        if invalid_every and i % invalid_every == invalid_every - 1:
            action = (int(rng.integers(-3, 12)), int(rng.integers(-3, 200)))
        else:
            valid = np.argwhere(np.asarray(env.get_valid_moves(state)))
            if len(valid) == 0:
                break
            rule, node = valid[rng.integers(len(valid))]
            action = (int(rule), int(node))
        state, step, _ = env.get_next_state(state, action)
        if is_terminal_transition(step):
            break
    return state


def snapshot(state: MathyEnvState) -> str:
    """Everything a state holds, independent of its serialization."""
    agent = state.agent
    return repr(
        (
            state.max_moves,
            state.num_rules,
            agent.moves_remaining,
            agent.problem,
            agent.problem_type,
            agent.reward,
            [(s.raw, tuple(s.action)) for s in agent.history],
        )
    )


# -- construction --------------------------------------------------------------


def test_new_state_fields() -> None:
    state = MathyEnvState(problem="4x + 2x", max_moves=12, num_rules=7, problem_type="ns")
    assert state.max_moves == 12
    assert state.num_rules == 7
    agent = state.agent
    assert isinstance(agent, MathyAgentState)
    assert agent.moves_remaining == 12
    assert agent.problem == "4x + 2x"
    assert agent.problem_type == "ns"
    assert agent.reward == 0.0
    assert agent.history == [MathyEnvStateStep("4x + 2x", (-1, -1))]
    assert agent.action == (-1, -1)


def test_state_defaults() -> None:
    state = MathyEnvState(problem="x")
    assert state.max_moves == 10
    assert state.num_rules == 0
    assert state.agent.problem_type == "mathy.unknown"


def test_agent_state_default_history() -> None:
    agent = MathyAgentState(3, "2y", "ns")
    assert agent.reward == 0.0
    assert agent.history == [MathyEnvStateStep("2y", (-1, -1))]
    step = MathyEnvStateStep(raw="x", action=(1, 2))
    assert step.raw == "x" and step.action == (1, 2)
    assert tuple(step) == ("x", (1, 2))


def test_agent_state_copies_given_history() -> None:
    history = [MathyEnvStateStep("2y", (-1, -1))]
    agent = MathyAgentState(3, "2y", "ns", history=history)
    history.append(MathyEnvStateStep("y2", (1, 0)))
    assert len(agent.history) == 1


# -- states are values -----------------------------------------------------------


def test_get_out_state_appends_and_does_not_mutate() -> None:
    state = MathyEnvState(problem="4x + 2x", max_moves=10, num_rules=7)
    before = snapshot(state)
    history = state.agent.history
    history_before = list(history)
    out = state.get_out_state("6x", (3, 1), 9)
    assert snapshot(state) == before
    assert state.agent.history is history
    assert history == history_before
    assert out.agent.history is not state.agent.history
    assert out.agent.problem == "6x"
    assert out.agent.moves_remaining == 9
    assert out.agent.action == (3, 1)
    assert out.agent.history == [
        MathyEnvStateStep("4x + 2x", (-1, -1)),
        MathyEnvStateStep("6x", (3, 1)),
    ]
    assert out.max_moves == 10 and out.num_rules == 7
    assert out.agent.problem_type == state.agent.problem_type
    # Chained: the intermediate state is untouched too.
    out2 = out.get_out_state("x6", (1, 0), 8)
    assert len(out.agent.history) == 2
    assert len(out2.agent.history) == 3
    assert out2.agent.action == (1, 0)
    # Mutating the new state's history does not leak back.
    out.agent.history.append(MathyEnvStateStep("zzz", (0, 0)))
    assert snapshot(state) == before
    assert len(out2.agent.history) == 3


@pytest.mark.parametrize("how", ["clone", "copy", "ctor"])
def test_clone_and_copy_are_independent(how: str) -> None:
    state = play(seed=3, steps=4)
    state.agent.reward = 0.25
    before = snapshot(state)
    if how == "clone":
        other = state.clone()
    elif how == "copy":
        other = MathyEnvState.copy(state)
    else:
        other = MathyEnvState(state=state)
    assert isinstance(other, MathyEnvState)
    assert other == state
    assert snapshot(other) == before
    assert other is not state
    assert other.agent is not state.agent
    assert other.agent.history is not state.agent.history
    # Changing the copy leaves the original alone.
    other.agent.history.append(MathyEnvStateStep("x", (0, 0)))
    other.agent.moves_remaining -= 1
    other.agent.reward = -5.0
    other.agent.problem = "changed"
    other.max_moves += 1
    assert snapshot(state) == before
    assert other != state


def test_env_steps_do_not_mutate_states() -> None:
    env = envs.PolySimplify(seed=11)
    state, _ = env.get_initial_state(print_problem=False)
    rng = np.random.default_rng(11)
    for _ in range(6):
        before = snapshot(state)
        valid = np.argwhere(np.asarray(env.get_valid_moves(state)))
        if len(valid) == 0:
            break
        rule, node = valid[rng.integers(len(valid))]
        nxt, _, _ = env.get_next_state(state, (int(rule), int(node)))
        assert snapshot(state) == before
        assert nxt.agent.history is not state.agent.history
        assert nxt.agent.history[:-1] == state.agent.history
        state = nxt


def test_state_equality() -> None:
    a = MathyEnvState(problem="x + 1", max_moves=5, num_rules=2)
    b = MathyEnvState(problem="x + 1", max_moves=5, num_rules=2)
    assert a == b
    assert a != MathyEnvState(problem="x + 1", max_moves=6, num_rules=2)
    assert a != MathyEnvState(problem="x + 1", max_moves=5, num_rules=3)
    assert a != a.get_out_state("x + 1", (0, 0), 5)  # longer history
    assert a != MathyEnvState(problem="x + 1", max_moves=5, num_rules=2, problem_type="y")


# -- problem hash ----------------------------------------------------------------


def test_problem_hash_two_floats_in_unit_range() -> None:
    for namespace in NAMESPACES + ["", "ns", "é"]:
        value = MathyEnvState(problem="x", problem_type=namespace).get_problem_hash()
        assert isinstance(value, list)
        assert len(value) == 2
        for v in value:
            assert isinstance(v, float)
            assert 0.0 <= v <= 1.0
        assert value[0] != value[1]


def test_problem_hash_depends_only_on_namespace() -> None:
    hashes = {
        ns: tuple(MathyEnvState(problem="x", problem_type=ns).get_problem_hash())
        for ns in NAMESPACES
    }
    assert len(set(hashes.values())) == len(NAMESPACES)
    # Both components differ, not just one.
    assert len({h[0] for h in hashes.values()}) == len(NAMESPACES)
    assert len({h[1] for h in hashes.values()}) == len(NAMESPACES)
    same = MathyEnvState(problem="4x + 2y", max_moves=3, problem_type=NAMESPACES[0])
    assert tuple(same.get_problem_hash()) == hashes[NAMESPACES[0]]
    assert tuple(same.get_out_state("6x", (0, 1), 2).get_problem_hash()) == hashes[
        NAMESPACES[0]
    ]


def test_env_initial_state_uses_env_namespace_hash() -> None:
    env = envs.PolySimplify(seed=0)
    state, problem = env.get_initial_state(print_problem=False)
    assert problem.type == env.get_env_namespace() == state.agent.problem_type
    expected = MathyEnvState(
        problem="x", problem_type="mathy.polynomials.simplify"
    ).get_problem_hash()
    assert state.get_problem_hash() == expected


_HASH_SCRIPT = (
    "import json, sys\n"
    "from mathy_envs import MathyEnvState\n"
    "names = json.loads(sys.argv[1])\n"
    "print(json.dumps([MathyEnvState(problem='x', problem_type=n).get_problem_hash()"
    " for n in names]))\n"
)


def test_problem_hash_same_in_every_process() -> None:
    local = [
        MathyEnvState(problem="x", problem_type=n).get_problem_hash() for n in NAMESPACES
    ]
    results: List[List[List[float]]] = []
    for hash_seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(REPO)}
        proc = subprocess.run(
            [sys.executable, "-c", _HASH_SCRIPT, json.dumps(NAMESPACES)],
            capture_output=True,
            text=True,
            cwd=str(REPO),
            env=env,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout))
    assert results[0] == results[1] == results[2] == local


# -- serialization: format ---------------------------------------------------------


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


# -- serialization: round trips -------------------------------------------------------


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
    # A comma (the step separator) in the problem, and zero moves and rules.
    _assert_round_trips(MathyEnvState.from_string("0@0@0@4x, 2@ns@0.0@4x, 2,-1,-1"))
    _assert_round_trips(
        MathyEnvState(problem="x + 1", max_moves=3, problem_type="")
    )
    state = MathyEnvState(problem="x", max_moves=3).get_out_state("x", (-1, 9), -4)
    _assert_round_trips(state)


# -- serialization: malformed input ------------------------------------------------------


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
