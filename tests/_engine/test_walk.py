"""`mathy_envs._engine.walk`: `walk_tree`, the one walk of a tree a layout is made
from. Expected values come from mathy_core's own traversals (`to_list`) and node
links of a fresh tree."""

import pytest
from helpers import depth_of, raw_value
from mathy_core import ExpressionParser

from mathy_envs._engine.walk import walk_tree

TEXTS = ["4x + 2y + 3 * (x + 7)", "-3x + 7", "2x^2 * (y - 4)", "-(x + 2) + 0.5y", "12", "x"]


@pytest.mark.parametrize("text", TEXTS)
def test_nodes_come_in_order_with_the_preorder_that_mathy_core_gives(text: str) -> None:
    root = ExpressionParser().parse(text)
    nodes, levels, preorder, parent_pre, *_ = walk_tree(root)
    inorder = root.to_list("inorder")
    assert [id(node) for node in nodes] == [id(node) for node in inorder]
    pre = root.to_list("preorder")
    assert [id(nodes[index]) for index in preorder] == [id(node) for node in pre]
    assert levels == 1 + max(depth_of(node) for node in inorder)
    for position, node in enumerate(pre):
        parent = parent_pre[position]
        if node.parent is None:
            assert parent == -1
        else:
            assert pre[parent] is node.parent


@pytest.mark.parametrize("text", TEXTS)
def test_type_ids_and_values_in_both_orders(text: str) -> None:
    root = ExpressionParser().parse(text)
    _, _, _, _, type_ids_pre, values_pre, type_ids, values, _ = walk_tree(root)
    inorder = root.to_list("inorder")
    pre = root.to_list("preorder")
    assert type_ids == [node.type_id for node in inorder]
    assert values == [raw_value(node) for node in inorder]
    assert type_ids_pre == [node.type_id for node in pre]
    assert values_pre == [raw_value(node) for node in pre]


@pytest.mark.parametrize(
    "text, exact",
    [
        ("4x + 2y - 7", True),
        (f"{2**24}x", True),  # whole numbers up to 2**24 are exact in float32
        (f"{2**24 + 1}x", False),
        ("0.5x + 2", False),
    ],
)
def test_exact_tells_whether_float32_holds_every_value(text: str, exact: bool) -> None:
    assert walk_tree(ExpressionParser().parse(text))[-1] is exact
