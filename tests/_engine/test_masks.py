"""The sweep behind every mask: which rules apply at which nodes, asking a core
rule only about the node types it can apply to."""

from typing import List, Tuple, Type
from unittest import mock

import numpy as np
import pytest
from mathy_core import (
    AddExpression,
    BaseRule,
    ConstantExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)
from mathy_core.rules import (
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    VariableMultiplyRule,
)

from mathy_envs import MathyEnv, MathyEnvState, envs
from mathy_envs._engine.masks import Sweep
from mathy_envs._engine.layout import NodeLayout
from mathy_envs._engine.rules import core_rules

from helpers import FixedEnv, assert_frozen_for_good, random_play_states
from oracles import every_can_apply_to, expected_mask, parse


@pytest.mark.slow
def test_the_sweep_equals_asking_every_rule_about_every_node() -> None:
    """On every state seeded random play reaches in every env and difficulty,
    for the default rules and with preferred-term commute, skipping by node type
    gives the same mask as asking every rule about every node."""
    rule_sets: List[List[BaseRule]] = [core_rules(), core_rules(preferred_term_commute=True)]
    sweeps = [Sweep(rules) for rules in rule_sets]
    # The same sweeps keep answers by subtree shape from state to state.
    shaped = [Sweep(rules) for rules in rule_sets]
    checked = 0
    seen_types = set()
    for env, state in random_play_states(per_env=120, seed=9) + subtraction_states():
        tree = parse(state.agent.problem)
        nodes = tree.to_list("inorder")
        layout = NodeLayout(tree)
        assert layout.shapes is not None, state.agent.problem
        seen_types.update(type(node) for node in nodes)
        for rules, sweep, by_shape in zip(rule_sets, sweeps, shaped):
            expected = every_can_apply_to(rules, tree)
            assert np.array_equal(sweep.mask(nodes), expected), state.agent.problem
            assert np.array_equal(by_shape.mask(nodes, layout), expected), (
                state.agent.problem
            )
        checked += 1
    assert checked >= 2500
    # The states hold every node type the envs' problems are made of.
    assert {
        AddExpression, SubtractExpression, MultiplyExpression, PowerExpression,
        NegateExpression, ConstantExpression, VariableExpression,
    } <= seen_types, seen_types


def test_a_subtree_rule_is_asked_once_per_subtree_shape() -> None:
    texts = ["x * x + 2y", "x * x + 3y", "x * x * y", "y * y + 2x"]
    # Variable multiply is asked about each product once, whichever expression
    # holds it.
    assert questions(VariableMultiplyRule, texts) == [
        "x * x", "2y", "3y", "x * x * y", "y * y", "2x"
    ]


def test_factor_out_is_asked_once_per_pair_of_neighbouring_terms() -> None:
    """A sum's factor-out answer is kept for the next sum whose neighbouring terms
    are equal up to their coefficients and the names of their variables, however
    the sums around them differ."""
    texts = [
        "4x + 2x + 3y", "7x + 2x + 3y", "5 + (7x + 2x) + 3y", "3y + (2x + 7x)",
        "3y + (2x + 4x)", "3y + (2x + (4x + x))", "3y + (2x + (4x + 2))",
        "3y + (2 + (4x + 2))",
    ]
    asked = factor_out_questions(texts)
    # Each sum is printed as mathy_core prints a node: in parentheses when it is
    # a right child.
    assert asked == [
        "4x + 2x", "4x + 2x + 3y",
        # 7x + 2x is 4x + 2x with other coefficients, and the root's neighbours
        # are 2x and 3y again.
        "5 + (7x + 2x)", "5 + (7x + 2x) + 3y",
        "3y + (2x + 7x)",  # (2x + 7x) is like 4x + 2x
        # 3y + (2x + 4x) is like 3y + (2x + 7x), and (2x + 4x) like 4x + 2x.
        "(2x + (4x + x))", "(4x + x)",
        "(4x + 2)",  # 2x's neighbour is still 4x
        "3y + (2 + (4x + 2))", "(2 + (4x + 2))",
    ]


