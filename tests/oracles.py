"""Independent oracles shared by the env and generator tests: the documented win
conditions, term facts, exact values and valid-move masks computed straight from
mathy_core, never from mathy_envs, so the tests can catch the library getting
them wrong."""

import math
from fractions import Fraction
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Type

import mpmath
import numpy as np
from mathy_core import (
    AbsExpression,
    AddExpression,
    BaseRule,
    ConstantExpression,
    DivideExpression,
    EqualExpression,
    ExpressionParser,
    FactorialExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SgnExpression,
    SubtractExpression,
    VariableExpression,
    get_terms,
    has_like_terms,
    is_preferred_term_form,
    terms_are_like,
)
from mathy_core.rules import DistributiveFactorOutRule

from helpers import CORE_RULE_TYPES, fresh_rules

PARSER = ExpressionParser()


def parse(text: str) -> MathExpression:
    """A fresh tree from mathy_core's own parser (not the library's cache)."""
    tree = PARSER.parse(text)
    # mathy_core's parser keeps every text it parsed: tens of thousands of trees
    # over a run, which slow every later garbage collection of the test process.
    PARSER.clear_cache()
    return tree


def simplified(tree: MathExpression) -> bool:
    """The documented "simplified", straight from mathy_core."""
    if has_like_terms(tree):
        return False
    return all(is_preferred_term_form(term) for term in get_terms(tree))


def like_pairs(terms: Sequence[MathExpression]) -> List[Tuple[int, int]]:
    """Index pairs of terms that mathy_core calls alike."""
    return [
        (i, j)
        for i in range(len(terms))
        for j in range(i + 1, len(terms))
        if terms_are_like(terms[i], terms[j])
    ]


def factor_out_anywhere(tree: MathExpression) -> bool:
    """Distributive factor out applies at some node."""
    rule = DistributiveFactorOutRule()
    return any(rule.can_apply_to(node) for node in tree.to_list("inorder"))


class Undefined(Exception):
    """The expression has no finite value at the point (division by zero...)."""


class TooHard(Exception):
    """Exact evaluation would be too large or is not rational (`2^0.5`)."""


Reading = Literal["decimal", "binary"]


def arithmetic(node: MathExpression, a: Any, b: Any) -> Any:
    """`a` and `b` (Fractions or mpmath numbers) added, subtracted, multiplied or
    divided, as `node` says; `TooHard` for other node types."""
    if isinstance(node, AddExpression):
        return a + b
    if isinstance(node, SubtractExpression):
        return a - b
    if isinstance(node, MultiplyExpression):
        return a * b
    if isinstance(node, DivideExpression):
        if b == 0:
            raise Undefined("division by zero")
        return a / b
    raise TooHard(type(node).__name__)


def exact_value(
    node: MathExpression, point: Dict[str, Fraction], reading: Reading = "decimal"
) -> Fraction:
    """The exact value of a tree with Python Fractions: a float constant read as
    its shortest decimal text ("decimal") or as the binary number it holds
    ("binary"). Raises `Undefined` or `TooHard`."""
    if isinstance(node, ConstantExpression):
        value = node.value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise Undefined(repr(value))
            return Fraction(repr(value)) if reading == "decimal" else Fraction(value)
        return Fraction(int(value))  # type: ignore[arg-type]
    if isinstance(node, VariableExpression):
        return point[str(node.identifier)]
    if isinstance(node, (NegateExpression, FactorialExpression, SgnExpression, AbsExpression)):
        child = node.left if node.left is not None else node.right
        assert child is not None
        inner = exact_value(child, point, reading)
        if isinstance(node, NegateExpression):
            return -inner
        if isinstance(node, SgnExpression):
            return Fraction((inner > 0) - (inner < 0))
        if isinstance(node, AbsExpression):
            return abs(inner)
        if inner.denominator != 1 or inner < 0:
            raise Undefined(f"{inner}!")
        if inner > 300:
            raise TooHard(f"{inner}!")
        return Fraction(math.factorial(int(inner)))
    assert node.left is not None and node.right is not None, type(node)
    a = exact_value(node.left, point, reading)
    b = exact_value(node.right, point, reading)
    if isinstance(node, EqualExpression):
        return a - b
    if not isinstance(node, PowerExpression):
        return arithmetic(node, a, b)
    if b.denominator != 1:
        if a < 0:
            raise Undefined("negative number to a fractional power")
        raise TooHard("fractional power")
    if a == 0 and b < 0:
        raise Undefined("0 to a negative power")
    if abs(b) > 64 and abs(a) != 1 and a != 0:
        raise TooHard("large exponent")
    return a ** int(b)


