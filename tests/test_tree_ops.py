"""Copies of trees and rules applied by node index: what a copied tree lets its
users do."""

import pytest
from mathy_core import UnaryExpression
from mathy_core.rules import CommutativeSwapRule

from mathy_envs.parsers import new_parser
from mathy_envs.rules import core_rules
from mathy_envs.tree_ops import apply_rule, copy_tree

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
