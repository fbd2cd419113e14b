"""Checks of expression trees built by hand (not parsed from a text).

A parsed tree is well formed by construction; a tree a caller assembled from
mathy_core's node classes may not be: a binary node with one child, a child that
is not a node, a constant holding a string, a node that is its own child. mathy_core
crashes, recurses without end or hangs on such trees, so `check_tree` walks them
first, without recursion and in time bounded by the limits of `mathy_envs.limits`,
and raises a `ValueError` saying what is wrong.
"""

import string
from typing import Any, FrozenSet, List, Set, Tuple

from mathy_core import (
    BinaryExpression,
    ConstantExpression,
    FunctionExpression,
    MathExpression,
    UnaryExpression,
    VariableExpression,
)

from ..limits import MAX_CONSTANT, MAX_DEPTH, MAX_NODES, quote, type_name
from .rules import EXPRESSION_TYPES

MATHY_CORE_TYPES: FrozenSet[type] = EXPRESSION_TYPES - {FunctionExpression}
"""mathy_core's concrete node classes. A tree of these only, once checked, is
handled by mathy_core without surprises; a tree with nodes of other classes (user
subclasses) runs their code too (see `CheckedTree.foreign`)."""
_ABSTRACT_TYPES: FrozenSet[type] = frozenset(
    {MathExpression, UnaryExpression, BinaryExpression, FunctionExpression}
)
_LETTERS: FrozenSet[str] = frozenset(string.ascii_letters)


class CheckedTree:
    """A checked tree: its `root` (the node the given one hangs from, itself when
    it has no parent) and whether any node is of a class other than those of
    `MATHY_CORE_TYPES`, or holds a value of a subclass of int, float or str
    (`foreign`)."""

    def __init__(self, root: MathExpression, foreign: bool) -> None:
        self.root = root
        self.foreign = foreign


