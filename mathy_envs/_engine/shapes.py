"""Subtree shapes: texts that are equal exactly when two subtrees are.

This module owns the shape alphabet (`SHAPE_SYMBOLS`, the symbols that open the
shape of a constant, a variable, a missing child) and `subtree_shapes`, which
writes the shape of every node of a tree from its node arrays;
`NodeLayout.shapes` (`layout.py`) is its one caller. The rules (`rules.py`) and
term finding (`terms.py`) read the alphabet.
"""

import string
from types import MappingProxyType
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from mathy_core import (
    AddExpression,
    ConstantExpression,
    DivideExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)

SHAPE_SYMBOLS: Mapping[type, str] = MappingProxyType(
    {
        AddExpression: "+",
        DivideExpression: "/",
        MultiplyExpression: "*",
        PowerExpression: "^",
        SubtractExpression: "-",
    }
)
"""The symbol that opens the shape (`NodeLayout.shapes`) of a binary node of each
type."""
SHAPED_TYPES: FrozenSet[type] = frozenset(SHAPE_SYMBOLS) | {
    ConstantExpression,
    NegateExpression,
    VariableExpression,
}
"""The node types `NodeLayout.shapes` describes: those whose subtree is fully
told by their type, children, constant value, variable name or (negation) the
side of its child."""
INTEGER_SHAPE_SYMBOL = "#"
"""The symbol that opens the shape of an integer constant (its digits follow)."""
VARIABLE_SHAPE_SYMBOL = "$"
"""The symbol that opens the shape of a variable (its one-letter name follows)."""
CONSTANT_SHAPE_SYMBOLS: FrozenSet[str] = frozenset({INTEGER_SHAPE_SYMBOL, "%"})
"""The symbols that open the shape of an integer and of a float constant."""
NO_SHAPE = "_"
"""The shape written for a missing child."""
_SHAPE_SYMBOLS: Dict[type, str] = dict(SHAPE_SYMBOLS)
_SHAPE_LETTERS: FrozenSet[str] = frozenset(string.ascii_letters)
_SHAPE_INT = 10**100
"""Integer constants in shapes are written in decimal up to this size."""


def subtree_shapes(
    nodes: Sequence[MathExpression], order: Sequence[int], parents: Sequence[int]
) -> Optional[Tuple[Tuple[str, ...], Tuple[Tuple[int, ...], Tuple[int, ...]]]]:
    """The shape of each of `nodes` (in-order) and, found on the way, the
    in-order index of each node's left and of its right child (-1 for none,
    `NodeLayout.children`); None when the tree holds a node type other than those
    of `SHAPED_TYPES`, a variable whose name is not one ASCII letter, or a
    constant that is not an int or a float.

    `order[p]` is the in-order index of the `p`-th node in pre-order, and
    `parents[p]` the pre-order position of its parent (-1 for the root), as a
    `NodeLayout` keeps them.

    A shape is the subtree in prefix notation: a binary node's symbol
    (`SHAPE_SYMBOLS`) or, for a negation, `~<` or `~>` (its child on the left
    or on the right), then the shapes of its left and right sides (`_` for
    none); `#` and the digits of an integer constant, `%` and the `repr` of a
    float one then `;`, `$` and the name of a variable. Each part ends where
    the next one begins, so a text reads back into one tree only.
    """
    count = len(nodes)
    shapes = [""] * count
    # The shapes of each node's sides, and the in-order index of its children.
    left: List[str] = [NO_SHAPE] * count
    right: List[str] = [NO_SHAPE] * count
    left_child = [-1] * count
    right_child = [-1] * count
    symbols = _SHAPE_SYMBOLS
    constant, variable, letters = ConstantExpression, VariableExpression, _SHAPE_LETTERS
    integer_symbol, variable_symbol = INTEGER_SHAPE_SYMBOL, VARIABLE_SHAPE_SYMBOL
    low, high = -_SHAPE_INT, _SHAPE_INT
    # Children come after their parent in pre-order: walking it backwards
    # finishes both children of a node before the node itself.
    for position in range(count - 1, -1, -1):
        index = order[position]
        node = nodes[index]
        kind = type(node)
        symbol = symbols.get(kind)
        if symbol is not None:
            shape = f"{symbol}{left[position]}{right[position]}"
        elif kind is constant:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is int and low < value < high:
                shape = f"{integer_symbol}{value}"
            elif type(value) is float:
                # repr tells 0.0 from -0.0, and keeps floats apart from ints.
                shape = f"%{value!r};"
            else:
                return None
        elif kind is variable:
            name = node.identifier  # type: ignore[attr-defined]
            if type(name) is not str or name not in letters:
                return None
            shape = variable_symbol + name
        elif kind is NegateExpression:
            side = "~<" if node.child_on_left else "~>"  # type: ignore[attr-defined]
            shape = f"{side}{left[position]}{right[position]}"
        else:
            return None
        shapes[index] = shape
        parent = parents[position]
        if parent >= 0:
            above = order[parent]
            # A right child comes after its parent in-order, a left child before.
            if index > above:
                right[parent] = shape
                right_child[above] = index
            else:
                left[parent] = shape
                left_child[above] = index
    return tuple(shapes), (tuple(left_child), tuple(right_child))


__all__ = (
    "CONSTANT_SHAPE_SYMBOLS",
    "INTEGER_SHAPE_SYMBOL",
    "NO_SHAPE",
    "SHAPED_TYPES",
    "SHAPE_SYMBOLS",
    "VARIABLE_SHAPE_SYMBOL",
    "subtree_shapes",
)
