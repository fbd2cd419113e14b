"""Admission of a freshly parsed text: `admit` checks it against the supported
limits (`limits.py`) and decides whether the core rules are known to be exact on
it (`ParsedExpression.safe`).

Every text is admitted once, when a cache (`parse_cache.py`) first parses it. A safe
tree is one on which mathy_core's rules can't produce a constant that is out of
range or inexact; other trees get every action checked (`MathyEnv`), so this
only decides speed. `SAFE_CONSTANT` and `SAFE_SIZE` are the limits of safe trees.
"""

from typing import Optional, Sequence, Tuple

from mathy_core import (
    AddExpression,
    ConstantExpression,
    EqualExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)

from .expressions import ParsedExpression
from ..limits import (
    MAX_CONSTANT,
    MAX_CONSTANT_DIGITS,
    MAX_DEPTH,
    MAX_NESTING,
    MAX_NODES,
    MAX_TEXT_LENGTH,
    check_constant,
    check_size,
)
from .values import POINTS, ROOT_DENOMINATORS, check_defined

SAFE_CONSTANT = 31622
"""Integer constants up to this size multiply to at most `MAX_CONSTANT`."""
SAFE_SIZE = min(MAX_DEPTH - 2, (MAX_NODES - 1) // 2)
"""A tree is safe only if its nodes plus its unary nodes number at most this: one
step at most doubles a tree, and whatever shape printing and parsing give the
result, it then stays within `MAX_DEPTH` and `MAX_NODES`."""
assert SAFE_CONSTANT**2 <= MAX_CONSTANT
assert 2 * SAFE_SIZE + 1 <= MAX_NODES

MOVE_LIMITS = (
    SAFE_CONSTANT,
    MAX_CONSTANT,
    MAX_NODES,
    MAX_DEPTH,
    MAX_TEXT_LENGTH,
    MAX_NESTING,
    MAX_CONSTANT_DIGITS + 1,
    ROOT_DENOMINATORS,
    POINTS,
)
"""The limits the native core's checks of the moves of an expression that is not
safe read (`Expression.check_moves`, the batch kernel), in the order it takes
them: this admission's and `mathy_envs.limits`' (a run of `MAX_CONSTANT_DIGITS + 1`
digits is the shortest that `check_text` reads digit by digit), and the points
of `mathy_envs._engine.values`' checks."""


def admit(entry: ParsedExpression) -> None:
    """Check a freshly parsed text against the supported limits (`ValueError`
    naming the limit otherwise) and set `entry.safe`.

    A safe tree is a small polynomial on which mathy_core's core rules are known
    to be exact: integer constants of at most `SAFE_CONSTANT`, powers only of a
    variable to a whole constant >= 2, negation only of a variable or such a
    power (a negated sum can print as `--1`), subtraction only of such a term or
    of a product whose left factor is one (mathy_core's restate subtraction
    mishandles the others), and at most `SAFE_SIZE` nodes. Other trees
    get every action checked (`MathyEnv`), so this only decides speed.
    """
    text = entry.text
    layout = entry.layout
    native = entry.native
    if native is not None:
        # The same loop, in the native core (native/admission.cpp).
        count = len(native)
        check_size(count, layout.levels, text)
        safe, check_value, has_equation, unary, constants = native.admission(SAFE_CONSTANT)
        for value in constants:
            check_constant(value, text)
        entry.has_equation = has_equation
    else:
        count = len(layout)
        check_size(count, layout.levels, text)
        safe, check_value, unary = _admit_nodes(entry, layout.nodes)
    if check_value and not defined_natively(entry):
        check_defined(entry.tree, text)
    entry.safe = safe and count + unary <= SAFE_SIZE


def _admit_nodes(
    entry: ParsedExpression, nodes: Sequence[MathExpression]
) -> Tuple[bool, bool, int]:
    """`admit`'s look at each node (in action order): `(safe, check_value,
    unary)`, before the size test; sets `entry.has_equation`."""
    text = entry.text
    unary = 0
    safe = True
    check_value = False
    # The commonest types first, as locals: this runs for every new text.
    add, multiply, variable, constant = (
        AddExpression,
        MultiplyExpression,
        VariableExpression,
        ConstantExpression,
    )
    low, high = -SAFE_CONSTANT, SAFE_CONSTANT
    for node in nodes:
        kind = type(node)
        if kind is add or kind is multiply or kind is variable:
            continue
        if kind is constant or isinstance(node, constant):
            value = node.value  # type: ignore[attr-defined]
            if type(value) is int and low <= value <= high:
                continue  # within every limit, and safe
            check_constant(value, text)
            safe = False
        elif kind is SubtractExpression:
            right = node.right
            if not (_simple_term(right) or (
                type(right) is MultiplyExpression and _simple_term(right.left)
            )):
                safe = False
        elif kind is NegateExpression:
            unary += 1
            child = node.get_child()  # type: ignore[attr-defined]
            if not (type(child) is VariableExpression or (
                type(child) is PowerExpression and _simple_power(child)
            )):
                safe = False
        elif kind is PowerExpression and _simple_power(node):
            continue
        else:
            # Division, other powers, factorials, functions, equations.
            safe = False
            check_value = True
            if kind is EqualExpression:
                entry.has_equation = True
    return safe, check_value, unary


_ANY_POINT = ((1,) * 52,)
"""A point for the native evaluator: every variable has the value 1."""


def defined_natively(entry: ParsedExpression) -> bool:
    """Whether the native core's evaluator (`Expression.point_values`) reaches
    the whole tree: integers, sums, products, negations and whole powers, with
    degrees within `MAX_DEGREE` even when each variable has the degree
    `ROOT_DENOMINATORS`. Such a tree has a finite value that `check_defined`
    evaluates exactly at every point."""
    native = entry.native
    return native is not None and native.point_values(_ANY_POINT, ROOT_DENOMINATORS) is not None


def _simple_term(node: Optional[MathExpression]) -> bool:
    """A constant, a variable or a simple power."""
    kind = type(node)
    return (
        kind is ConstantExpression
        or kind is VariableExpression
        or (kind is PowerExpression and _simple_power(node))  # type: ignore[arg-type]
    )


def _simple_power(node: MathExpression) -> bool:
    """`x^k` with a whole constant `2 <= k <= SAFE_CONSTANT`."""
    exponent = node.right
    return (
        type(node.left) is VariableExpression
        and isinstance(exponent, ConstantExpression)
        and type(exponent.value) is int
        and 2 <= exponent.value <= SAFE_CONSTANT
    )


__all__ = ("MOVE_LIMITS", "SAFE_CONSTANT", "SAFE_SIZE", "admit", "defined_natively")