def random_points(
    tree: MathExpression, seed: int, count: int = 2
) -> List[Dict[str, Fraction]]:
    """`count` points with a random non-integer rational value per variable."""
    import random

    rng = random.Random(seed)
    names = sorted({str(v.identifier) for v in tree.find_type(VariableExpression)})
    return [
        {name: Fraction(rng.randint(1, 97), rng.randint(2, 31)) + rng.randint(-5, 5) for name in names}
        for _ in range(count)
    ]


def sides(tree: MathExpression) -> List[MathExpression]:
    """The sides of an equation (its value is the pair, in either order), or the
    expression itself."""
    if isinstance(tree, EqualExpression):
        assert tree.left is not None and tree.right is not None
        return [tree.left, tree.right]
    return [tree]


def _side_values(
    tree: MathExpression, point: Dict[str, Fraction], reading: Reading
) -> List[Fraction]:
    return sorted(exact_value(side, point, reading) for side in sides(tree))


def same_exact_value(before: MathExpression, after: MathExpression, seed: int) -> bool:
    """True when `after` has exactly the value of `before` at random points under
    both readings of float constants (points where `before` is undefined or too
    hard to evaluate are skipped). An equation's value is the pair of its sides."""
    names = {str(v.identifier) for v in after.find_type(VariableExpression)}
    names -= {str(v.identifier) for v in before.find_type(VariableExpression)}
    for point in random_points(before, seed):
        point.update({name: Fraction(7, 3) for name in names})
        for reading in ("decimal", "binary"):
            try:
                expected = _side_values(before, point, reading)  # type: ignore[arg-type]
            except (Undefined, TooHard):
                continue
            try:
                if _side_values(after, point, reading) != expected:  # type: ignore[arg-type]
                    return False
            except Undefined:
                return False
            except TooHard:
                continue
    return True


# -- a high-precision numeric oracle, for irrational values ----------------------

DIGITS = 120
"""Working precision of `numeric_value`, in decimal digits."""
AGREE = mpmath.mpf(10) ** -60
"""Two values agree when they differ by less than this, relative to the larger."""


def numeric_value(
    node: MathExpression, point: Dict[str, Fraction], reading: Reading = "decimal"
) -> "mpmath.mpf":
    """The real value of a tree at a point, to `DIGITS` digits, with mpmath
    (fractional powers of numbers >= 0 included). Raises `Undefined` where the
    expression has no real value, `TooHard` for factorials beyond 300!."""
    with mpmath.workdps(DIGITS):
        return _numeric(node, point, reading)


def _numeric(node: MathExpression, point: Dict[str, Fraction], reading: Reading) -> "mpmath.mpf":
    if isinstance(node, (ConstantExpression, VariableExpression)):
        exact = exact_value(node, point, reading)
        return mpmath.mpf(exact.numerator) / exact.denominator
    if isinstance(node, (NegateExpression, FactorialExpression, SgnExpression, AbsExpression)):
        child = node.left if node.left is not None else node.right
        assert child is not None
        inner = _numeric(child, point, reading)
        if isinstance(node, NegateExpression):
            return -inner
        if isinstance(node, SgnExpression):
            return mpmath.mpf(mpmath.sign(inner))
        if isinstance(node, AbsExpression):
            return abs(inner)
        whole = mpmath.nint(inner)
        if inner < 0 or abs(inner - whole) > AGREE:
            raise Undefined(f"{inner}!")
        if whole > 300:
            raise TooHard(f"{whole}!")
        return mpmath.mpf(math.factorial(int(whole)))
    assert node.left is not None and node.right is not None, type(node)
    a = _numeric(node.left, point, reading)
    b = _numeric(node.right, point, reading)
    if not isinstance(node, PowerExpression):
        return arithmetic(node, a, b)
    whole = mpmath.nint(b)
    if b == whole:
        if a == 0 and b < 0:
            raise Undefined("0 to a negative power")
        return a ** int(whole)
    if a < 0:
        raise Undefined("negative number to a fractional power")
    if a == 0 and b < 0:
        raise Undefined("0 to a negative power")
    return a**b


def agree(a: "mpmath.mpf", b: "mpmath.mpf") -> bool:
    scale = max(abs(a), abs(b), mpmath.mpf(1))
    return bool(abs(a - b) <= AGREE * scale)


