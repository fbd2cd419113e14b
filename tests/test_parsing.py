"""The per-thread cache of parsed texts: what it hands over and what it keeps."""

import copy
import pickle
import threading
from typing import List

import numpy as np
import pytest
from mathy_core import ExpressionParser, MathExpression, UnaryExpression
from mathy_core.rules import CommutativeSwapRule

from mathy_envs.parsing import (
    ExpressionCache,
    NodeLayout,
    ParsedExpression,
    apply_rule,
    copy_tree,
    expression_cache,
    new_parser,
    parser_lock,
)
from mathy_envs.envs import PolySimplify
from mathy_envs.rules import core_rules

from oracles import parse


def test_a_text_is_parsed_once_and_the_same_entry_returned() -> None:
    cache = ExpressionCache()
    first = cache.parse("4x + 2y")
    assert cache.parse("4x + 2y") is first
    cache.parse("7 + x")
    assert cache.parse("4x + 2y") is first
    assert str(first.tree) == "4x + 2y"


def test_a_taken_tree_is_never_returned_again_even_just_after_parsing_it() -> None:
    cache = ExpressionCache()
    text = "4x + 2y + 2x"
    entry = cache.parse(text)
    node = cache.take_node(text, 1)
    assert node is entry.nodes[1]
    # The caller owns the tree now: changing it must not reach the cache.
    CommutativeSwapRule().apply_to(node.get_root())
    changed = str(node.get_root())
    assert changed != text
    again = cache.parse(text)
    assert again is not entry
    assert str(again.tree) == text and str(parse(text)) == text
    # The same for a whole tree.
    tree = cache.take_tree(text)
    assert tree is again.tree
    assert cache.parse(text) is not again


def test_a_shared_entry_hands_out_copies() -> None:
    cache = ExpressionCache()
    entry = cache.parse("4x + 2y")
    entry.shared = True
    tree = cache.take_tree("4x + 2y")
    node = cache.take_node("4x + 2y", 0)
    assert tree is not entry.tree and node.get_root() is not entry.tree
    assert cache.parse("4x + 2y") is entry


def test_clear_forgets_every_entry() -> None:
    cache = ExpressionCache()
    entry = cache.parse("4x + 2y")
    cache.clear()
    assert len(cache) == 0
    assert cache.parse("4x + 2y") is not entry


