"""Exact values of expressions, to check that a step keeps an expression's value.

mathy_core evaluates with floats and numpy integers, which round, wrap around and
turn division by zero into `nan`. Here an expression is evaluated exactly, modulo
the prime `2**61 - 1`, at pseudo-random points derived from a seed: two
expressions that agree there are equal as polynomials (rational functions) except
with a vanishing probability, and any rounding or wrap-around shows up as a
difference. Evaluation takes time linear in the tree (exponents are reduced by
modular exponentiation, never expanded).

Constants are read two ways, as the decimal text they print as and as the binary
float mathy_core holds; a step keeps the value only if it does under both.
Powers with a non-integer exponent (`x^0.5`), and functions such as `sgn`, are
opaque: equal when they print the same.
"""

import hashlib
import math
from fractions import Fraction
from typing import Callable, Dict, Literal, Tuple

from mathy_core import (
    AddExpression,
    ConstantExpression,
    DivideExpression,
    EqualExpression,
    FactorialExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)

from .limits import quote

PRIME = 2**61 - 1
MAX_FACTORIAL = 1000
"""The largest `n!` with a constant `n` that is evaluated."""
MAX_EXACT_BITS = 4096
"""The largest constant exponent (in bits of its exact value) that is evaluated."""
POINTS = 2

Reading = Literal["decimal", "binary"]


class Undefined(ValueError):
    """The expression has no finite value (division by zero, `0^-1`, `(-8)^0.5`)."""


class _Inexact(Exception):
    """A constant subexpression that has no exact rational value (`2^0.5`)."""


