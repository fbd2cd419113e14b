"""Copies of trees and rules applied by node index: what a copied tree lets its
users do."""

import copy
import pickle
import threading
from typing import List, Tuple

import numpy as np
import pytest
from mathy_core import ExpressionChangeRule, ExpressionParser, UnaryExpression
from mathy_core.rules import CommutativeSwapRule

from mathy_envs import envs
from mathy_envs._engine.native import CORE
from mathy_envs._engine.parsers import new_parser
from mathy_envs._engine.rules import core_rules
from mathy_envs._engine.tree_edits import DeferredChange, apply_rule, copy_tree

from oracles import parse


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


SHARED = ["x(2x)^2", "x(2x)^2 + x", "xy^2", "ab^2c + x", "x(y + 1)^2", "xz(xz)^2 + 4"]
"""Texts mathy_core parses into trees where one node is held by two nodes."""


@pytest.mark.parametrize("text", SHARED)
def test_copy_tree_keeps_a_node_two_nodes_hold_one_node(text: str) -> None:
    original = new_parser().parse(text)
    copy = copy_tree(original)
    nodes, copied = original.to_list("inorder"), copy.to_list("inorder")
    assert len({id(node) for node in nodes}) < len(nodes)  # the text does share nodes
    # The same pattern of repeats, the same parents (the last node attached to).
    position = {id(node): index for index, node in enumerate(nodes)}
    copied_position = {id(node): index for index, node in enumerate(copied)}
    assert [position[id(node)] for node in nodes] == [copied_position[id(node)] for node in copied]
    for node, source in zip(copied, nodes):
        assert id(node) not in position
        if source.parent is None:
            assert node.parent is None
        else:
            assert copied_position[id(node.parent)] == position[id(source.parent)]
    assert str(copy) == str(original)


@pytest.mark.parametrize(
    "text", [*COPIED, *SHARED, "2x * 3x + 4(x + 1) - 3 * 5 + x^2 * x^3"]
)
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
                    str(apply_rule(copy_tree(cached), rule, index).result.get_root())
                continue
            assert str(apply_rule(copy_tree(cached), rule, index).result.get_root()) == on_fresh
    assert str(cached) == printed


# -- DeferredChange: the change of a step the native core wrote -------------------------


def _python_change(text: str, move: Tuple[int, int]) -> ExpressionChangeRule:
    env = envs.PolySimplify()
    tree = ExpressionParser().parse(text)
    return env.rules[move[0]].apply_to(tree.to_list("inorder")[move[1]])


def _deferred(text: str, move: Tuple[int, int]) -> DeferredChange:
    rule = envs.PolySimplify().rules[move[0]]
    return DeferredChange(rule, lambda: apply_rule(ExpressionParser().parse(text), rule, move[1], text))


def test_a_deferred_change_is_the_change_mathy_core_makes_once_read() -> None:
    text, move = "4x + 2y + 2x", (1, 3)
    made: List[int] = []
    rule = envs.PolySimplify().rules[move[0]]

    def make() -> ExpressionChangeRule:
        made.append(1)
        return apply_rule(ExpressionParser().parse(text), rule, move[1], text)

    change = DeferredChange(rule, make)
    assert isinstance(change, ExpressionChangeRule) and change.rule is rule and not made
    expected = _python_change(text, move)
    assert change.result is not None and expected.result is not None
    assert str(change.result.get_root()) == str(expected.result.get_root())
    assert str(change.node) == str(expected.node) and made == [1]
    assert change.result is change.result and made == [1]  # made once
    with pytest.raises(AttributeError):
        change.no_such_attribute  # noqa: B018


def test_a_deferred_change_copies_and_pickles_as_the_made_change() -> None:
    change = _deferred("4x + 2x", (3, 3))
    for other in (copy.copy(change), copy.deepcopy(change), pickle.loads(pickle.dumps(change))):
        assert other.result is not None and str(other.result.get_root()) == "(4 + 2) * x"
        assert other.rule.name == change.rule.name


def test_threads_reading_a_deferred_change_get_the_same_change() -> None:
    for _ in range(20):
        change = _deferred("4x + 2y + 2x + 7y", (3, 3))
        seen: List[object] = []
        threads = [threading.Thread(target=lambda: seen.append(change.result)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(seen) == 4 and all(result is seen[0] for result in seen)


@pytest.mark.skipif(CORE != "native", reason="MATHY_ENVS_CORE chose the pure-Python core")
def test_a_step_the_native_core_wrote_returns_the_change_mathy_core_would() -> None:
    env = envs.PolySimplify()
    state = env.state_from_text("4x + 2y + 2x + 7y", max_moves=10)
    mask = np.asarray(env.get_valid_moves(state))
    for rule, node in zip(*np.nonzero(mask)):
        move = (int(rule), int(node))
        out, _, change = env.get_next_state(state, move)
        assert isinstance(change, DeferredChange)
        expected = _python_change(state.agent.problem, move)
        assert change.result is not None and expected.result is not None
        assert str(change.result.get_root()) == str(expected.result.get_root()) == out.agent.problem
        assert str(change.node) == str(expected.node)


def test_a_deferred_change_whose_making_fails_tries_again_when_read_again() -> None:
    text, move = "4x + 2x", (3, 3)
    rule = envs.PolySimplify().rules[move[0]]
    calls: List[int] = []

    def make() -> ExpressionChangeRule:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the first try fails")
        return apply_rule(ExpressionParser().parse(text), rule, move[1], text)

    change = DeferredChange(rule, make)
    with pytest.raises(RuntimeError, match="the first try fails"):
        change.result  # noqa: B018
    assert change.result is not None and str(change.result.get_root()) == "(4 + 2) * x"
    assert len(calls) == 2


def test_a_step_change_read_in_another_thread_is_the_same_change() -> None:
    env = envs.PolySimplify()
    state = env.state_from_text("4x + 2y + 2x", max_moves=10)
    out, _, change = env.get_next_state(state, (1, 3))
    read: List[str] = []
    thread = threading.Thread(target=lambda: read.append(str(change.result.get_root())))
    thread.start()
    thread.join()
    assert read == [out.agent.problem]