@pytest.mark.parametrize("bad", [None, 3, b"4x", ["4x"]])
def test_a_cache_rejects_what_is_not_text_after_a_hit_too(bad: object) -> None:
    cache = ExpressionCache()
    cache.parse("4x")
    with pytest.raises(ValueError, match="must be a str"):
        cache.parse(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be a str"):
        cache.take_node(bad, 0)  # type: ignore[arg-type]


def test_no_node_at_an_index_past_the_end() -> None:
    cache = ExpressionCache()
    cache.parse("4x")
    with pytest.raises(ValueError, match="no node 9"):
        cache.take_node("4x", 9)


def test_each_thread_has_its_own_default_cache_and_a_given_parser_its_own() -> None:
    mine = expression_cache()
    assert expression_cache(None) is mine
    parser = ExpressionParser()
    theirs = expression_cache(parser)
    assert theirs is not mine and theirs.parser is parser
    assert expression_cache(parser) is theirs
    seen: List[ExpressionCache] = []
    thread = threading.Thread(target=lambda: seen.append(expression_cache()))
    thread.start()
    thread.join()
    assert seen and seen[0] is not mine


@pytest.mark.parametrize(
    "text",
    [
        "4x + 2y^2 - 7 * x", "x", "(2 + 3) * x^2 + -y", "12.5x - 0.1 + 3y", "7 + 7",
        "0.1x + 0.001 - 3400000", "-0.0 + 2x",
        "16777217x + 3 - 16777216y", "-16777217 + 2x", "5 + 5",
    ],
)
def test_layout_arrays_agree_with_the_tree(text: str) -> None:
    tree = new_parser().parse(text)
    layout = NodeLayout(tree)
    inorder = tree.to_list("inorder")
    preorder = tree.to_list("preorder")
    assert layout.nodes == tuple(inorder)
    assert [inorder[i] for i in layout.preorder] == preorder
    assert layout.type_ids.tolist() == [float(n.type_id) for n in inorder]
    values = [float(getattr(n, "value", 0.0) or 0.0) for n in inorder]
    assert np.array_equal(layout.values, np.asarray(values, np.float32))
    assert layout.is_leaf.tolist() == [
        float(n.left is None and n.right is None) for n in inorder
    ]
    types, values_pre = layout.preorder_lists()
    assert types == [n.type_id for n in preorder]
    assert values_pre == np.asarray(values, np.float32)[layout.preorder].tolist()
    assert layout.max_depth == max(_depth(n) for n in inorder)
    expected = np.asarray(values, np.float32)
    low = np.min(expected)
    span = np.max(expected) - low
    scaled = (expected - low) / span if span > 0 else np.zeros_like(expected)
    assert layout.normalized_values.dtype == np.float32
    assert np.array_equal(layout.normalized_values, scaled)
    for normalize in (False, True):
        types_pre, values_pre_array = NodeLayout(tree).preordered(normalize)
        types_in = layout.normalized_type_ids if normalize else layout.type_ids
        values_in = layout.normalized_values if normalize else layout.values
        assert types_pre.dtype == values_pre_array.dtype == np.float32
        assert np.array_equal(types_pre, types_in[layout.preorder])
        assert np.array_equal(values_pre_array, values_in[layout.preorder])


def _depth(node: object) -> int:
    depth = 0
    while getattr(node, "parent", None) is not None:
        node = node.parent  # type: ignore[attr-defined]
        depth += 1
    return depth


def test_a_cache_given_another_parser_parses_under_that_parsers_lock() -> None:
    cache = ExpressionCache()
    parser = new_parser()
    cache.parser = parser
    assert cache.parser is parser
    done: List[str] = []
    with parser_lock(parser):
        # While another holder has the parser, the cache must wait for it.
        thread = threading.Thread(target=lambda: done.append(str(cache.parse("4x + y").tree)))
        thread.start()
        thread.join(0.3)
        assert thread.is_alive() and not done
    thread.join()
    assert done == ["4x + y"]


def test_a_cache_pickles_and_copies_empty_with_its_parser_settings() -> None:
    cache = ExpressionCache(capacity=7)
    cache.parse("4x + y")
    for copied in (pickle.loads(pickle.dumps(cache)), copy.deepcopy(cache)):
        assert len(copied) == 0 and copied._entries.capacity == 7
        assert str(copied.parse("4x + y").tree) == "4x + y"
        assert copied.take_tree("2 + x") is not None


def test_caches_sharing_entries_never_return_a_tree_another_took() -> None:
    first = ExpressionCache()
    first.parse("2x + 3x")
    second = copy.copy(first)  # shares the entries, not the last-returned one
    tree = second.take_tree("2x + 3x")
    tree.left = tree.right = None
    assert str(first.parse("2x + 3x").tree) == "2x + 3x"


# -- what a layout and a copied tree let their users do ------------------------------

LAYOUT_ARRAYS = [
    "preorder", "type_ids", "values", "is_leaf", "depth", "parent", "side",
    "levelorder", "edge_index", "edge_types", "normalized_type_ids", "normalized_values",
]


@pytest.mark.parametrize("text", ["4x + 2y^2 - 7 * x", "x", "12.5x - 0.1 + 3y", "5 + 5"])
def test_a_layout_hands_out_nothing_that_can_be_changed(text: str) -> None:
    """Every caller gets the same cached layout of a text: its arrays are
    read-only, its sequences tuples, and its attributes can't be set."""
    layout = expression_cache().parse(text).layout
    arrays = {name: getattr(layout, name) for name in LAYOUT_ARRAYS}
    for normalize in (False, True):
        types, values = layout.preordered(normalize)
        arrays[f"preordered({normalize})[0]"] = types
        arrays[f"preordered({normalize})[1]"] = values
        again = layout.preordered(normalize)
        assert again[0] is types and again[1] is values  # the same two arrays
    before = {name: array.copy() for name, array in arrays.items()}
    for name, array in arrays.items():
        assert not array.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            array += 1
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 7
        assert np.array_equal(getattr(layout, name) if name in LAYOUT_ARRAYS else array, before[name])
    assert isinstance(layout.nodes, tuple)
    assert layout.shapes is not None and isinstance(layout.shapes, tuple)
    assert all(isinstance(side, tuple) for side in layout.children)
    with pytest.raises(AttributeError, match="read-only"):
        layout.values = np.zeros(3, np.float32)  # type: ignore[misc]
    with pytest.raises(AttributeError, match="read-only"):
        layout.nodes = ()  # type: ignore[misc]
    with pytest.raises(AttributeError, match="read-only"):
        del layout.nodes
    # preorder_lists gives new lists on every call.
    types_list, values_list = layout.preorder_lists()
    types_list.append(99)
    values_list[0] = 99.0
    assert layout.preorder_lists() == NodeLayout(parse(text)).preorder_lists()


def test_the_arrays_of_a_layout_stay_read_only_when_computed_in_any_order() -> None:
    # Some arrays are computed from others (normalized from raw values, edge types
    # from sides): whichever is read first, every one comes out read-only.
    for first in LAYOUT_ARRAYS:
        layout = NodeLayout(parse("4x + 2y^2 - 7 * (x + 3)"))
        getattr(layout, first)
        for name in LAYOUT_ARRAYS:
            assert not getattr(layout, name).flags.writeable, (first, name)


COPIED = [
    "4x + 2y^2 - 7 * x", "x", "-x", "2 - -x", "-(2 + y) * -x", "12.5x - 0.1 + 3y",
    "x = 2y / 3", "sgn(x) + 2", "(x + 2)(x + 3)",
]


@pytest.mark.parametrize("text", COPIED)
def test_copy_tree_copies_every_node_and_shares_none(text: str) -> None:
    original = new_parser().parse(text)
    printed = str(original)
    copy = copy_tree(original)
    assert str(copy) == printed and copy.parent is None
    originals = {id(node) for node in original.to_list()}
    copied = copy.to_list()
    assert [type(node) for node in copied] == [type(node) for node in original.to_list()]
    for node, source in zip(copied, original.to_list()):
        assert id(node) not in originals
        assert node.id == source.id
        assert getattr(node, "value", None) == getattr(source, "value", None)
        assert getattr(node, "identifier", None) == getattr(source, "identifier", None)
        # No attribute leads back into the original tree.
        for name, value in vars(node).items():
            assert id(value) not in originals, (text, name)
        assert node.classes == source.classes and node.classes is not source.classes
        for child in (node.left, node.right):
            assert child is None or child.parent is node
        if isinstance(node, UnaryExpression):
            assert node.get_child() is not None
            assert node.child is None or node.child is node.get_child()
    # Changing the copy leaves the original as it was.
    swap = CommutativeSwapRule()
    if swap.can_apply_to(copy):
        swap.apply_to(copy)
    for node in copy.to_list():
        node.left = node.right = None
    assert str(original) == printed
    assert str(copy_tree(original)) == printed


@pytest.mark.parametrize("text", [*COPIED, "2x * 3x + 4(x + 1) - 3 * 5 + x^2 * x^3"])
def test_every_core_rule_gives_on_a_copy_what_it_gives_on_a_fresh_parse(text: str) -> None:
    cached = new_parser().parse(text)
    printed = str(cached)
    for rule in core_rules():
        for index, node in enumerate(cached.to_list("inorder")):
            if not rule.can_apply_to(node):
                continue
            try:
                on_fresh = str(apply_rule(parse(text), rule, index).result.get_root())
            except Exception as error:  # mathy_core fails alike on both, or not at all
                with pytest.raises(type(error)):
                    apply_rule(copy_tree(cached), rule, index)
                continue
            assert str(apply_rule(copy_tree(cached), rule, index).result.get_root()) == on_fresh
    assert str(cached) == printed


def test_a_layout_whose_tree_a_step_took_never_describes_the_rewritten_tree() -> None:
    cache = ExpressionCache()
    text = "4x + 2y + 2x"
    layout = cache.parse(text).layout
    fresh = NodeLayout(parse(text))
    node = cache.take_node(text, 3)
    CommutativeSwapRule().apply_to(node.get_root())
    assert str(node.get_root()) != text
    # Shapes were not computed before the tree left: they never will be, rather
    # than be read from the rewritten nodes. The rest was read when it was made.
    assert layout.shapes is None
    for name in LAYOUT_ARRAYS:
        assert np.array_equal(getattr(layout, name), getattr(fresh, name)), name
    assert layout.children == fresh.children
    # A layout whose shapes were computed keeps them.
    computed = cache.parse(text).layout
    assert computed.shapes == fresh.shapes
    CommutativeSwapRule().apply_to(cache.take_node(text, 3).get_root())
    assert computed.shapes == fresh.shapes


def test_a_tree_from_env_parse_is_the_callers_own() -> None:
    env = PolySimplify()
    text = "9x + 4y + 9x + 2"  # its own text: a failure can't leak into other tests
    state = env.state_from_text(text)
    mask = env.valid_moves_array(state).copy()
    parsed = env.parse(text)
    for node in parsed.nodes:
        node.left, node.right = node.right, node.left
    assert str(parsed.tree) != text
    assert np.array_equal(env.valid_moves_array(env.state_from_text(text)), mask)
    assert env.parse(text).tree is not parsed.tree
    assert str(env.parse(text).tree) == text
    # A step from that text rewrites the untouched tree, not the caller's.
    action = tuple(int(i) for i in np.argwhere(mask)[0])
    after, _, _ = env.get_next_state(state, action)
    assert str(parsed.tree) != text and after.agent.problem != str(parsed.tree)


def test_a_user_rejection_test_is_given_a_private_parse() -> None:
    from mathy_envs.problems import GeneratedProblem, retry, tree_check

    text = "8x + 6y + 8x"  # its own text: a failure can't leak into other tests
    seen: List[MathExpression] = []

    def vandal(tree: MathExpression) -> bool:
        seen.append(tree)
        tree.left = None  # breaks the tree it is given
        return False

    def rejects(parsed: ParsedExpression) -> bool:
        parsed.tree.right = None
        return False

    for test in (tree_check(vandal), rejects):
        problem = retry(lambda: GeneratedProblem(text, 3), test, "tests")
        assert problem.text == text
    env = PolySimplify()
    assert str(env.parse(text).tree) == text
    state = env.state_from_text(text)
    assert env.valid_moves_array(state).sum() > 0