def _hash_to_field(seed: str, key: str) -> int:
    digest = hashlib.blake2b(f"{seed}\x00{key}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % (PRIME - 1) + 1


def constant_value(value: object, reading: Reading) -> Fraction:
    """A parsed constant's exact value: an int as it is; a float as its decimal
    text (`0.1` is 1/10) or as the binary number mathy_core computes with."""
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Undefined(f"constant {value!r} is not finite")
        return Fraction(repr(value)) if reading == "decimal" else Fraction(value)
    raise Undefined(f"constant {quote(value, 40)} is not a number")


def _to_field(value: Fraction) -> int:
    return value.numerator % PRIME * pow(value.denominator % PRIME, -1, PRIME) % PRIME


def exact_constant(node: MathExpression, reading: Reading) -> Fraction:
    """The exact value of a subtree without variables. Raises `Undefined` when it
    has none, `ValueError` when it is too large to compute, `_Inexact` when it is
    irrational (a non-integer power)."""
    if isinstance(node, ConstantExpression):
        return constant_value(node.value, reading)
    if isinstance(node, NegateExpression):
        return -exact_constant(_child(node), reading)
    if isinstance(node, FactorialExpression):
        return Fraction(_factorial_argument(_child(node), reading, node))
    left, right = node.left, node.right
    if left is None or right is None:
        raise _Inexact()
    a = exact_constant(left, reading)
    b = exact_constant(right, reading)
    if isinstance(node, AddExpression):
        return a + b
    if isinstance(node, SubtractExpression):
        return a - b
    if isinstance(node, MultiplyExpression):
        return a * b
    if isinstance(node, DivideExpression):
        if b == 0:
            raise Undefined(f"division by zero in {quote(str(node))}")
        return a / b
    if isinstance(node, PowerExpression):
        if b.denominator != 1:
            if a < 0:
                raise Undefined(f"{quote(str(node))} is a negative number to a fractional power")
            raise _Inexact()
        if a == 0 and b < 0:
            raise Undefined(f"{quote(str(node))} divides by zero")
        size = max(a.numerator.bit_length(), a.denominator.bit_length())
        if size > 1 and abs(b) * size > MAX_EXACT_BITS:
            raise ValueError(
                f"constant {quote(str(node))} is too large to evaluate exactly"
            )
        return a ** int(b)
    raise _Inexact()


def _child(node: MathExpression) -> MathExpression:
    child = node.left if node.left is not None else node.right
    if child is None:
        raise Undefined(f"{type(node).__name__} has no operand")
    return child


def _factorial_argument(child: MathExpression, reading: Reading, node: MathExpression) -> int:
    value = exact_constant(child, reading)
    if value.denominator != 1 or value < 0:
        raise Undefined(f"{quote(str(node))} is the factorial of {value}, not of a whole number >= 0")
    if value > MAX_FACTORIAL:
        raise ValueError(
            f"{quote(str(node))}: factorials are evaluated up to {MAX_FACTORIAL}!"
        )
    return int(value)


def _has_variables(node: MathExpression) -> bool:
    return bool(node.find_type(VariableExpression))


class _Evaluator:
    """Evaluates trees modulo `PRIME` at one point (one value per variable name
    and per opaque subexpression, derived from `seed`)."""

    def __init__(self, seed: str, reading: Reading) -> None:
        self.seed = seed
        self.reading = reading
        self._values: Dict[str, int] = {}

    def _symbol(self, key: str) -> int:
        value = self._values.get(key)
        if value is None:
            value = self._values[key] = _hash_to_field(self.seed, key)
        return value

    def _opaque(self, node: MathExpression) -> int:
        return self._symbol("opaque:" + str(node))

    def evaluate(self, node: MathExpression) -> int:
        if isinstance(node, ConstantExpression):
            return _to_field(constant_value(node.value, self.reading))
        if isinstance(node, VariableExpression):
            return self._symbol("var:" + str(node.identifier))
        if isinstance(node, NegateExpression):
            return -self.evaluate(_child(node)) % PRIME
        if isinstance(node, FactorialExpression):
            child = _child(node)
            if _has_variables(child):
                self.evaluate(child)
                return self._opaque(node)
            try:
                argument = _factorial_argument(child, self.reading, node)
            except _Inexact:
                return self._opaque(node)
            return math.factorial(argument) % PRIME
        left, right = node.left, node.right
        if left is None or right is None:
            # Functions (sgn, abs, ...): defined when their argument is.
            if left is not None or right is not None:
                self.evaluate(_child(node))
            return self._opaque(node)
        if isinstance(node, PowerExpression):
            return self._power(node, left, right)
        operation = _BINARY.get(type(node))
        a = self.evaluate(left)
        b = self.evaluate(right)
        if isinstance(node, DivideExpression):
            if b == 0:
                raise Undefined(f"division by zero in {quote(str(node))}")
            return a * pow(b, -1, PRIME) % PRIME
        if operation is None:
            return self._opaque(node)
        return operation(a, b) % PRIME

    def _power(
        self, node: MathExpression, left: MathExpression, right: MathExpression
    ) -> int:
        base = self.evaluate(left)
        if _has_variables(right):
            self.evaluate(right)
            return self._opaque(node)
        try:
            exponent = exact_constant(right, self.reading)
        except _Inexact:
            return self._opaque(node)
        if exponent.denominator != 1:
            if not _has_variables(left):
                try:
                    if exact_constant(left, self.reading) < 0:
                        raise Undefined(
                            f"{quote(str(node))} is a negative number to a fractional power"
                        )
                except _Inexact:
                    pass
            return self._opaque(node)
        if base == 0:
            if exponent < 0:
                raise Undefined(f"{quote(str(node))} divides by zero")
            return 1 if exponent == 0 else 0
        return pow(base, int(exponent), PRIME)


_BINARY: Dict[type, Callable[[int, int], int]] = {
    AddExpression: lambda a, b: a + b,
    SubtractExpression: lambda a, b: a - b,
    MultiplyExpression: lambda a, b: a * b,
    # An equation's value is its residual, left - right.
    EqualExpression: lambda a, b: a - b,
}


def _readings(*trees: MathExpression) -> Tuple[Reading, ...]:
    floats = any(
        isinstance(node.value, float)
        for tree in trees
        for node in tree.find_type(ConstantExpression)
    )
    return ("decimal", "binary") if floats else ("decimal",)


def check_defined(tree: MathExpression, text: str) -> None:
    """Raise `ValueError` when the expression has no finite value (division by
    zero, `0^-1`, a negative number to a fractional power...)."""
    try:
        for reading in _readings(tree):
            _Evaluator(text, reading).evaluate(tree)
    except ValueError as error:
        raise ValueError(f"the value of {quote(text)} is not finite: {error}") from None


def same_value(before: MathExpression, after: MathExpression, seed: str) -> bool:
    """Whether two expressions have the same exact value, tested at `POINTS`
    points derived from `seed` under both readings of decimal constants. False
    when `after` has no finite value (or is too large to evaluate) and `before`
    has one."""
    for reading in _readings(before, after):
        for point in range(POINTS):
            evaluator = f"{seed}\x00{point}"
            try:
                expected = _Evaluator(evaluator, reading).evaluate(before)
            except ValueError:
                return False
            try:
                if _Evaluator(evaluator, reading).evaluate(after) != expected:
                    return False
            except ValueError:
                return False
    return True


__all__ = (
    "MAX_EXACT_BITS",
    "MAX_FACTORIAL",
    "PRIME",
    "Undefined",
    "check_defined",
    "constant_value",
    "exact_constant",
    "same_value",
)
