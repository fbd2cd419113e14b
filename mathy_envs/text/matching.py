"""Matching: whether two texts of an env write the same expression.

People don't write how a chain of products is grouped, and mathy_core does not
print it: `3x(x + 1)` is mathy_core's `3 * x * (x + 1)` (grouped
`3 * (x * (x + 1))`), and `a * b * c` prints the same grouped either way. Two
texts **match** when their trees are the same once every chain of `*` is read
as one list of factors, in order (nothing is reordered: a swap is a move), and
they have the same exact value (`MathyEnv.has_same_value`). Sums keep their
grouping: mathy_core prints it (`2y + (4x + 3x)`), and regrouping a sum is a
move of its own.
"""

from typing import List, Sequence, Union

from mathy_core import (
    ConstantExpression,
    MathExpression,
    MultiplyExpression,
    VariableExpression,
)

from .._engine import parse
from ..env import MathyEnv

_UNWRITTEN = str.maketrans("", "", " ()*")
"""What a printed text of the same expression may differ by: spaces, grouping
parentheses and the `*` of a product."""


def loose_text(text: str) -> str:
    """`text` less spaces, parentheses and `*`: two texts that match have the
    same loose text (a quick test before `expression_key`)."""
    return text.translate(_UNWRITTEN)


def expression_key(env: MathyEnv, text: str) -> str:
    """A key of `text` (read by the env's parser) that two texts share exactly
    when their trees are the same but for the grouping of chains of `*`.
    `ValueError` when the env does not read `text`."""
    tree = parse(text, env.parser).tree
    out: List[str] = []
    pending: List[Union[str, MathExpression]] = [tree]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        if isinstance(item, ConstantExpression):
            out.append(repr(item.value))
            continue
        if isinstance(item, VariableExpression):
            out.append(str(item.identifier))
            continue
        kind = type(item)
        if kind is MultiplyExpression:
            operands = chain_operands(item, kind)
        else:
            operands = [child for child in (item.left, item.right) if child is not None]
        out.append(f"({kind.__name__}")
        pending.append(")")
        for operand in reversed(operands):
            pending.append(operand)
            pending.append(" ")
    return "".join(out)


def chain_operands(node: MathExpression, kind: type) -> List[MathExpression]:
    """The operands of the chain of `kind` nodes rooted at `node`, left to right."""
    operands: List[MathExpression] = []
    pending: List[MathExpression] = [node]
    while pending:
        item = pending.pop()
        if type(item) is kind:
            for child in (item.right, item.left):
                if child is not None:
                    pending.append(child)
        else:
            operands.append(item)
    return operands


def same_expression(env: MathyEnv, text: str, other: str) -> bool:
    """Whether `text` and `other` (texts the env reads) match: the same tree but
    for grouping, and the same exact value. False when either is out of the
    env's range."""
    try:
        printed = env.printed_text(text)
        return _matches(env, text, printed, loose_text(printed), other, env.printed_text(other))
    except (ValueError, RecursionError):
        return False


def first_match(env: MathyEnv, text: str, candidates: Sequence[str], exact: bool = False) -> int:
    """The index of the first of `candidates` (texts as the env prints them,
    such as move results) that matches `text`, or -1. With `exact`, only a
    candidate printed as `text` prints (and of its value) matches."""
    try:
        printed = env.printed_text(text)
    except (ValueError, RecursionError):
        return -1
    # Printed alike first: a candidate as written beats one regrouped.
    for loose in ("",) if exact else ("", loose_text(printed)):
        for index, candidate in enumerate(candidates):
            try:
                if _matches(env, text, printed, loose, candidate, candidate):
                    return index
            except (ValueError, RecursionError):
                continue
    return -1


def _matches(
    env: MathyEnv, text: str, printed: str, loose: str, other: str, other_printed: str
) -> bool:
    if other_printed != printed:
        if not loose or loose_text(other_printed) != loose:
            return False
        if expression_key(env, text) != expression_key(env, other):
            return False
    return env.has_same_value(text, other)


__all__ = ("chain_operands", "expression_key", "first_match", "loose_text", "same_expression")
