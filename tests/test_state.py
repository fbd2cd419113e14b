"""MathyEnvState: values and problem hash; serialization is
tested in test_serialization.py."""

import json
from typing import List

import numpy as np
import pytest

from mathy_envs import MathyEnvState, envs
from mathy_envs.state import MathyAgentState, MathyEnvStateStep

from helpers import play, run_python, snapshot

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
        proc = run_python("-c", _HASH_SCRIPT, json.dumps(NAMESPACES), hash_seed=hash_seed)
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout))
    assert results[0] == results[1] == results[2] == local


def test_state_serialization_has_one_implementation() -> None:
    """`mathy_envs.state` has no `state_from_text` of its own (the one public
    `state_from_text` is `MathyEnv`'s): its methods and `mathy_envs.serialization`
    call `mathy_envs._env.state_text`."""
    import mathy_envs.serialization as serialization
    import mathy_envs.state as state_module
    from mathy_envs._env import state_text

    assert not hasattr(state_module, "state_from_text")
    assert not hasattr(serialization, "state_from_text")
    state = state_module.MathyEnvState(problem="4x + 2x", max_moves=5, num_rules=7)
    text = state_text.serialize_state(state)
    assert state.to_string() == serialization.to_string(state) == text
    assert state_module.MathyEnvState.from_string(text) == serialization.from_string(text) == state
