"""The action space (`mathy_envs._env.actions`): sampling one valid action per row of
a batch of flat masks, `sample_valid_actions` (also exported by
`mathy_envs.gym`); the actions of hand-built expression trees
(`get_actions_for_node`); and the `ActionSpace` every env is: its rules, action
size, decoding of actions, masks, tokens and random actions."""

from typing import Any, Callable, List, Tuple, Type

import numpy as np
import pytest
from mathy_core import (
    AddExpression,
    BaseRule,
    ConstantExpression,
    EqualExpression,
    ExpressionParser,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    VariableExpression,
)
from mathy_core.rules import (
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
)

from mathy_envs import MathyEnv, envs
from mathy_envs._env.actions import NO_VALID_ACTION, sample_valid_actions
from mathy_envs.envs import PolySimplify
from mathy_envs.limits import MAX_DEPTH, MAX_NODES
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs

from helpers import CORE_RULE_TYPES, ENV_DIFFICULTY_CASES, FixedEnv, fresh_rules, time_limit
from oracles import expected_mask, inorder_nodes

MASKS = np.array(
    [
        [0, 1, 0, 1, 1, 0],
        [0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 1],
        [1, 1, 1, 1, 1, 1],
    ],
    np.int8,
)


def _frequencies(masks: Any, draws: int, seed: int = 0) -> np.ndarray:
    """How often each (row, action) was drawn, as a fraction of `draws`."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(np.shape(masks), np.int64)
    rows = np.arange(len(counts))
    for _ in range(draws):
        counts[rows, sample_valid_actions(masks, rng)] += 1
    return counts / draws


def test_one_valid_action_per_row_as_int64() -> None:
    rng = np.random.default_rng(1)
    for _ in range(200):
        actions = sample_valid_actions(MASKS, rng)
        assert actions.dtype == np.int64 and actions.shape == (len(MASKS),)
        for row, action in enumerate(actions):
            if MASKS[row].any():
                assert MASKS[row, action] == 1


def test_valid_actions_are_equally_likely() -> None:
    frequencies = _frequencies(MASKS, 6000)
    for row, mask in enumerate(MASKS):
        if not mask.any():
            continue
        expected = 1.0 / mask.sum()
        np.testing.assert_allclose(frequencies[row][mask == 1], expected, atol=0.03)
        assert not frequencies[row][mask == 0].any()


def test_probabilities_are_masks_whatever_their_values() -> None:
    """A row of probabilities offers the actions with a nonzero one, each as
    likely as the others (a probability mask of mathy's is uniform anyway)."""
    probabilities = np.array([[0.7, 0.0, 0.3, 0.0], [0.0, 0.5, 0.0, 0.5]], np.float32)
    frequencies = _frequencies(probabilities, 4000)
    np.testing.assert_allclose(frequencies[0], [0.5, 0, 0.5, 0], atol=0.03)
    np.testing.assert_allclose(frequencies[1], [0, 0.5, 0, 0.5], atol=0.03)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.float32, np.float64])
def test_every_mask_dtype_gives_the_same_actions(dtype: Any) -> None:
    expected = sample_valid_actions(MASKS, np.random.default_rng(5))
    actions = sample_valid_actions(MASKS.astype(dtype), np.random.default_rng(5))
    np.testing.assert_array_equal(actions, expected)
    # Nested lists too.
    listed = sample_valid_actions(MASKS.astype(dtype).tolist(), np.random.default_rng(5))
    np.testing.assert_array_equal(listed, expected)


def test_a_row_without_a_valid_action_gets_action_0() -> None:
    assert NO_VALID_ACTION == 0
    rng = np.random.default_rng(2)
    for _ in range(50):
        assert sample_valid_actions(MASKS, rng)[1] == NO_VALID_ACTION
    assert sample_valid_actions(np.zeros((3, 9)), rng).tolist() == [0, 0, 0]


def test_a_seeded_generator_gives_the_same_actions_with_one_draw_per_batch() -> None:
    first = sample_valid_actions(MASKS, np.random.default_rng(9))
    assert sample_valid_actions(MASKS, np.random.default_rng(9)).tolist() == first.tolist()
    rng, reference = np.random.default_rng(3), np.random.default_rng(3)
    sample_valid_actions(MASKS, rng)
    reference.random(len(MASKS))
    assert rng.random() == reference.random()


