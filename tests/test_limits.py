"""The supported range of texts: each limit accepts its boundary, refuses past it
with a ValueError that names the limit, and quotes at most ~200 characters."""

from typing import Callable, List

import numpy as np
import pytest

from mathy_envs import MathyEnvState, envs
from mathy_envs.limits import (
    MAX_CONSTANT,
    MAX_CONSTANT_DIGITS,
    MAX_DEPTH,
    MAX_NESTING,
    MAX_NODES,
    MAX_RULES,
    MAX_TEXT_LENGTH,
    check_size,
    quote,
    type_name,
)
from mathy_envs.state import ObservationType

from helpers import assert_observation_in_range

MESSAGE_LIMIT = 600
"""Longest message allowed: ~200 quoted characters plus the explanation."""


def sum_of(count: int, term: Callable[[int], str] = lambda i: f"{i % 9 + 2}x") -> str:
    return " + ".join(term(i) for i in range(count))


def nested(levels: int) -> str:
    return "(" * levels + "x + 1" + ")" * levels


ENV = envs.PolySimplify(max_seq_len=MAX_NODES)
"""An env whose observations hold the largest supported expressions."""


def refused(text: str, limit_name: str) -> str:
    with pytest.raises(ValueError) as info:
        ENV.state_from_text(text)
    message = str(info.value)
    assert limit_name in message
    assert len(message) < MESSAGE_LIMIT
    return message


def test_constants_up_to_max_constant_are_accepted() -> None:
    ENV.state_from_text(f"{MAX_CONSTANT}x + {-MAX_CONSTANT}")
    ENV.state_from_text(f"{MAX_CONSTANT}.0 + 0.000000001x")


@pytest.mark.parametrize(
    "text",
    [
        f"{MAX_CONSTANT + 1}x + 2x",
        "10000000000000000000x + 2x",
        f"{MAX_CONSTANT}.5 + x",
        "340000000000000000000000000000000000000 + x",
    ],
)
def test_constants_past_max_constant_are_refused(text: str) -> None:
    refused(text, f"MAX_CONSTANT={MAX_CONSTANT}")


@pytest.mark.parametrize(
    "text", ["18446744073709551617x + x", "1" * 301 + ".5 + x", "1" * 309 + " + x"]
)
def test_constants_with_too_many_digits_are_refused(text: str) -> None:
    refused(text, f"MAX_CONSTANT_DIGITS={MAX_CONSTANT_DIGITS}")


def test_digit_limit_counts_significant_digits() -> None:
    ENV.state_from_text("0." + "0" * 12 + "1 + x")  # 1e-13: one significant digit
    ENV.state_from_text("0." + "1" * MAX_CONSTANT_DIGITS + "x")
    refused("0." + "1" * (MAX_CONSTANT_DIGITS + 1) + "x", "MAX_CONSTANT_DIGITS")


def test_text_length_limit() -> None:
    text = "x" + " " * (MAX_TEXT_LENGTH - 2) + "y"
    assert len(text) == MAX_TEXT_LENGTH
    ENV.state_from_text(text)
    message = refused(text + " ", f"MAX_TEXT_LENGTH={MAX_TEXT_LENGTH}")
    assert "characters" in message


def test_nesting_limit() -> None:
    ENV.state_from_text(nested(MAX_NESTING - 1))
    refused(nested(MAX_NESTING + 1), f"MAX_NESTING={MAX_NESTING}")
    refused(nested(300), f"MAX_NESTING={MAX_NESTING}")