def test_factor_out_answers_are_kept_without_coefficients_or_variable_names() -> None:
    texts = [
        "4x + 2x",
        "7y + 3y",  # like 4x + 2x: other coefficients, another variable
        "-3x + 12x",  # negative coefficients too
        "4x + 2y",
        "9z + 5w",  # like 4x + 2y: two different variables
        "0x + 2x",  # a zero coefficient is kept: mathy_core finds no factor
        "4x^2 + 3x^2",
        "5y^2 + 6y^2",  # like 4x^2 + 3x^2; exponents are kept
        "4x^2 + 3x^3",
        "4 + 2x",
        "5 + 2x",  # a constant term is kept
        "x + 2x",  # a variable without a coefficient is another term
    ]
    assert factor_out_questions(texts) == [
        "4x + 2x", "4x + 2y", "0x + 2x", "4x^2 + 3x^2", "4x^2 + 3x^3",
        "4 + 2x", "5 + 2x", "x + 2x",
    ]


def test_kept_factor_out_answers_are_mathy_cores_for_any_coefficients() -> None:
    """Sums of two terms, side by side or with a sum between them, over a grid of
    coefficients (negative, one, primes, composites, large, fractions), variables and
    exponents: one sweep keeping answers across all of them agrees with asking
    every rule every time."""
    coefficients = [
        "-12", "-7", "-1", "", "1", "2", "3", "6", "12", "97", "3600", "999999999",
        "0.5", "2.5",  # fractions have factors below 1
    ]
    terms = [c + v + e for c in coefficients for v in "xyX" for e in ["", "^2", "^3"]]
    terms += ["0x", "0y^2", "4", "-3", "12"]
    rng = np.random.default_rng(7)
    rules = core_rules()
    sweep = Sweep(rules)
    texts = []
    for _ in range(700):
        a, b, c = (terms[i] for i in rng.integers(len(terms), size=3))
        texts += [f"{a} + {b}", f"{a} + {c} + {b}", f"{a} + ({c} + {b})"]
    for text in texts:
        tree = parse(text)
        layout = NodeLayout(tree)
        expected = every_can_apply_to(rules, tree)
        assert np.array_equal(sweep.mask(layout.nodes, layout), expected), text


def test_constant_arithmetic_is_asked_once_per_sum_over_a_sum() -> None:
    """A binary node without a constant on its left (or a product of products)
    is told by its type and its left child's: every sum over a sum shares one
    answer, while nodes with a constant on the left are asked per subtree."""
    texts = ["4x + 2y + 3z", "5x + 7y + 3 + 2", "2 + 3 + x * 4 * 7"]
    assert questions(ConstantsSimplifyRule, texts) == [
        "4x", "4x + 2y", "2y", "4x + 2y + 3z", "3z",
        # Every sum here is a sum over a product or over a sum, as above.
        "5x", "7y",
        "2 + 3",  # a constant on the left: asked per subtree
        "x * 4",  # a product over a variable
        "x * 4 * 7",  # a product of products is asked per subtree
    ]


def subtraction_states() -> List[Tuple[MathyEnv, MathyEnvState]]:
    """States of seeded random play on problems with subtraction and negation,
    which the default generators don't write."""
    env = envs.PolySimplify(ops=["+", "-"])
    states = random_play_states(
        per_env=200, seed=5, make_envs=[lambda seed: envs.PolySimplify(ops=["+", "-"], seed=seed)]
    )
    for text in ["-x + 2 - -3y", "4x - (2 - y) * -x^2", "-(x + 2) - 7"]:
        states.append((env, env.state_from_text(text)))
    return states


def test_a_rule_outside_the_table_is_asked_about_every_node() -> None:
    asked: List[str] = []

    class Tracing(DistributiveFactorOutRule):
        def can_apply_to(self, node: MathExpression) -> bool:
            asked.append(type(node).__name__)
            return super().can_apply_to(node)

    tree = parse("4x + 2x + 7")
    nodes = tree.to_list("inorder")
    mask = Sweep([Tracing()]).mask(nodes)
    assert len(asked) == len(nodes)
    assert np.array_equal(mask, every_can_apply_to([DistributiveFactorOutRule()], tree))


def test_a_node_of_a_type_the_parser_never_builds_is_asked_about() -> None:
    class MyAdd(AddExpression):
        pass

    tree = parse("4x + 2x")
    assert isinstance(tree, AddExpression)
    node = MyAdd(tree.left, tree.right)
    rules = core_rules()
    mask = Sweep(rules).mask([node])
    # Every rule that accepts an AddExpression accepts the subclass, as mathy_core
    # checks types with isinstance.
    assert mask[[type(r) for r in rules].index(DistributiveFactorOutRule), 0] == 1
    assert mask[[type(r) for r in rules].index(CommutativeSwapRule), 0] == 1