def mixed_points(tree: MathExpression, seed: int, count: int = 4) -> List[Dict[str, Fraction]]:
    """`count` points with random non-integer rational values per variable: the
    first half positive, the rest of either sign."""
    import random

    rng = random.Random(seed)
    names = sorted({str(v.identifier) for v in tree.find_type(VariableExpression)})
    points = []
    for index in range(count):
        low = 1 if index < count // 2 else -6
        points.append(
            {name: Fraction(rng.randint(1, 97), rng.randint(2, 31)) + rng.randint(low, 5) for name in names}
        )
    return points


def same_numeric_value(before: MathExpression, after: MathExpression, seed: int) -> bool:
    """True when, at random points (and under both readings of float constants)
    where `before` has a real value, `after` has one too and they agree to 60
    digits. An equation's value is the pair of its sides."""
    names = {str(v.identifier) for v in after.find_type(VariableExpression)}
    names -= {str(v.identifier) for v in before.find_type(VariableExpression)}
    for point in mixed_points(before, seed):
        point.update({name: Fraction(7, 3) for name in names})
        for reading in ("decimal", "binary"):
            try:
                expected = sorted(numeric_value(side, point, reading) for side in sides(before))  # type: ignore[arg-type]
            except (Undefined, TooHard):
                continue
            try:
                got = sorted(numeric_value(side, point, reading) for side in sides(after))  # type: ignore[arg-type]
            except Undefined:
                return False
            except TooHard:
                continue
            if len(got) != len(expected) or not all(agree(x, y) for x, y in zip(got, expected)):
                return False
    return True


def undefined_everywhere(tree: MathExpression, seed: int) -> bool:
    """True when the tree has no real value at any of the random points."""
    for point in mixed_points(tree, seed, count=8):
        try:
            numeric_value(tree, point)
            return False
        except Undefined:
            continue
        except TooHard:
            return False
    return True


def keeps_value(text: str, rule: object, index: int) -> bool:
    """Whether mathy_core's `rule` applied at the `index`-th node (in-order) of
    `text` gives a text that parses back to the same exact value."""
    parser = ExpressionParser()
    try:
        tree = parser.parse(text)
        node = tree.to_list("inorder")[index]
        change = rule.apply_to(node)  # type: ignore[attr-defined]
        result = str(change.result.get_root())
        after = ExpressionParser().parse(result)
    except Exception:
        return False
    return same_exact_value(ExpressionParser().parse(text), after, seed=index)


def every_can_apply_to(rules: Sequence[object], tree: MathExpression) -> np.ndarray:
    """Each rule's `can_apply_to` at each node of `tree` in mathy_core's own
    in-order list: the mask before any result is checked, with no call skipped."""
    nodes = tree.to_list("inorder")
    return np.asarray(
        [[1 if rule.can_apply_to(node) else 0 for node in nodes] for rule in rules],  # type: ignore[attr-defined]
        dtype=np.int8,
    ).reshape(len(rules), len(nodes))


# -- masks --------------------------------------------------------------------------


def inorder_nodes(text: str) -> List[MathExpression]:
    """The nodes of a fresh parse of `text`, in mathy_core's in-order list."""
    return ExpressionParser().parse(text).to_list("inorder")


def expected_mask(text: str, rules: Optional[Sequence[BaseRule]] = None) -> List[List[int]]:
    """mathy_core's `can_apply_to`, less the actions whose result (by mathy_core)
    does not read back to the same exact value (fresh core rules by default)."""
    nodes = inorder_nodes(text)
    rules = fresh_rules() if rules is None else rules
    return [
        [
            1 if rule.can_apply_to(node) and keeps_value(text, rule, index) else 0
            for index, node in enumerate(nodes)
        ]
        for rule in rules
    ]


def only_action(text: str, rule_type: Type[BaseRule]) -> Tuple[int, int]:
    """The single node where a rule applies (asserting it is unique)."""
    rules = fresh_rules()
    index = CORE_RULE_TYPES.index(rule_type)
    row = expected_mask(text, rules)[index]
    columns = [i for i, ok in enumerate(row) if ok]
    assert len(columns) == 1, (text, rule_type, row)
    return index, columns[0]


# -- rewards ------------------------------------------------------------------------


def expected_win_signal(max_moves: int, moves_remaining: int) -> float:
    """The documented scoring, written out independently of the env."""
    t = max(float(max_moves), 3e-10)
    c = max(t - moves_remaining, 3e-10)
    bonus = 1.0 / c
    if t > 10 and c < t / 2:
        bonus *= 2
    return min(2.0, 1.0 + bonus)