def test_depth_limit() -> None:
    # Within MAX_NODES and MAX_NESTING no text parses deeper than MAX_DEPTH (a
    # binary tree of 256 nodes is at most 128 levels deep, and unary nodes need
    # parentheses): the check guards trees built otherwise.
    check_size(MAX_NODES, MAX_DEPTH, "x")
    with pytest.raises(ValueError, match=f"MAX_DEPTH={MAX_DEPTH}"):
        check_size(MAX_NODES, MAX_DEPTH + 1, "x")
    deepest = " * ".join(["x"] * (MAX_NODES // 2))
    ENV.state_from_text(deepest)


def test_node_limit() -> None:
    within = sum_of(MAX_NODES // 4, lambda i: "x * y")
    ENV.state_from_text(within)  # 64 products: 255 nodes
    refused(sum_of(MAX_NODES // 4 + 1, lambda i: "x * y"), f"MAX_NODES={MAX_NODES}")
    refused(sum_of(400, lambda i: "x"), f"MAX_NODES={MAX_NODES}")


def test_long_texts_are_quoted_briefly_everywhere() -> None:
    text = sum_of(10_000)
    env = envs.PolySimplify()
    calls: List[Callable[[], object]] = [
        lambda: ENV.state_from_text(text),
        lambda: MathyEnvState.from_string(f"10@7@10@{text}@ns@0.0@{text},-1,-1").to_observation(),
        lambda: env.get_valid_moves(env.state_from_text("x").get_out_state(text, (0, 0), 9)),
    ]
    for call in calls:
        with pytest.raises(ValueError) as info:
            call()
        assert len(str(info.value)) < MESSAGE_LIMIT


def test_quote_shortens_long_and_odd_input() -> None:
    assert quote("4x + 2") == "'4x + 2'"
    long = quote("x" * 1000)
    assert long.startswith("'" + "x" * 200 + "'") and "1000 characters" in long
    assert len(quote(list(range(1000)))) < 250


@pytest.mark.parametrize("bad", [["x"], bytearray(b"x + 1"), 5, 2.5, b"x"])
def test_text_of_the_wrong_type_is_a_value_error(bad: object) -> None:
    env = envs.PolySimplify()
    for call in (
        lambda: MathyEnvState(problem=bad),  # type: ignore[arg-type]
        lambda: env.parse(bad),  # type: ignore[arg-type]
        lambda: env.node_count(bad),  # type: ignore[arg-type]
        lambda: MathyEnvState.from_string(bad),  # type: ignore[arg-type]
    ):
        with pytest.raises(ValueError, match="must be a str"):
            call()


def test_rule_count_is_bounded() -> None:
    with pytest.raises(ValueError, match=f"MAX_RULES={MAX_RULES}"):
        MathyEnvState.from_string("10@1000000000@10@x@ns@0.0@x,-1,-1")
    with pytest.raises(ValueError, match=f"MAX_RULES={MAX_RULES}"):
        MathyEnvState(problem="x", num_rules=MAX_RULES + 1)
    MathyEnvState.from_string(f"10@{MAX_RULES}@10@x@ns@0.0@x,-1,-1").to_observation()


def test_max_seq_len_is_bounded() -> None:
    with pytest.raises(ValueError, match=f"MAX_NODES={MAX_NODES}"):
        envs.PolySimplify(max_seq_len=MAX_NODES + 1)
    with pytest.raises(ValueError, match=f"MAX_NODES={MAX_NODES}"):
        ENV.state_from_text("x").to_observation(max_seq_len=10**9)
    with pytest.raises(ValueError, match="max_seq_len must be an int"):
        ENV.state_from_text("x").to_observation(max_seq_len=2.5)  # type: ignore[arg-type]
    envs.PolySimplify(max_seq_len=MAX_NODES)


@pytest.mark.parametrize(
    "text",
    [
        f"{MAX_CONSTANT}x + 0.000000001",
        f"-{MAX_CONSTANT} + {MAX_CONSTANT}x^{MAX_CONSTANT}",
        "0.000000000000001x + 3",
        "99999^99999 + x",
    ],
)
@pytest.mark.parametrize("obs_type", list(ObservationType))
def test_observations_of_extreme_constants_are_finite_and_normalized(
    text: str, obs_type: ObservationType, poly: envs.PolySimplify
) -> None:
    state = poly.state_from_text(text)
    observation = state.to_observation(
        poly.get_valid_moves(state), obs_type=obs_type, max_seq_len=poly.max_seq_len
    )
    assert_observation_in_range(observation)
    raw = state.to_observation(normalize=False, obs_type=obs_type)
    features = raw if isinstance(raw, np.ndarray) else raw.node_features
    assert np.isfinite(features).all()


@pytest.mark.parametrize("max_moves", [0, -3, 2.5, None, True, "20"])
def test_a_move_budget_below_one_or_not_an_int_is_refused(max_moves: object) -> None:
    with pytest.raises(ValueError, match="max_moves must be"):
        envs.PolySimplify(max_moves=max_moves)  # type: ignore[arg-type]
    from mathy_envs.gym import MathyGymEnv

    with pytest.raises(ValueError, match="env_max_moves must be"):
        MathyGymEnv(envs.PolySimplify, env_problem="4x + 2x", env_max_moves=max_moves)
    assert envs.PolySimplify(max_moves=1).max_moves == 1


class _RaisingRepr:
    def __repr__(self) -> str:
        raise RuntimeError("repr fails")


class _EndlessRepr:
    def __repr__(self) -> str:
        return repr(self)  # recurses until RecursionError


class _LoudStr(str):
    def __repr__(self) -> str:
        raise RuntimeError("repr fails")


class _LoudInt(int):
    def __repr__(self) -> str:
        raise RuntimeError("repr fails")


class _NamedByProperty(type):
    @property
    def __name__(self) -> str:  # type: ignore[override]
        raise RuntimeError("no name")


class _Anonymous(metaclass=_NamedByProperty):
    def __repr__(self) -> str:
        raise RuntimeError("repr fails")


def test_quote_never_depends_on_a_repr_that_works() -> None:
    assert quote(_RaisingRepr()) == "<_RaisingRepr object>"
    assert quote(_EndlessRepr()) == "<_EndlessRepr object>"
    assert quote(_LoudStr("4x")) == "'4x'"
    assert quote(_LoudInt(3)) == "<_LoudInt object>"
    assert quote([_RaisingRepr(), 1, "a"]) == "[<_RaisingRepr object>, 1, 'a']"
    assert quote({"k": _EndlessRepr()}) == "{'k': <_EndlessRepr object>}"
    assert quote(_Anonymous()) == "<_Anonymous object>"  # the metaclass never runs
    assert quote(np.array([_RaisingRepr()], dtype=object)) == "<ndarray object>"


def test_quote_is_short_and_quick_for_huge_and_odd_values() -> None:
    import time

    huge = list(range(10**6))
    mapping = {i: i for i in range(10**5)}
    start = time.perf_counter()
    for value in (huge, mapping, set(huge), 10**5000, [[[[[1]]]]]):
        shown = quote(value)
        assert len(shown) < 250 and "\n" not in shown, shown
    assert time.perf_counter() - start < 0.5
    assert quote(10**5000) == "<int of 16610 bits>"
    assert quote({"b": 1, "a": 2}) == "{'b': 1, 'a': 2}"  # in the dict's own order
    assert quote(np.eye(2)) == "array([[1., 0.], [0., 1.]])"  # on one line
    long_name = type("N" * 500, (), {})
    assert type_name(long_name()) == "N" * 60 + "..."


HUGE_CONSTANT = "1" + "0" * 310 + " + x"
"""A constant past the float range, with one significant digit."""


def _gym_reset(text: str) -> None:
    gymnasium = pytest.importorskip("gymnasium")
    import mathy_envs.gym  # noqa: F401  (registers the ids)

    env = gymnasium.make("mathy-poly-easy-v0", env_problem=text)
    try:
        env.reset(seed=0)
    finally:
        env.close()


@pytest.mark.parametrize(
    "entry",
    [
        lambda text: MathyEnvState(problem=text).to_observation(),
        lambda text: envs.PolySimplify().state_from_text(text),
        lambda text: __import__("mathy_envs.swarm", fromlist=["swarm_solve"]).swarm_solve(text),
        lambda text: MathyEnvState.from_string(
            MathyEnvState(problem="x").to_string().replace("@x@", f"@{text}@", 1)
        ),
        _gym_reset,
    ],
    ids=["state", "env", "swarm", "from_string", "gym"],
)
def test_a_constant_past_the_float_range_is_a_value_error_everywhere(
    entry: Callable[[str], object],
) -> None:
    with pytest.raises(ValueError, match="MAX_CONSTANT"):
        entry(HUGE_CONSTANT)


def test_the_module_docs_name_the_checks_that_exist() -> None:
    """The admission the module docstring points to is the engine's `admit`
    (after `check_text`), not a function that no longer exists."""
    import importlib
    import re

    import mathy_envs.limits as limits

    doc = limits.__doc__ or ""
    assert "admit_tree" not in doc
    for dotted in re.findall(r"`(mathy_envs\.[\w.]+)`", doc):
        module, _, name = dotted.rpartition(".")
        assert hasattr(importlib.import_module(module), name), dotted
    assert "`check_text`" in doc and callable(limits.check_text)
