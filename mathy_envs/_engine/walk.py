"""One walk of a tree: its nodes in action (in-order) order, with the type id and
value of each and the links of its pre-order.

`walk_tree` is the single traversal a `NodeLayout` (`layout.py`) is made from;
this module owns it and what it reads nodes with: mathy_core's type ids by node
type, and constants as floats (exactly when float32 holds them).
"""

import math
import string
from typing import List, Mapping, Optional, Tuple

from mathy_core import (
    AddExpression,
    ConstantExpression,
    DivideExpression,
    EqualExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)

_EXACT_INT = 2**24
"""Whole numbers up to this size are exact in float32."""
_CLASS_TYPE_IDS: Mapping[type, int] = {
    kind: kind().type_id
    for kind in (
        AddExpression,
        ConstantExpression,
        DivideExpression,
        EqualExpression,
        MultiplyExpression,
        NegateExpression,
        PowerExpression,
        SubtractExpression,
    )
}
"""mathy_core's `type_id` of each node type whose id does not depend on the node
(a plain dict, never changed: looking up in one is cheaper than in a read-only
proxy, and the layout does it for every node)."""
_VARIABLE_TYPE_IDS: Mapping[Optional[str], int] = {
    name: VariableExpression(name).type_id for name in string.ascii_letters
}
"""mathy_core's `type_id` of a variable, by one-letter name."""


TreeWalk = Tuple[
    List[MathExpression], int, List[int], List[int], List[int], List[float], List[int],
    List[float], bool,
]
"""What `walk_tree` reads from a tree, a plain tuple (cheaper to make and unpack
than a named one, and this is made for every new text)."""

IndexWalk = Tuple[
    List[int], int, List[int], List[int], List[int], List[float], List[int], List[float], bool
]
"""A `TreeWalk` with an index in place of each node (the native core's walk: the
index of each in-order node among the nodes in creation order)."""


def walk_tree(root: MathExpression) -> TreeWalk:
    """Walk the tree under `root` once, numbering its nodes in pre-order on the
    way down and in-order on the way back up. Returns, in this order:

    - `nodes`: the tree's nodes, in action (in-order) order;
    - `levels`: the number of levels of the tree (a single node has one);
    - `preorder`: `preorder[p]` is the in-order index of the `p`-th node in
      pre-order;
    - `parent_pre`: the pre-order position of each node's parent (-1 for the
      root), by pre-order position;
    - `type_ids_pre`, `values_pre`: mathy_core's type id of each node and the
      value of each constant (0.0 for other nodes), by pre-order position;
    - `type_ids`, `values`: the same by in-order index;
    - `exact`: whether every value is a whole number float32 holds exactly, so
      that the Python floats of the value lists are the float32 values
      themselves.
    """
    nodes: List[MathExpression] = []
    # Type ids and values by pre-order position, read on the way down, and
    # by in-order index.
    type_ids_pre: List[int] = []
    values_pre: List[float] = []
    type_ids: List[int] = []
    values: List[float] = []
    # preorder[p] = in-order index of the p-th node in pre-order; parents are
    # kept by pre-order position.
    preorder: List[int] = []
    parent_pre: List[int] = []
    stack: List[Tuple[MathExpression, int, int]] = []
    class_ids = _CLASS_TYPE_IDS
    variable_ids = _VARIABLE_TYPE_IDS
    constant = ConstantExpression
    low, high = -_EXACT_INT, _EXACT_INT
    node: Optional[MathExpression] = root
    parent, depth, levels = -1, 0, 0
    exact = True
    while True:
        # Descend the left spine, numbering nodes in pre-order on the way down.
        while node is not None:
            position = len(preorder)
            preorder.append(-1)
            parent_pre.append(parent)
            kind = type(node)
            type_id = class_ids.get(kind)
            if kind is constant or (type_id is None and isinstance(node, constant)):
                value = node.value  # type: ignore[attr-defined]
                if type(value) is int and low <= value <= high:
                    values_pre.append(value + 0.0)
                else:
                    exact = False
                    values_pre.append(_as_float(value))
            else:
                values_pre.append(0.0)
                if kind is VariableExpression:
                    type_id = variable_ids.get(node.identifier)  # type: ignore[attr-defined]
            type_ids_pre.append(node.type_id if type_id is None else type_id)
            stack.append((node, position, depth))
            parent = position
            depth += 1
            node = node.left
        if depth > levels:
            levels = depth
        if not stack:
            break
        visited, parent, depth = stack.pop()
        preorder[parent] = len(nodes)
        nodes.append(visited)
        type_ids.append(type_ids_pre[parent])
        values.append(values_pre[parent])
        node = visited.right
        depth += 1
    return nodes, levels, preorder, parent_pre, type_ids_pre, values_pre, type_ids, values, exact


def _as_float(value: object) -> float:
    """A constant's value as a float for the node arrays: an int too large for a
    float is an infinity, and anything else that is not a number is nan (such
    texts are refused by `admit`, which reads the layout first)."""
    try:
        return float(value or 0.0)  # type: ignore[arg-type]
    except OverflowError:
        return math.inf if value > 0 else -math.inf  # type: ignore[operator]
    except (TypeError, ValueError):
        return math.nan


__all__ = ("IndexWalk", "TreeWalk", "walk_tree")