def test_an_empty_batch_gives_no_actions() -> None:
    actions = sample_valid_actions(np.zeros((0, 4)), np.random.default_rng(0))
    assert actions.dtype == np.int64 and actions.shape == (0,)


@pytest.mark.parametrize(
    "masks, message",
    [
        (np.ones(4), r"2-D array .*got shape \(4,\) \(for one mask, pass mask\[None\]\)"),
        (np.ones((2, 3, 4)), r"2-D array .*got shape \(2, 3, 4\)"),
        (np.ones((2, 0)), r"at least one action, got shape \(2, 0\)"),
        ([[1, 0], [1]], "masks must be a 2-D array"),
        ([["1", "0"]], "bools, ints or floats, got dtype <U1"),
        ([[1 + 0j]], "bools, ints or floats, got dtype complex128"),
        ([[0.5, float("nan")]], "must not hold NaN"),
        ([[0, 2]], r"in \[0, 1\], got values from 0 to 2"),
        ([[-1, 1]], r"in \[0, 1\], got values from -1 to 1"),
        ([[0.0, float("inf")]], r"in \[0, 1\]"),
    ],
    ids=["1-d", "3-d", "no-actions", "ragged", "strings", "complex", "nan", "above-1",
         "negative", "inf"],
)
def test_bad_masks_are_value_errors(masks: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sample_valid_actions(masks, np.random.default_rng(0))


@pytest.mark.parametrize("rng", [0, None, np.random.RandomState(0)])
def test_rng_must_be_a_generator(rng: Any) -> None:
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        sample_valid_actions(MASKS, rng)


# -- get_actions_for_node on hand-built trees ------------------------------------------


def _x() -> VariableExpression:
    return VariableExpression("x")


def _like_terms() -> AddExpression:
    """`4x + 2x`, built by hand."""
    return AddExpression(
        MultiplyExpression(ConstantExpression(4), _x()),
        MultiplyExpression(ConstantExpression(2), _x()),
    )


def _with_child(make: Callable[[AddExpression], None]) -> Callable[[], MathExpression]:
    """`x + 1` changed by `make` after it was built."""

    def build() -> MathExpression:
        tree = AddExpression(_x(), ConstantExpression(1))
        make(tree)
        return tree

    return build


def _set(tree: AddExpression, side: str, value: object) -> None:
    setattr(tree, side, value)


def _cycle_of_two() -> MathExpression:
    inner = AddExpression(_x(), ConstantExpression(1))
    outer = MultiplyExpression(inner, ConstantExpression(2))
    inner.right = outer  # outer -> inner -> outer
    return outer


def _shared_node() -> MathExpression:
    x = _x()
    tree = AddExpression(x, ConstantExpression(1))
    tree.right = x  # the same node on both sides
    return tree


def _stale_parent() -> MathExpression:
    x = _x()
    tree = AddExpression(x, ConstantExpression(1))
    MultiplyExpression(x, ConstantExpression(2))  # moves x's parent link away
    return tree


def _chain(count: int, wrap: Callable[[MathExpression], MathExpression]) -> MathExpression:
    tree: MathExpression = _x()
    for _ in range(count):
        tree = wrap(tree)
    return tree


class CustomNode(MathExpression):
    """A node of no kind mathy_core knows (neither leaf, unary nor binary)."""


class UnhashableName(str):
    """A variable name whose own code fails."""

    def __hash__(self) -> int:
        raise RuntimeError("this name can't be hashed")


class LoudAdd(AddExpression):
    """A user's subclass whose own code fails."""

    def __str__(self) -> str:
        raise RuntimeError("LoudAdd can't print")


ODD_TREES: List[Tuple[str, Callable[[], MathExpression], str]] = [
    ("binary without children", lambda: AddExpression(None, None), "missing both operands"),
    ("binary with one child", lambda: AddExpression(_x(), None), "missing its right operand"),
    ("power with one child", lambda: PowerExpression(_x()), "missing its right operand"),
    ("negation without child", lambda: NegateExpression(None), "no operand"),
    ("child of an int", _with_child(lambda t: _set(t, "right", 5)), "child of an AddExpression node that is an int"),
    ("child of a str", _with_child(lambda t: _set(t, "left", "x")), "that is a str, not a mathy_core"),
    ("constant holding a str", lambda: AddExpression(ConstantExpression("3"), _x()), "constant holding '3'"),  # type: ignore[arg-type]
    ("constant holding None", lambda: AddExpression(ConstantExpression(None), _x()), "constant holding None"),
    ("constant holding a bool", lambda: AddExpression(ConstantExpression(True), _x()), "constant holding True"),
    ("constant holding complex", lambda: AddExpression(ConstantExpression(1j), _x()), "not an int or float"),  # type: ignore[arg-type]
    ("huge int constant", lambda: AddExpression(ConstantExpression(10**400), _x()), "MAX_CONSTANT"),
    ("nan constant", lambda: AddExpression(ConstantExpression(float("nan")), _x()), "MAX_CONSTANT"),
    ("lone str constant", lambda: ConstantExpression("a"), "constant holding 'a'"),  # type: ignore[arg-type]
    ("variable named by an int", lambda: AddExpression(VariableExpression(5), _x()), "variable named 5"),  # type: ignore[arg-type]
    ("variable with an empty name", lambda: AddExpression(VariableExpression(""), _x()), "one ASCII letter"),
    ("variable with a digit name", lambda: AddExpression(VariableExpression("1"), _x()), "one ASCII letter"),
    ("variable with a long name", lambda: AddExpression(VariableExpression("xyz"), _x()), "one ASCII letter"),
    ("node that is its own child", _with_child(lambda t: _set(t, "left", t)), "node twice"),
    ("node that is its own parent", _with_child(lambda t: _set(t, "parent", t)), "does not hold it as a child"),
    ("cycle of two nodes", _cycle_of_two, "node twice"),
    ("node with two parents", _shared_node, "node twice"),
    ("stale parent link", _stale_parent, "whose parent is not the AddExpression node"),
    ("leaf with a child", lambda: ConstantExpression(2).set_left(_x()), "with children (it is a leaf)"),
    ("node of an unknown kind", lambda: AddExpression(CustomNode(), _x()), "CustomNode node, which is not"),
    ("bare MathExpression", lambda: MathExpression(), "abstract class MathExpression"),
    ("subclass whose code fails", lambda: LoudAdd(_x(), _x()), "RuntimeError: LoudAdd can't print"),
    ("name whose code fails", lambda: AddExpression(VariableExpression(UnhashableName("x")), _x()), "RuntimeError: this name"),
    ("too many nodes", lambda: _chain(MAX_NODES, lambda t: AddExpression(t, ConstantExpression(1))), f"MAX_NODES={MAX_NODES}"),
    ("too deep", lambda: _chain(MAX_DEPTH + 5, NegateExpression), f"MAX_DEPTH={MAX_DEPTH}"),
    ("equation in an env without them", lambda: EqualExpression(_x(), ConstantExpression(1)), "does not support equations"),
]


@pytest.mark.parametrize("name", [name for name, _, _ in ODD_TREES])
def test_odd_hand_built_trees_are_value_errors_saying_what_is_wrong(name: str) -> None:
    _, build, message = next(case for case in ODD_TREES if case[0] == name)
    env = envs.PolySimplify()
    with time_limit(10.0):  # cycles must not hang
        tree = build()
        with pytest.raises(ValueError) as info:
            env.get_actions_for_node(tree)
        with pytest.raises(ValueError):
            env.random_action(tree)
    assert message in str(info.value)
    assert len(str(info.value)) < 400 and "\n" not in str(info.value)


def test_well_formed_hand_built_trees_get_the_mask_of_their_text() -> None:
    env = envs.PolySimplify()
    for tree in (
        _like_terms(),
        NegateExpression(_x()),
        ConstantExpression(3),
        _x(),
        AddExpression(NegateExpression(_x()), PowerExpression(_x(), ConstantExpression(2))),
    ):
        state = env.state_from_text(str(tree))
        assert env.get_actions_for_node(tree) == env.get_valid_moves(state)
    # A subtree is judged on its own nodes: 2x (of 4x + 2x) has no valid move.
    subtree = _like_terms().right
    assert subtree is not None
    assert env.get_actions_for_node(subtree) == env.get_valid_moves(env.state_from_text("2x"))


@pytest.mark.parametrize(
    "rule_list, message",
    [
        (5, "rule_list must be a list of rule classes"),
        ("CommutativeSwapRule", "rule_list must be a list of rule classes"),
        ({CommutativeSwapRule}, "rule_list must be a list of rule classes"),
        ([1], "but it holds 1"),
        ([None], "but it holds None"),
        ([object], "but it holds <class 'object'>"),
        ([CommutativeSwapRule()], "pass the class, not an instance"),
    ],
    ids=["int", "str", "set", "list-of-int", "list-of-None", "object-class", "instance"],
)
def test_bad_rule_lists_are_value_errors(rule_list: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        envs.PolySimplify().get_actions_for_node(_like_terms(), rule_list)


def test_a_rule_list_keeps_the_rows_of_its_rule_types() -> None:
    env = envs.PolySimplify()
    full = np.asarray(env.get_actions_for_node(_like_terms()))
    factor = [i for i, rule in enumerate(env.rules) if isinstance(rule, DistributiveFactorOutRule)]
    for rule_list in ([DistributiveFactorOutRule], (DistributiveFactorOutRule,)):
        rows: np.ndarray = np.asarray(
            env.get_actions_for_node(_like_terms(), rule_list)  # type: ignore[arg-type]
        )
        assert rows[factor].tolist() == full[factor].tolist() and rows[factor].any()
        others = [i for i in range(len(env.rules)) if i not in factor]
        assert not rows[others].any()
    assert np.array_equal(env.get_actions_for_node(_like_terms(), [BaseRule]), full)
    assert not np.asarray(env.get_actions_for_node(_like_terms(), [])).any()


# -- the action space of an env (`ActionSpace`, which `MathyEnv` is) ------------------
# Rules, action size, decoding actions, masks, tokens and random actions, checked
# against masks written out with mathy_core alone (`oracles.expected_mask`).


MASK_TEXTS = [
    "x + y",
    "4x + 2x",
    "2 * 4x + y",
    "4x - 2y + 3",
    "(x + 2)(x + 3)",
    "x^2 * x^3 + 2 * 3",
    "(4x + 2y) + 7x",
    "12 * (x + 2) - 7",
    "4x * 2y * 7q",
    "2x^2 + 3x^2 - (5 + 6)",
]


def test_masks_follow_changes_to_the_rules() -> None:
    env = FixedEnv()
    text = "4x + 2y + 3 * 4"
    state = env.state_from_text(text)
    assert env.get_valid_moves(state) == expected_mask(text, fresh_rules(False))
    # replacing a rule in place (rules is a plain list)
    env.rules[1] = CommutativeSwapRule(preferred=True)
    assert env.get_valid_moves(state) == expected_mask(text, fresh_rules(True))
    swap_columns = [i for i, ok in enumerate(expected_mask(text, fresh_rules(True))[1]) if ok]
    assert len(swap_columns) > len(
        [i for i, ok in enumerate(expected_mask(text, fresh_rules(False))[1]) if ok]
    )
    # the newly valid actions are accepted by get_next_state
    for column in swap_columns:
        env.get_next_state(state, (1, column))
    # assigning a new list
    env.rules = [ConstantsSimplifyRule()]
    assert env.get_valid_moves(state) == expected_mask(text, [ConstantsSimplifyRule()])
    assert env.action_size == env.max_seq_len
    # appending to it
    env.rules.append(DistributiveFactorOutRule())
    assert env.get_valid_moves(state) == expected_mask(
        text, [ConstantsSimplifyRule(), DistributiveFactorOutRule()]
    )


@pytest.mark.parametrize("max_seq_len", [1, 16, 128, 256])
def test_action_size(max_seq_len: int) -> None:
    env = FixedEnv(max_seq_len=max_seq_len)
    assert env.action_size == len(env.rules) * max_seq_len == 7 * max_seq_len
    env3 = FixedEnv(rules=fresh_rules()[:3], max_seq_len=max_seq_len)
    assert env3.action_size == 3 * max_seq_len


@pytest.mark.parametrize("max_seq_len", [16, 128])
def test_to_action_decodes_ints(max_seq_len: int) -> None:
    env = FixedEnv(max_seq_len=max_seq_len)
    for action in [0, 1, max_seq_len - 1, max_seq_len, 3 * max_seq_len + 5]:
        expected = (action // max_seq_len, action % max_seq_len)
        assert env.to_action(action) == expected
        for numpy_type in (np.int64, np.int32, np.int16, np.uint32):
            decoded = env.to_action(numpy_type(action))
            assert decoded == expected
            assert all(type(part) is int for part in decoded)
    last = env.action_size - 1
    assert env.to_action(last) == (len(env.rules) - 1, max_seq_len - 1)


def test_to_action_passes_pairs_through() -> None:
    env = FixedEnv()
    assert tuple(env.to_action((3, 5))) == (3, 5)
    assert tuple(env.to_action([2, 7])) == (2, 7)
    assert tuple(env.to_action((np.int64(1), np.int64(4)))) == (1, 4)
    # A pair is never re-decoded, even with a node index beyond max_seq_len.
    assert tuple(env.to_action((0, 500))) == (0, 500)


@pytest.mark.parametrize(
    "action",
    [1.5, 2.0, "3", "ab", (1, 2, 3), [1], (), True, False, None, (1.0, 2), ("a", 1)],
    ids=repr,
)
def test_to_action_rejects_malformed(action: Any) -> None:
    env = FixedEnv()
    with pytest.raises(ValueError):
        env.to_action(action)


def test_returned_mask_is_a_fresh_list() -> None:
    env = FixedEnv()
    state = env.state_from_text("4x + 2x")
    mask = env.get_valid_moves(state)
    mask[1][3] = 0
    mask[0][0] = 1
    assert env.get_valid_moves(state) == expected_mask("4x + 2x")


@pytest.mark.parametrize("text", MASK_TEXTS)
def test_get_valid_moves_matches_rules(text: str) -> None:
    env = FixedEnv()
    state = env.state_from_text(text)
    expected = expected_mask(text)
    mask = env.get_valid_moves(state)
    assert mask == expected
    num_nodes = len(inorder_nodes(text))
    assert len(mask) == len(env.rules)
    assert all(len(row) == num_nodes for row in mask)
    assert all(value in (0, 1) and type(value) is int for row in mask for value in row)
    assert env.get_valid_rules(state) == [1 if any(row) else 0 for row in expected]
    assert env.get_agent_actions_count(state) == sum(map(sum, expected))


@pytest.mark.parametrize("text", MASK_TEXTS)
def test_get_actions_for_node_matches_rules(text: str) -> None:
    env = FixedEnv()
    tree = ExpressionParser().parse(text)
    assert env.get_actions_for_node(tree) == expected_mask(text)


@pytest.mark.parametrize("text", MASK_TEXTS)
def test_get_actions_for_node_rule_list(text: str) -> None:
    env = FixedEnv()
    tree = ExpressionParser().parse(text)
    expected = expected_mask(text)
    num_nodes = len(inorder_nodes(text))
    allowed_lists: List[List[Type[BaseRule]]] = [
        [CommutativeSwapRule],
        [DistributiveFactorOutRule, ConstantsSimplifyRule],
        [],
    ]
    for allowed in allowed_lists:
        mask = env.get_actions_for_node(tree, allowed)
        assert len(mask) == len(CORE_RULE_TYPES)
        for index, rule_type in enumerate(CORE_RULE_TYPES):
            if rule_type in allowed:
                assert mask[index] == expected[index]
            else:
                assert mask[index] == [0] * num_nodes


def test_masks_of_generated_problems_match_rules() -> None:
    env = PolySimplify(seed=3)
    for difficulty in MathyEnvDifficulty:
        for _ in range(10):
            state, problem = env.get_initial_state(
                MathyEnvProblemArgs(difficulty=difficulty)
            )
            expected = expected_mask(problem.text)
            assert env.get_valid_moves(state) == expected
            assert env.get_agent_actions_count(state) == sum(map(sum, expected))
            # and after a step
            tree = ExpressionParser().parse(problem.text)
            out, _, _ = env.get_next_state(state, env.random_action(tree))
            assert env.get_valid_moves(out) == expected_mask(out.agent.problem)


def test_get_valid_rules() -> None:
    env = FixedEnv()
    state = env.state_from_text("4x + 2x")
    rules = env.get_valid_rules(state)
    expected = expected_mask("4x + 2x")
    assert rules == [1 if any(row) else 0 for row in expected]
    assert len(rules) == len(env.rules)
    assert set(rules) == {0, 1}
    assert rules[CORE_RULE_TYPES.index(DistributiveFactorOutRule)] == 1
    assert rules[CORE_RULE_TYPES.index(ConstantsSimplifyRule)] == 0


@pytest.mark.parametrize("text", MASK_TEXTS)
def test_get_token_at_index(text: str) -> None:
    tree = ExpressionParser().parse(text)
    nodes = tree.to_list("inorder")
    for index, node in enumerate(nodes):
        assert MathyEnv.get_token_at_index(tree, index) is node
        assert FixedEnv().get_token_at_index(tree, index) is node
    for index in (len(nodes), len(nodes) + 1, 1000, -1, -len(nodes)):
        assert MathyEnv.get_token_at_index(tree, index) is None


def test_random_action_is_valid() -> None:
    env = FixedEnv(seed=5)
    for text in MASK_TEXTS:
        tree = ExpressionParser().parse(text)
        expected = expected_mask(text)
        valid = {(r, n) for r, row in enumerate(expected) for n, ok in enumerate(row) if ok}
        seen = set()
        for _ in range(40):
            action = env.random_action(tree)
            assert tuple(action) in valid
            seen.add(tuple(action))
        if len(valid) > 1:
            assert len(seen) > 1


def test_random_action_respects_rule() -> None:
    env = FixedEnv(seed=1)
    text = "4x + 2x + (3 * 4)"
    tree = ExpressionParser().parse(text)
    expected = expected_mask(text)
    for rule_type in (CommutativeSwapRule, ConstantsSimplifyRule, DistributiveFactorOutRule):
        index = CORE_RULE_TYPES.index(rule_type)
        assert any(expected[index])
        for _ in range(20):
            rule, node = env.random_action(tree, rule_type)
            assert rule == index
            assert expected[index][node] == 1


def test_random_action_raises_when_there_is_none() -> None:
    env = FixedEnv()
    with pytest.raises(ValueError):
        env.random_action(ExpressionParser().parse("4x + 2y"), ConstantsSimplifyRule)
    with pytest.raises(ValueError):
        env.random_action(ExpressionParser().parse("x"))
    restricted = FixedEnv(rules=[ConstantsSimplifyRule()])
    with pytest.raises(ValueError):
        restricted.random_action(ExpressionParser().parse("4x + 2x"))


def test_random_action_is_seeded() -> None:
    tree = ExpressionParser().parse("4x + 2x + 3y + (2 * 3) + y")
    a, b = FixedEnv(seed=9), FixedEnv(seed=9)
    first = [a.random_action(tree) for _ in range(20)]
    assert first == [b.random_action(tree) for _ in range(20)]
    assert len(set(first)) > 1


def test_flat_valid_moves_is_the_mask_padded_to_action_size() -> None:
    from mathy_envs.envs import PolySimplify

    env = PolySimplify(max_seq_len=16)
    state = env.state_from_text("4x + 2y + 2x")
    moves = env.valid_moves_array(state)
    flat = env.flat_valid_moves(state)
    assert flat.dtype == np.int8 and flat.shape == (env.action_size,)
    grid = flat.reshape(len(env.rules), 16)
    assert (grid[:, : moves.shape[1]] == moves).all() and not grid[:, moves.shape[1] :].any()
    flat[:] = 1  # a new array: the cached mask is untouched
    assert (env.valid_moves_array(state) == moves).all()


# -- the results of moves, and the moves offered against revisits --------------------


@pytest.mark.parametrize("task,difficulty", ENV_DIFFICULTY_CASES)
def test_move_results_are_what_get_next_state_makes(
    task: str, difficulty: MathyEnvDifficulty
) -> None:
    env = envs.ENV_TASKS[task](seed=3)
    state, _ = env.fitting_initial_state(MathyEnvProblemArgs(difficulty))
    results = env.move_results(state)
    assert set(results) == {tuple(map(int, move)) for move in np.argwhere(env.valid_moves_array(state))}
    for move, text in results.items():
        after, _, _ = env.get_next_state(state, move)
        assert after.agent.problem == text, (state.agent.problem, move)
    results.clear()  # a new dict each time
    assert env.move_results(state)


def _visits(env: MathyEnv, state: Any) -> dict:
    """Each text's visits: the first text (the problem as generated, maybe with
    parentheses a move would not print) as the env prints it, the others (texts
    moves gave) as they are."""
    first = state.agent.history[0][0]
    counted: dict = {}
    for step in state.agent.history:
        text = env.printed_text(first) if step[0] == first else step[0]
        counted[text] = counted.get(text, 0) + 1
    return counted


@pytest.mark.parametrize("task,difficulty", ENV_DIFFICULTY_CASES)
def test_least_visited_moves_are_the_moves_to_the_least_visited_results(
    task: str, difficulty: MathyEnvDifficulty
) -> None:
    """Random play, including moves that are valid but not offered: at every step
    the offered moves are the valid moves whose result (made by
    `get_next_state`) the history holds least often."""
    env = envs.ENV_TASKS[task](seed=5, invalid_action_response="penalize")
    rng = np.random.default_rng(5)
    state, _ = env.fitting_initial_state(MathyEnvProblemArgs(difficulty))
    left_out = 0
    for _ in range(25):
        valid = env.valid_moves_array(state)
        offered = env.least_visited_moves_array(state)
        assert not offered.flags.writeable and offered.shape == valid.shape
        moves = [tuple(map(int, move)) for move in np.argwhere(valid)]
        if not moves:
            break
        visits = _visits(env, state)
        seen = {
            move: visits.get(env.get_next_state(state, move)[0].agent.problem, 0)
            for move in moves
        }
        least = min(seen.values())
        for move, count in seen.items():
            assert offered[move] == (count == least), (state.agent.problem, move)
        left_out += sum(count > least for count in seen.values())
        # Any valid move, offered or not (moves back too).
        move = moves[int(rng.integers(len(moves)))]
        state, time_step, _ = env.get_next_state(state, move)
        if is_terminal_transition(time_step) or state.agent.moves_remaining <= 0:
            state, _ = env.fitting_initial_state(MathyEnvProblemArgs(difficulty))
    assert left_out > 0


def test_when_every_move_returns_the_least_visited_results_are_offered() -> None:
    env = PolySimplify()
    start = env.state_from_text("x + y")
    swap = (1, 1)  # commutative swap at the +
    assert env.move_results(start) == {swap: "y + x"}
    back, _, _ = env.get_next_state(start, swap)
    # Every move of "y + x" returns to "x + y": all stay offered.
    assert env.move_results(back) == {swap: "x + y"}
    assert (env.least_visited_moves_array(back) == env.valid_moves_array(back)).all()
    # In "4x + 2y + 3x", after one swap the swap back is left out.
    state = env.state_from_text("4x + 2y + 3x")
    after, _, _ = env.get_next_state(state, (1, 3))
    assert env.move_results(after)[(1, 3)] == "4x + 2y + 3x"
    offered = env.least_visited_moves_array(after)
    assert env.valid_moves_array(after)[1, 3] == 1 and offered[1, 3] == 0
    assert offered.sum() == env.valid_moves_array(after).sum() - 1


@pytest.mark.parametrize("action", [(True, 1), (1, False), (np.bool_(True), 2), (1.0, 1)], ids=repr)
def test_to_action_rejects_pairs_of_bools_and_floats(action: Any) -> None:
    with pytest.raises(ValueError):
        FixedEnv().to_action(action)


def test_to_action_gives_plain_ints_for_any_pair_of_ints() -> None:
    import enum

    class Index(enum.IntEnum):
        TWO = 2

    env = FixedEnv()
    for action in [(3, 5), (Index.TWO, 4), (np.int32(1), 6), [Index.TWO, np.int64(3)]]:
        decoded = env.to_action(action)
        assert decoded == (int(action[0]), int(action[1]))
        assert [type(each) for each in decoded] == [int, int]