def test_rule_types_zero_the_other_rows() -> None:
    tree = parse("4x + 2x")
    rules = core_rules()
    nodes = tree.to_list("inorder")
    mask = Sweep(rules, [DistributiveFactorOutRule]).mask(nodes)
    full = every_can_apply_to(rules, tree)
    factor = [type(r) for r in rules].index(DistributiveFactorOutRule)
    assert np.array_equal(mask[factor], full[factor]) and mask[factor].any()
    assert not np.delete(mask, factor, axis=0).any()


def test_env_masks_follow_a_change_of_the_env_rules() -> None:
    env = envs.PolySimplify()
    text = "4x + 2y"
    state = env.state_from_text(text)
    commute = [type(r) for r in env.rules].index(CommutativeSwapRule)
    before = env.valid_moves_array(state).copy()
    env.rules[commute] = CommutativeSwapRule(preferred=True)
    after = env.valid_moves_array(state)
    # Preferred-term commute also swaps `4x`, which the default one leaves alone.
    assert after[commute].sum() > before[commute].sum()
    assert np.array_equal(after, every_can_apply_to(env.rules, parse(text)))


@pytest.mark.parametrize("side", ["left", "right"])
def test_a_hand_built_sum_missing_a_child_gets_the_masks_answer_or_a_value_error(
    side: str,
) -> None:
    inner = AddExpression(VariableExpression("x"), ConstantExpression(2))
    tree = AddExpression(inner, None) if side == "right" else AddExpression(None, inner)
    layout = NodeLayout(tree)
    rules = core_rules()
    try:
        expected = every_can_apply_to(rules, tree)
    except ValueError:
        # mathy_core's rules refuse the sum; the sweep may only refuse it the same way.
        with pytest.raises(ValueError):
            Sweep(rules).mask(layout.nodes, layout)
    else:
        assert np.array_equal(Sweep(rules).mask(layout.nodes, layout), expected)


def factor_out_questions(texts: List[str]) -> List[str]:
    """The nodes distributive factor-out was asked about (`questions`)."""
    return questions(DistributiveFactorOutRule, texts)


def questions(rule_type: Type[BaseRule], texts: List[str]) -> List[str]:
    """Sweep `texts` in order through one sweep of the core rules that keeps its
    answers, checking every mask against asking every rule about every node; the
    nodes the rule of `rule_type` was asked about, as mathy_core prints them."""
    asked: List[str] = []
    ask = rule_type.can_apply_to

    def tracing(rule: BaseRule, node: MathExpression) -> bool:
        asked.append(str(node))
        return ask(rule, node)

    rules = core_rules()
    expected = [every_can_apply_to(rules, parse(text)) for text in texts]
    with mock.patch.object(rule_type, "can_apply_to", tracing):
        sweep = Sweep(rules)
        masks = []
        for text in texts:
            tree = parse(text)
            masks.append(sweep.mask(tree.to_list("inorder"), NodeLayout(tree)))
    for text, mask, want in zip(texts, masks, expected):
        assert np.array_equal(mask, want), text
    return asked


def test_a_sweep_of_no_nodes_is_an_empty_row_per_rule() -> None:
    mask = Sweep(core_rules()).mask([])
    assert mask.shape == (7, 0) and mask.dtype == np.int8


def test_sweep_masks_are_int8_arrays_the_caller_may_change() -> None:
    tree = parse("4x + 2x + 7")
    mask = Sweep(core_rules()).mask(tree.to_list("inorder"))
    assert mask.dtype == np.int8 and mask.flags.writeable
    mask[:] = 0
    assert not mask.any()


def test_a_str_subclass_problem_gets_its_own_mask() -> None:
    class Caseless(str):
        """Equal to any casing of itself, hashed as a str: unlike any str."""

        def __eq__(self, other: object) -> bool:
            return isinstance(other, str) and self.lower() == other.lower()

        __hash__ = str.__hash__

    env = envs.PolySimplify()
    for text in (Caseless("X + 2x"), "x + 2x", Caseless("X + 2x")):
        state = MathyEnvState(problem=text)
        assert np.array_equal(
            env.valid_moves_array(state), every_can_apply_to(env.rules, parse(str(text)))
        ), text


def test_a_sweep_mask_owns_its_memory() -> None:
    mask = Sweep(core_rules()).mask(parse("4x + 2x").to_list("inorder"))
    # Nothing but the array itself to keep (or to collect) per cached mask.
    assert mask.flags.owndata and mask.base is None


