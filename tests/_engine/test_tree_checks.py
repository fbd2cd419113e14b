"""`mathy_envs._engine.tree_checks`: `check_tree`, the check of an expression tree built by hand
before mathy_core or the library walks it. (Every entry point that takes a tree
is checked with odd trees in `test_actions.py`.)"""

from typing import Any, Callable

import pytest
from mathy_core import (
    AddExpression,
    ConstantExpression,
    ExpressionParser,
    MultiplyExpression,
    NegateExpression,
    VariableExpression,
)

from mathy_envs.limits import MAX_DEPTH
from mathy_envs._engine.tree_checks import check_tree

from helpers import time_limit


def x() -> VariableExpression:
    return VariableExpression("x")


def test_a_parsed_tree_passes_from_any_node_and_its_root_is_found() -> None:
    root = ExpressionParser().parse("4x + 2y - (x + 7) * -x^2")
    for node in root.to_list("inorder"):
        checked = check_tree(node)
        assert checked.root is root
        assert checked.foreign is False


def test_a_hand_built_tree_of_mathy_core_nodes_passes() -> None:
    tree = AddExpression(MultiplyExpression(ConstantExpression(4), x()), NegateExpression(x()))
    checked = check_tree(tree)
    assert checked.root is tree and checked.foreign is False


def test_nodes_and_values_of_user_subclasses_are_foreign() -> None:
    class MyAdd(AddExpression):
        pass

    class MyInt(int):
        pass

    class MyName(str):
        pass

    assert check_tree(MyAdd(x(), ConstantExpression(2))).foreign is True
    assert check_tree(AddExpression(x(), ConstantExpression(MyInt(2)))).foreign is True
    assert check_tree(AddExpression(VariableExpression(MyName("y")), x())).foreign is True


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: "4x", "the tree must be a mathy_core MathExpression, got str"),
        (lambda: AddExpression(x(), None), "the tree has an AddExpression node missing its right operand"),
        (lambda: AddExpression(ConstantExpression(float("inf")), x()), "the tree has a constant inf outside"),
        (lambda: AddExpression(VariableExpression("xy"), x()), "the tree has a variable named 'xy'"),
        (lambda: ConstantExpression(2).set_left(x()), "node with children (it is a leaf)"),
    ],
)
def test_a_malformed_tree_is_a_value_error_naming_it(build: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        check_tree(build(), name="the tree")
    assert message in str(info.value)


def test_cycles_and_deep_chains_are_refused_quickly() -> None:
    inner = AddExpression(x(), ConstantExpression(1))
    outer = MultiplyExpression(inner, ConstantExpression(2))
    inner.right = outer  # outer -> inner -> outer
    deep: Any = x()
    for _ in range(MAX_DEPTH + 5):
        deep = NegateExpression(deep)
    with time_limit(10.0):
        with pytest.raises(ValueError, match="node twice"):
            check_tree(outer)
        with pytest.raises(ValueError, match=f"MAX_DEPTH={MAX_DEPTH}"):
            check_tree(deep)
