"""`mathy_envs._engine.shapes`: subtree shapes (`NodeLayout.shapes`), texts that are
equal exactly when two subtrees are, which masks keep rule answers under."""

from typing import List, Optional

import numpy as np
from mathy_core import (
    AddExpression,
    ConstantExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    SubtractExpression,
    VariableExpression,
)

from mathy_envs._engine.masks import Sweep
from mathy_envs._engine.layout import NodeLayout
from mathy_envs._engine.rules import core_rules

from oracles import every_can_apply_to, parse


def same_subtree(one: Optional[MathExpression], other: Optional[MathExpression]) -> bool:
    """Equal node types in the same places, with the same constants (and their
    types, and signs of zero) and variable names."""
    if one is None or other is None:
        return one is other
    if type(one) is not type(other):
        return False
    if isinstance(one, ConstantExpression):
        value, other_value = one.value, other.value  # type: ignore[attr-defined]
        return type(value) is type(other_value) and repr(value) == repr(other_value)
    if isinstance(one, VariableExpression):
        return bool(one.identifier == other.identifier)  # type: ignore[attr-defined]
    return same_subtree(one.left, other.left) and same_subtree(one.right, other.right)


def test_nodes_share_a_shape_exactly_when_their_subtrees_are_equal() -> None:
    texts = [
        "4x + 2x + 4x", "(4x + 2x) + 4x", "4x + (2x + 4x)", "2 + 2.0 + 2", "x^2 - -x^2",
        "0.0 + -0.0 * 0.0", "x * y * (x * y)", "4 / x + 4 / x",
    ]
    for text in texts:
        tree = parse(text)
        nodes = tree.to_list("inorder")
        shapes = NodeLayout(tree).shapes
        assert shapes is not None
        for i, one in enumerate(nodes):
            for j, other in enumerate(nodes):
                assert (shapes[i] == shapes[j]) == same_subtree(one, other), (text, i, j)


def test_built_trees_share_a_root_shape_exactly_when_they_are_equal() -> None:
    # Digits, signs and exponents next to each other, where a careless
    # encoding would run two constants or a constant and an operator together.
    def const(value: object) -> ConstantExpression:
        return ConstantExpression(value)  # type: ignore[arg-type]

    x, y = VariableExpression("x"), VariableExpression("y")
    trees: List[MathExpression] = [
        AddExpression(const(12), const(3)),
        AddExpression(const(1), const(23)),
        AddExpression(const(-1), const(23)),
        SubtractExpression(const(1), const(23)),
        SubtractExpression(const(-2), const(3)),
        AddExpression(const(1e20), x.clone()),
        AddExpression(const(10**20), x.clone()),
        AddExpression(const(1.5), const(2)),
        AddExpression(const(1), const(5.2)),
        MultiplyExpression(const(2), SubtractExpression(x.clone(), y.clone())),
        MultiplyExpression(SubtractExpression(const(2), x.clone()), y.clone()),
        NegateExpression(const(2), child_on_left=True),
        NegateExpression(const(2), child_on_left=False),
        AddExpression(x.clone(), None),
        AddExpression(None, x.clone()),
    ]
    roots = []
    for tree in trees:
        layout = NodeLayout(tree)
        assert layout.shapes is not None, str(tree)
        roots.append(layout.shapes[layout.nodes.index(tree)])
    for i, one in enumerate(trees):
        for j, other in enumerate(trees):
            same = same_subtree(one, other) and (
                not isinstance(one, NegateExpression)
                or one.child_on_left == other.child_on_left  # type: ignore[attr-defined]
            )
            assert (roots[i] == roots[j]) == same, (roots[i], roots[j])
    # Names of other lengths and other constant types are not described.
    assert NodeLayout(AddExpression(VariableExpression("xy"), x.clone())).shapes is None
    assert NodeLayout(AddExpression(const(True), x.clone())).shapes is None


def test_a_negation_with_its_child_on_the_other_side_has_another_shape() -> None:
    # mathy_core's clone() does not keep which side a negation's child is on, so
    # the clone's get_child() is None: the same nodes in the same places, but
    # constant arithmetic applies to one negation and not the other.
    built = NegateExpression(parse("2 + 3"), child_on_left=True)
    copy = built.clone()
    rules = core_rules()
    sweep = Sweep(rules)
    for tree in (built, copy, built):
        layout = NodeLayout(tree)
        mask = sweep.mask(layout.nodes, layout)
        assert np.array_equal(mask, every_can_apply_to(rules, tree))
    assert NodeLayout(built).shapes != NodeLayout(copy).shapes


def test_trees_with_other_node_types_have_no_shapes() -> None:
    assert NodeLayout(parse("sgn(x) + 4x + 2x")).shapes is None
    assert NodeLayout(parse("5! + 2")).shapes is None
    assert NodeLayout(parse("x = 2")).shapes is None