def test_a_core_rule_changed_after_use_is_asked_itself_on_every_core() -> None:
    # Factor out with constants=True factors `2 + 4`; the native core answers for
    # mathy_core's default rules only, so the changed rule is asked itself.
    env = envs.PolySimplify()
    env.get_valid_moves(env.state_from_text("4x + 2x", max_moves=5))
    env.rules[3].constants = True  # type: ignore[attr-defined]
    mask = np.asarray(env.get_valid_moves(env.state_from_text("2 + 4 + x", max_moves=5)))
    assert mask[3].any()
    fresh = envs.PolySimplify()
    assert not np.asarray(fresh.get_valid_moves(fresh.state_from_text("2 + 4 + x", max_moves=5)))[3].any()


def test_a_rule_setting_changed_in_place_is_followed_by_the_cached_masks() -> None:
    from mathy_envs.batch import StepBatch
    from mathy_envs.envs import PolySimplify

    texts = ["4x + 2y + 3x", "2y + 4x + 3x", "x * 4 + 2 * y", "7 + x + 3y^2 * 2"]
    env = PolySimplify()
    before = {text: env.valid_moves_array(env.state_from_text(text)).copy() for text in texts}
    batch = StepBatch(env, 2)
    batch.reset(seed=0)
    env.rules[1].preferred = True  # type: ignore[attr-defined]
    fresh = PolySimplify(preferred_term_commute=True)
    changed = 0
    for text in texts:
        state = env.state_from_text(text)
        now = env.valid_moves_array(state)
        np.testing.assert_array_equal(now, fresh.valid_moves_array(fresh.state_from_text(text)))
        assert env.move_results(state) == fresh.move_results(fresh.state_from_text(text))
        changed += int((now != before[text]).any())
    assert changed >= 2  # the setting matters on these texts
    # The batch follows the same setting: its masks are the env's.
    actions = [int(np.flatnonzero(env.flat_valid_moves(state))[0]) for state in batch.states]
    batch.step(np.array(actions))
    for row, state in zip(batch.masks, batch.states):
        offered = env.flat_moves(env.least_visited_moves_array(state))
        np.testing.assert_array_equal(row, offered)
    env.rules[1].preferred = False  # type: ignore[attr-defined]
    for text in texts:
        np.testing.assert_array_equal(env.valid_moves_array(env.state_from_text(text)), before[text])


# -- kept masks: read-only for good, copied only when they could still change -----------


def test_kept_mask_keeps_a_frozen_array_and_freezes_any_other() -> None:
    from mathy_envs._engine.masks import kept_mask

    frozen = np.frombuffer(bytes([0, 1, 1, 0, 0, 1]), dtype=np.int8).reshape(2, 3)
    assert kept_mask(frozen) is frozen
    writable = np.array([[0, 1, 1], [0, 0, 1]], dtype=np.int8)
    view = writable[:, :]
    view.flags.writeable = False  # read-only, over an array that is not
    for mask in (writable, view):
        kept = kept_mask(mask)
        assert kept is not mask and np.array_equal(kept, mask)
        with pytest.raises(ValueError):
            kept.flags.writeable = True
        writable[0, 0] = 1
        assert kept[0, 0] == 0
        writable[0, 0] = 0


def test_cached_masks_stay_read_only_for_good() -> None:
    env = envs.PolySimplify()
    for text in ("4x + 2x + 7", "x * (2 + y) - 3x"):
        mask = env.valid_moves_array(env.state_from_text(text))
        assert_frozen_for_good(mask)


# Expressions that are not safe (the core rules' results are checked move by
# move): powers of sums, constants past the safe range, negated sums, a
# subtraction of a sum, and float constants, whose checks the native core
# leaves to the Python path, beside moves it checks itself.
NOT_SAFE = [
    "x^(1 + 1) + 8x",
    "2c^(1 + 1) * c * 11v",
    "5z^(1 + 1) + 5z * 10",
    "40000x + 2x",
    "40000x * 3x",
    "-(x + 1) + 3x",
    "4x - (2x + 1)",
    "1.5x + 2x^(1 + 1)",
    "x^(2 + 1) * x^(1 + 1)",
    "2^(1 + 1) * 3x",
]


@pytest.mark.parametrize("preferred", [False, True])
@pytest.mark.parametrize("text", NOT_SAFE)
def test_masks_of_expressions_that_are_not_safe_are_the_oracles(
    text: str, preferred: bool
) -> None:
    env = FixedEnv(preferred_term_commute=preferred)
    state = env.state_from_text(text)
    assert not env._expressions.parse(text).safe
    assert env.get_valid_moves(state) == expected_mask(text, core_rules(preferred))