def check_tree(expression: Any, name: str = "expression") -> CheckedTree:
    """Check the whole tree `expression` belongs to (from its root down), without
    recursion. `ValueError` (naming `name`) unless:

    - every node is a mathy_core `MathExpression`: a constant, a variable, or a
      unary or binary expression (mathy_core's classes or subclasses of them, not
      their abstract bases);
    - a binary node has both children, a unary node its one child on its side
      (`child_on_left`) and nothing on the other, a constant or variable none;
    - a constant holds an int or float within `MAX_CONSTANT` (not NaN, inf or a
      bool), a variable one ASCII letter (what mathy_core's parser builds);
    - each child's `parent` is the node that holds it, and no node occurs twice
      (no cycles, no node shared by two parents);
    - the tree has at most `MAX_NODES` nodes and `MAX_DEPTH` levels.
    """
    if not isinstance(expression, MathExpression):
        raise ValueError(
            f"{name} must be a mathy_core MathExpression, got {type_name(expression)}"
        )
    root = _root_of(expression, name)
    seen: Set[int] = {id(root)}
    foreign = False
    stack: List[Tuple[MathExpression, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"{name} is more than MAX_DEPTH={MAX_DEPTH} levels deep")
        kind = type(node)
        if kind not in MATHY_CORE_TYPES or _foreign_value(node):
            foreign = True
        for child in _children(node, name):
            if not isinstance(child, MathExpression):
                raise ValueError(
                    f"{name} has a child of {_a(node)} node that is "
                    f"{_a(child)}, not a mathy_core MathExpression"
                )
            if id(child) in seen:
                raise ValueError(
                    f"{name} holds {_a(child)} node twice: a tree's nodes "
                    "must be distinct objects (no cycles, no node with two parents)"
                )
            seen.add(id(child))
            if len(seen) > MAX_NODES:
                raise ValueError(f"{name} has more than MAX_NODES={MAX_NODES} nodes")
            if _read(child, "parent", name) is not node:
                raise ValueError(
                    f"{name} has {_a(child)} node whose parent is not the "
                    f"{type_name(node)} node holding it (set children with set_left, "
                    "set_right or the constructor, which set the parent)"
                )
            stack.append((child, depth + 1))
    return CheckedTree(root, foreign)


def _foreign_value(node: MathExpression) -> bool:
    """Whether a leaf holds a value of a subclass (of int, float or str), whose
    own methods run when mathy_core and the library use it."""
    if isinstance(node, ConstantExpression):
        return type(node.value) not in (int, float)
    if isinstance(node, VariableExpression):
        return type(node.identifier) is not str
    return False


def _a(value: Any) -> str:
    """The name of `value`'s type with its article: `a MultiplyExpression`."""
    kind = type_name(value)
    return f"{'an' if kind[:1] in 'AEIOUaeiou' else 'a'} {kind}"


def _read(node: MathExpression, attribute: str, name: str) -> Any:
    """`node.<attribute>`; a `ValueError` when the node has no such attribute (it
    was never initialized) or reading it fails."""
    try:
        return getattr(node, attribute)
    except Exception:
        raise ValueError(
            f"{name} has {_a(node)} node whose {attribute} can't be read "
            "(was its __init__ called?)"
        ) from None


def _root_of(expression: MathExpression, name: str) -> MathExpression:
    """The root above `expression`, following parent links, each of which must
    point to a node that holds the one below as a child."""
    node = expression
    seen = {id(node)}
    while True:
        parent = _read(node, "parent", name)
        if parent is None:
            return node
        if not isinstance(parent, MathExpression):
            raise ValueError(
                f"{name} has {_a(node)} node whose parent is "
                f"{_a(parent)}, not a mathy_core MathExpression"
            )
        if _read(parent, "left", name) is not node and _read(parent, "right", name) is not node:
            raise ValueError(
                f"{name} has {_a(node)} node whose parent "
                f"({type_name(parent)}) does not hold it as a child"
            )
        if id(parent) in seen:
            raise ValueError(f"{name} has parent links that form a cycle")
        if len(seen) > MAX_DEPTH:
            raise ValueError(f"{name} is more than MAX_DEPTH={MAX_DEPTH} levels deep")
        seen.add(id(parent))
        node = parent


def _children(node: MathExpression, name: str) -> List[Any]:
    """The children of a node, after checking its kind, arity and value."""
    kind = type_name(node)
    left, right = _read(node, "left", name), _read(node, "right", name)
    if type(node) in _ABSTRACT_TYPES:
        raise ValueError(f"{name} has a node of the abstract class {kind}")
    if isinstance(node, (ConstantExpression, VariableExpression)):
        if left is not None or right is not None:
            raise ValueError(f"{name} has {_a(node)} node with children (it is a leaf)")
        if isinstance(node, ConstantExpression):
            _check_value(_read(node, "value", name), name)
        else:
            _check_identifier(_read(node, "identifier", name), name)
        return []
    if isinstance(node, UnaryExpression):
        on_left = _read(node, "child_on_left", name)
        if not isinstance(on_left, bool):
            raise ValueError(
                f"{name} has {_a(node)} node whose child_on_left is not a bool: "
                f"{quote(on_left, 40)}"
            )
        child, other = (left, right) if on_left else (right, left)
        side = "left" if on_left else "right"
        if child is None:
            raise ValueError(f"{name} has {_a(node)} node with no operand (on its {side})")
        if other is not None:
            raise ValueError(
                f"{name} has {_a(node)} node with children on both sides (a unary "
                f"expression has one, on its {side})"
            )
        return [child]
    if isinstance(node, BinaryExpression):
        if left is None or right is None:
            missing = "both operands" if left is None and right is None else (
                "its left operand" if left is None else "its right operand"
            )
            raise ValueError(f"{name} has {_a(node)} node missing {missing}")
        return [left, right]
    raise ValueError(
        f"{name} has {_a(node)} node, which is not a mathy_core constant, variable, "
        "unary or binary expression"
    )


def _check_value(value: Any, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(
            f"{name} has a constant holding {quote(value, 40)} "
            f"({type_name(value)}), not an int or float"
        )
    # The value of the exact type: a subclass's own operators never run.
    exact = int.__int__(value) if isinstance(value, int) else float.__float__(value)
    if not abs(exact) <= MAX_CONSTANT:
        shown = quote(exact, 40)
        raise ValueError(
            f"{name} has a constant {shown} outside the supported range "
            f"|c| <= MAX_CONSTANT={MAX_CONSTANT} (or not finite)"
        )


def _check_identifier(identifier: Any, name: str) -> None:
    if not (isinstance(identifier, str) and str.__str__(identifier) in _LETTERS):
        raise ValueError(
            f"{name} has a variable named {quote(identifier, 40)}: a variable's "
            "identifier must be one ASCII letter"
        )


__all__ = ("MATHY_CORE_TYPES", "CheckedTree", "check_tree")
