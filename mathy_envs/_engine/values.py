"""Exact values of expressions, to check that a step keeps an expression's value.

mathy_core evaluates with floats and numpy integers, which round, wrap around and
turn division by zero into `nan`; its printer also drops parentheses that matter
(`1 / (x * y)` prints as `1 / x * y`). Here a tree is evaluated exactly, modulo the
prime `2**61 - 1`, at pseudo-random points derived from a seed: two expressions
that agree there are equal except with a vanishing probability, and any rounding,
wrap-around or lost parenthesis shows up as a difference. One bottom-up pass over
the tree does it (exponents are reduced by modular exponentiation, never
expanded), so a check costs time linear in the tree.

What is evaluated how:

- Constants are read two ways, as the decimal text they print as and as the
  binary float mathy_core holds; a step keeps the value only if it does under
  both. Subtrees without variables are also computed as exact fractions, so a
  rational power of a rational (`4^0.5`, `9^1.5`) and a factorial (up to
  `MAX_FACTORIAL!`) are exact.
- In a tree with a fractional power of a variable, a variable `x` stands for
  `t^ROOT_DENOMINATORS` for a pseudo-random `t`, so a power of a variable whose
  exponent's denominator divides `ROOT_DENOMINATORS` (`x^0.5`, `x^1.25`) is a
  power of `t`: `x * x^0.5` equals `x^1.5`. Degrees (in `t`) past `MAX_DEGREE`
  are refused: a polynomial of a degree near the prime could vanish everywhere.
- A result whose text reads back as another tree must be the same expression as
  the rule's tree with constants read as symbols (`same_expression`), so a zero
  factor can't hide the difference.
- Every other non-integer power, a power with a variable exponent, a function
  (`sgn`, `abs`), and a factorial of a variable term is an opaque value, a
  pseudo-random function of the exact value (or point value) of its arguments:
  `(1 + 1)^0.5` equals `2^0.5`, while `2^0.5 * 8^0.5` and `4` are told apart
  (refused as a step, although equal).
- An equation's value is the pair of its sides, in either order.

A text has no finite value when some point or some sign reasoning shows it:
division by zero, `0` to a negative power, a negative constant to a fractional
power, or a fractional power of a base that is negative for every value of its
variables (`(-1 - x^2)^0.5`).
"""

import hashlib
import math
from fractions import Fraction
from functools import lru_cache
from numbers import Integral
from typing import Any, Callable, Dict, List, Literal, Optional, Tuple, Union

from mathy_core import (
    AbsExpression,
    AddExpression,
    ConstantExpression,
    DivideExpression,
    EqualExpression,
    FactorialExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SgnExpression,
    SubtractExpression,
    VariableExpression,
)

from ..limits import quote
from .native import NativeExpression

PRIME = 2**61 - 1
MAX_FACTORIAL = 1000
"""The largest `n!` with a constant `n` that is evaluated."""
MAX_EXACT_BITS = 4096
"""The largest power of a constant (in bits of its exact value) that is evaluated."""
MAX_DEGREE = 2**45
"""The largest degree of a polynomial that is evaluated (in the `t` that each
variable is a power of): a nonzero one vanishes at a random point with a chance
below `MAX_DEGREE / PRIME`, about 1 in 65,000, and the two points must both miss."""
MAX_KEPT_BITS = 12288
"""Exact values of constant subtrees are kept up to this size (in bits); larger
ones are known modulo the prime only."""
ROOT_DENOMINATORS = 2**7 * 3**2 * 5**4 * 7
"""Powers of a variable are exact when their exponent's denominator divides this:
every exponent with up to four decimal places, and halves to ninths."""
POINTS = 2

Reading = Literal["decimal", "binary"]

# Possible signs of a value, as a bit set.
NEGATIVE, ZERO, POSITIVE = 1, 2, 4
ANY_SIGN = NEGATIVE | ZERO | POSITIVE


class Undefined(ValueError):
    """The expression has no finite value (division by zero, `0^-1`, `(-8)^0.5`)."""


Value = Tuple[int, Optional[Fraction], int, bool, int]
"""What evaluation knows of a subtree: its value modulo `PRIME` at the point, its
exact value (None when it has variables, is irrational or is too large), its
possible signs, whether it has no variables, and its degree as a polynomial in
the variables' `t` (an opaque value counts as one more variable)."""


def _sign_of(number: Fraction) -> int:
    return POSITIVE if number > 0 else NEGATIVE if number < 0 else ZERO


def _bits(signs: int) -> List[int]:
    return [bit for bit in (NEGATIVE, ZERO, POSITIVE) if signs & bit]


def _sum_sign(a: int, b: int) -> int:
    if a == ZERO:
        return b
    if b == ZERO:
        return a
    return a if a == b else ANY_SIGN


def _product_sign(a: int, b: int) -> int:
    if ZERO in (a, b):
        return ZERO
    return POSITIVE if a == b else NEGATIVE


def _table(combine: Callable[[int, int], int]) -> Tuple[Tuple[int, ...], ...]:
    """`combine` of single signs, lifted to sets of signs (indexed by bit sets)."""
    rows = []
    for a in range(8):
        row = []
        for b in range(8):
            signs = 0
            for x in _bits(a):
                for y in _bits(b):
                    signs |= combine(x, y)
            row.append(signs)
        rows.append(tuple(row))
    return tuple(rows)


_SUM = _table(_sum_sign)
_PRODUCT = _table(_product_sign)


def _negated(signs: int) -> int:
    return (signs & ZERO) | (NEGATIVE if signs & POSITIVE else 0) | (
        POSITIVE if signs & NEGATIVE else 0
    )


def _power_sign(signs: int, exponent: int) -> int:
    """Possible signs of a value of sign `signs` to a whole power."""
    if exponent == 0:
        return POSITIVE
    result = 0
    if signs & POSITIVE:
        result |= POSITIVE
    if signs & ZERO and exponent > 0:
        result |= ZERO
    if signs & NEGATIVE:
        result |= POSITIVE if exponent % 2 == 0 else NEGATIVE
    return result


def _to_field(value: Fraction) -> int:
    return value.numerator % PRIME * pow(value.denominator % PRIME, -1, PRIME) % PRIME


def constant_value(value: object, reading: Reading) -> Fraction:
    """A parsed constant's exact value: an int as it is; a float as its decimal
    text (`0.1` is 1/10) or as the binary number mathy_core computes with."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Undefined(f"constant {float.__repr__(value)} is not finite")
        if reading == "decimal":
            return Fraction(float.__repr__(value))
        return Fraction(float(value))
    raise Undefined(f"constant {quote(value, 40)} is not a number")


def _root(number: int, degree: int) -> Optional[int]:
    """The whole `degree`-th root of `number >= 0`, or None when it has none."""
    if number < 2:
        return number
    bits = number.bit_length()
    if degree >= bits:
        return None  # 1 < root < 2
    # Newton's method from above, on whole numbers.
    guess = 1 << -(-bits // degree)
    while True:
        better = ((degree - 1) * guess + number // guess ** (degree - 1)) // degree
        if better >= guess:
            break
        guess = better
    return guess if guess**degree == number else None


def rational_power(base: Fraction, exponent: Fraction) -> Optional[Fraction]:
    """`base ** exponent` when it is rational (`4^0.5`, `(9/4)^1.5`) and has at
    most `MAX_EXACT_BITS` bits, else None. `base` must be >= 0, and > 0 when the
    exponent is negative."""
    degree = exponent.denominator
    numerator = _root(base.numerator, degree)
    if numerator is None:
        return None
    denominator = _root(base.denominator, degree)
    if denominator is None:
        return None
    root = Fraction(numerator, denominator)
    return _whole_power(root, exponent.numerator)


def _whole_power(base: Fraction, exponent: int) -> Optional[Fraction]:
    """`base ** exponent`, or None when it has more than `MAX_EXACT_BITS` bits."""
    size = max(base.numerator.bit_length(), base.denominator.bit_length())
    if size > 1 and abs(exponent) * size > MAX_EXACT_BITS:
        return None
    return base**exponent


_UNARY_TYPES = (NegateExpression, FactorialExpression, AbsExpression, SgnExpression)



def _operands(
    node: MathExpression,
) -> Tuple[Optional[MathExpression], MathExpression, MathExpression]:
    """`(child, node, node)` for a unary node (its one operand), `(None, left,
    right)` for a binary one; `Undefined` for a node missing an operand."""
    left, right = node.left, node.right
    if (left is None) != (right is None) or isinstance(node, _UNARY_TYPES):
        child = left if left is not None else right
        if child is None:
            raise Undefined(f"{type(node).__name__} has no operand")
        return child, node, node
    if left is None or right is None:
        raise Undefined(f"{type(node).__name__} has no operands")
    return None, left, right

class _Evaluator:
    """Evaluates trees at one point: one value per variable name and per opaque
    subexpression, derived from `seed`.

    `symbolic` evaluation reads every constant as a pseudo-random symbol of its
    value (`0` included) instead of the value itself, so no factor is zero and
    nothing is computed from constants: two trees agree then only when they are
    the same expression up to the order of sums and products, whatever a zero
    factor would hide."""

    def __init__(
        self, seed: str, reading: Reading, symbolic: bool = False, roots: int = 1
    ) -> None:
        self.seed = seed
        self.reading = reading
        self.symbolic = symbolic
        self.roots = roots
        """Each variable is `t^roots` (see `root_denominators`)."""
        self._roots: Dict[str, int] = {}
        self._variables: Dict[str, int] = {}

    def _hash(self, key: str) -> int:
        digest = hashlib.blake2b(
            f"{self.seed}\x00{self.reading}\x00{key}".encode("utf-8"), digest_size=8
        ).digest()
        return int.from_bytes(digest, "big") % (PRIME - 1) + 1

    def _root_of(self, name: str) -> int:
        """The `t` of a variable, which stands for `t^roots`."""
        root = self._roots.get(name)
        if root is None:
            root = self._roots[name] = self._hash("var:" + name)
        return root

    def _variable(self, name: str) -> int:
        """The value of a variable at the point: `t^roots`."""
        value = self._variables.get(name)
        if value is None:
            value = self._variables[name] = pow(self._root_of(name), self.roots, PRIME)
        return value

    def _opaque(self, kind: str, *arguments: Value) -> int:
        """A pseudo-random function of the arguments' values: their exact values
        where known, else their values at the point."""
        parts = [kind]
        for field, exact, _, _, _ in arguments:
            parts.append(f"={exact}" if exact is not None else f"~{field}")
        return self._hash("\x01".join(parts))

    def _constant(self, value: object) -> Value:
        number = constant_value(value, self.reading)
        if self.symbolic:
            symbol = self._hash(f"constant:{abs(number)}")
            return (-symbol if number < 0 else symbol) % PRIME, None, _sign_of(number), True, 1
        return _to_field(number), number, _sign_of(number), True, 0

    def evaluate(self, node: MathExpression) -> Value:
        kind = type(node)
        # The commonest node types first, without the general dispatch below.
        if kind is AddExpression or kind is MultiplyExpression:
            left, right = node.left, node.right
            if left is not None and right is not None:
                fa, ea, sa, va, da = self.evaluate(left)
                fb, eb, sb, vb, db = self.evaluate(right)
                if kind is AddExpression:
                    exact = None if ea is None or eb is None else _kept(ea + eb)
                    return (fa + fb) % PRIME, exact, _SUM[sa][sb], va and vb, max(da, db)
                exact = None if ea is None or eb is None else _kept(ea * eb)
                return fa * fb % PRIME, exact, _PRODUCT[sa][sb], va and vb, _degree(node, da + db)
        elif kind is VariableExpression:
            name = str(node.identifier)  # type: ignore[attr-defined]
            return self._variable(name), None, ANY_SIGN, False, self.roots
        if isinstance(node, ConstantExpression):
            return self._constant(node.value)
        if isinstance(node, VariableExpression):
            return self._variable(str(node.identifier)), None, ANY_SIGN, False, self.roots
        child, left, right = _operands(node)
        if child is not None:
            return self._unary(node, self.evaluate(child))
        a = self.evaluate(left)
        b = self.evaluate(right)
        if isinstance(node, PowerExpression):
            return self._power(node, left, a, b)
        return self._binary(node, a, b)

    def _binary(self, node: MathExpression, a: Value, b: Value) -> Value:
        fa, ea, sa, va, da = a
        fb, eb, sb, vb, db = b
        exact: Optional[Fraction] = None
        if isinstance(node, AddExpression):
            if ea is not None and eb is not None:
                exact = _kept(ea + eb)
            return (fa + fb) % PRIME, exact, _SUM[sa][sb], va and vb, max(da, db)
        if isinstance(node, SubtractExpression):
            if ea is not None and eb is not None:
                exact = _kept(ea - eb)
            return (fa - fb) % PRIME, exact, _SUM[sa][_negated(sb)], va and vb, max(da, db)
        if isinstance(node, MultiplyExpression):
            if ea is not None and eb is not None:
                exact = _kept(ea * eb)
            return fa * fb % PRIME, exact, _PRODUCT[sa][sb], va and vb, _degree(node, da + db)
        if isinstance(node, DivideExpression):
            if eb == 0 or fb == 0 or sb == ZERO:
                raise Undefined(f"division by zero in {quote(str(node))}")
            if ea is not None and eb is not None:
                exact = _kept(ea / eb)
            field = fa * pow(fb, -1, PRIME) % PRIME
            return field, exact, _PRODUCT[sa][sb & ~ZERO], va and vb, _degree(node, da + db)
        if isinstance(node, EqualExpression):
            # The pair of sides, in either order, by their values at the point.
            low, high = sorted((fa, fb))
            return self._hash(f"=\x01{low}\x01{high}"), None, ANY_SIGN, va and vb, 1
        return self._opaque(type(node).__name__, a, b), None, ANY_SIGN, va and vb, 1

    def _unary(self, node: MathExpression, child: Value) -> Value:
        field, exact, signs, constant, degree = child
        if isinstance(node, NegateExpression):
            if self.symbolic and signs == ZERO and constant:
                return child  # -0 is 0, whichever way it is written
            negated = None if exact is None else -exact
            return -field % PRIME, negated, _negated(signs), constant, degree
        if isinstance(node, FactorialExpression):
            if constant and not self.symbolic:
                value = _factorial(exact, node)
                return _to_field(value), value, POSITIVE, True, 0
            return self._opaque("!", child), None, POSITIVE, constant, 1
        if exact is None and field == 0 and not self.symbolic:
            exact = Fraction(0)  # zero at a random point: zero, but for a vanishing chance
        if exact is not None and isinstance(node, AbsExpression):
            value = abs(exact)
            return _to_field(value), value, _sign_of(value), True, 0
        if exact is not None and isinstance(node, SgnExpression):
            value = Fraction((exact > 0) - (exact < 0))
            return _to_field(value), value, _sign_of(value), True, 0
        if isinstance(node, AbsExpression):
            signs = (signs & ZERO) | (POSITIVE if signs & (NEGATIVE | POSITIVE) else 0)
        elif not isinstance(node, SgnExpression):
            signs = ANY_SIGN
        return self._opaque(type(node).__name__, child), None, signs, constant, 1

    def _power(
        self, node: MathExpression, base_node: MathExpression, base: Value, power: Value
    ) -> Value:
        field, exact, signs, constant, degree = base
        exponent = power[1]
        if exponent is None:
            # A variable or irrational exponent.
            if (
                not self.symbolic
                and (exact == 0 or (exact is None and (field == 0 or signs == ZERO)))
                and PRIME - power[0] <= _SMALL
            ):
                # Zero to a small negative number at a random point (`x - x - 1`):
                # that number, but for a vanishing chance.
                raise Undefined(f"{quote(str(node))} is 0 to a negative power")
            result_signs = POSITIVE if signs == POSITIVE else ANY_SIGN
            return self._opaque("^", base, power), None, result_signs, constant and power[3], 1
        if exponent.denominator == 1:
            whole = int(exponent)
            if exact is not None:
                if exact == 0 and whole < 0:
                    raise Undefined(f"{quote(str(node))} divides by zero")
                value = _whole_power(exact, whole)
                if value is not None:
                    return _to_field(value), value, _sign_of(value), True, 0
            if (field == 0 or signs == ZERO) and whole < 0:
                raise Undefined(f"{quote(str(node))} divides by zero")
            power_degree = _degree(node, abs(whole) * degree)
            return pow(field, whole, PRIME), None, _power_sign(signs, whole), constant, power_degree
        # A fractional power: defined for a base >= 0 only (> 0 when negative).
        negative = exact is not None and exact < 0
        if exact is None and not self.symbolic and PRIME - field <= _SMALL:
            negative = True  # a small negative number at a random point: that number
        if not signs & (ZERO | POSITIVE) or negative:
            raise Undefined(f"{quote(str(node))} is a negative number to a fractional power")
        if exponent < 0 and (not signs & POSITIVE or exact == 0 or field == 0):
            # Zero, or zero where it is not negative: a division by zero.
            raise Undefined(f"{quote(str(node))} divides by zero")
        result_signs = POSITIVE | (signs & ZERO if exponent > 0 else 0)
        if exact is not None:
            root = rational_power(exact, exponent)
            if root is not None:
                return _to_field(root), root, _sign_of(root), True, 0
        elif type(base_node) is VariableExpression and self.roots % exponent.denominator == 0:
            steps = self.roots // exponent.denominator * exponent.numerator
            field = pow(self._root_of(str(base_node.identifier)), steps, PRIME)
            return field, None, result_signs, False, _degree(node, abs(steps))
        return self._opaque("root", base, power), None, result_signs, constant, 1


_SMALL = 2**20
"""A subtree with variables whose value at a random point is a small negative
number (`x - x - 1`) is that number, but for a vanishing chance."""


def _kept(value: Fraction) -> Optional[Fraction]:
    """`value`, or None when it has more than `MAX_KEPT_BITS` bits (it is then
    known modulo the prime only)."""
    if value.numerator.bit_length() > MAX_KEPT_BITS or value.denominator.bit_length() > MAX_KEPT_BITS:
        return None
    return value


def _degree(node: MathExpression, degree: int) -> int:
    """`degree`, or a `ValueError` past `MAX_DEGREE`."""
    if degree > MAX_DEGREE:
        raise ValueError(
            f"{quote(str(node), 80)} has a degree too large to evaluate exactly"
        )
    return degree


def _factorial(value: Optional[Fraction], node: MathExpression) -> Fraction:
    if value is None:
        raise ValueError(
            f"{quote(str(node))} is the factorial of a number that is irrational or "
            f"has more than MAX_EXACT_BITS={MAX_EXACT_BITS} bits"
        )
    if value.denominator != 1 or value < 0:
        raise Undefined(
            f"{quote(str(node))} is the factorial of {value}, not of a whole number >= 0"
        )
    if value > MAX_FACTORIAL:
        raise ValueError(
            f"{quote(str(node))}: factorials are evaluated up to {MAX_FACTORIAL}!"
        )
    return _factorial_of(int(value))


@lru_cache(maxsize=256)
def _factorial_of(number: int) -> Fraction:
    """`number!`, kept: a text repeats the same factorials in every check."""
    return Fraction(math.factorial(number))


def has_floats(tree: MathExpression) -> bool:
    """Whether a constant of the tree is a float whose two readings differ (`0.1`
    is not the binary number that holds it; `0.5` is)."""
    for node in tree.find_type(ConstantExpression):
        value = node.value
        if isinstance(value, float) and (
            not math.isfinite(value) or Fraction(float.__repr__(value)) != Fraction(float(value))
        ):
            return True
    return False


def readings(*trees: MathExpression) -> Tuple[Reading, ...]:
    """The readings trees are compared under: both when a float constant reads
    two ways."""
    return ("decimal", "binary") if any(has_floats(tree) for tree in trees) else ("decimal",)


def same_tree(first: MathExpression, second: MathExpression) -> bool:
    """Whether two trees are the same to the letter: node types, shapes,
    constants (and their types) and variable names. Such trees have one value."""
    pairs: List[Tuple[Optional[MathExpression], Optional[MathExpression]]] = [(first, second)]
    while pairs:
        a, b = pairs.pop()
        if a is None or b is None:
            if a is not b:
                return False
            continue
        if type(a) is not type(b):
            return False
        if isinstance(a, ConstantExpression):
            if type(a.value) is not type(b.value) or a.value != b.value:  # type: ignore[attr-defined]
                return False
        elif isinstance(a, VariableExpression):
            if a.identifier != b.identifier:  # type: ignore[attr-defined]
                return False
        pairs.append((a.left, b.left))
        pairs.append((a.right, b.right))
    return True


def root_denominators(tree: MathExpression) -> int:
    """`ROOT_DENOMINATORS` when the tree holds a power of a variable whose
    exponent is not a whole constant (`x^0.5`, `x^(1 + 0.5)`), else 1: variables
    are then plain values, and their polynomials' degrees stay small."""
    for node in tree.find_type(PowerExpression):
        exponent = node.right
        if type(node.left) is VariableExpression and not (
            type(exponent) is ConstantExpression and type(exponent.value) is int
        ):
            return ROOT_DENOMINATORS
    return 1


def point_values(
    tree: MathExpression,
    seed: str,
    reading: Reading,
    points: int = POINTS,
    roots: Optional[int] = None,
) -> Tuple[int, ...]:
    """The tree's value at each of the first `points` points of `seed`, with each
    variable `t^roots` (`root_denominators(tree)` when None). Raises `Undefined`
    when it has no finite value, `ValueError` when it is too large to evaluate."""
    if roots is None:
        roots = root_denominators(tree)
    return tuple(
        _Evaluator(f"{seed}\x00{point}", reading, roots=roots).evaluate(tree)[0]
        for point in range(points)
    )


class ValueCheck:
    """Compares trees with one expression (`before`), whose values are computed
    once per reading."""

    def __init__(
        self,
        before: Optional[MathExpression],
        seed: str,
        *,
        make_before: Optional[Callable[[], MathExpression]] = None,
        roots: Optional[int] = None,
    ) -> None:
        """A check against `before`, or (`before` None) against the tree
        `make_before()` makes when it is first needed; `roots`, when given, is
        that tree's `root_denominators`."""
        if before is None and make_before is None:
            raise ValueError("ValueCheck needs a tree or a function that makes it")
        self._tree = before
        self._make_tree = make_before
        self.seed = seed
        self._floats: Optional[bool] = None  # found on first use
        self._roots: Optional[int] = roots  # likewise
        self._values: Dict[Reading, Optional[Tuple[int, ...]]] = {}
        self._native: Optional[Tuple[List[List[int]], Optional[List[int]]]] = None

    def _before(self, reading: Reading) -> Optional[Tuple[int, ...]]:
        if reading not in self._values:
            try:
                self._values[reading] = point_values(
                    self.before, self.seed, reading, roots=self.roots
                )
            except ValueError:
                self._values[reading] = None
        return self._values[reading]

    @property
    def before(self) -> MathExpression:
        """The tree every other tree is compared with."""
        if self._tree is None:
            assert self._make_tree is not None
            self._tree = self._make_tree()
        return self._tree

    @property
    def roots(self) -> int:
        """`root_denominators` of `before`, which every tree is evaluated with."""
        if self._roots is None:
            self._roots = root_denominators(self.before)
        return self._roots

    def keeps_value(self, *after: MathExpression) -> bool:
        """Whether every tree of `after` has the value of `before`: False when one
        has no finite value (or is too large to evaluate), or `before` has none."""
        if self._floats is None:
            self._floats = has_floats(self.before)
        floats = self._floats or any(has_floats(tree) for tree in after)
        chosen: Tuple[Reading, ...] = ("decimal", "binary") if floats else ("decimal",)
        for reading in chosen:
            expected = self._before(reading)
            if expected is None:
                return False
            for tree in after:
                try:
                    if point_values(tree, self.seed, reading, roots=self.roots) != expected:
                        return False
                except ValueError:
                    return False
        return True

    def native_keeps_value(
        self, before: NativeExpression, after: NativeExpression
    ) -> Optional[bool]:
        """`keeps_value` of one tree computed by the native core: `before` is its
        parse of `self.before`'s text, `after` its parse of the tree to check
        (`Expression.point_values`, which gives this module's values exactly).
        None where either tree is outside its reach (floats, division, variable
        exponents...): ask `keeps_value`."""
        points, expected = self._native_expected(before)
        if expected is None:
            return None
        got = after.point_values(points, self.roots)
        return None if got is None else bool(got == expected)

    def native_keeps_rewrite(
        self, before: NativeExpression, rule: int, node: int, after: NativeExpression
    ) -> Optional[bool]:
        """For a rewrite whose printed text reads back as another tree: whether
        the tree core rule `rule` makes at `node` of `before` (the native core's
        parse of `self.before`'s text) and `after` (its parse of the printed
        text) are the same expression (`same_expression`) and both keep the
        value (`keeps_value`), computed by the native core; None where a tree is
        outside its reach."""
        points, expected = self._native_expected(before)
        if expected is None:
            return None
        prefix = f"{self.seed}\x00symbolic\x00decimal\x00"  # same_expression's keys
        made = before.rewrite_values(rule, node, points, self.roots, prefix)
        if made is None:
            return None
        own_values, own_symbol = made
        symbol = after.symbolic_value(prefix)
        if own_symbol is None or symbol is None:
            return None
        if own_symbol != symbol:
            return False
        got = after.point_values(points, self.roots)
        if got is None or own_values is None:
            return None
        return bool(got == expected and own_values == expected)

    def _native_expected(
        self, before: NativeExpression
    ) -> Tuple[List[List[int]], Optional[List[int]]]:
        """The points the native core evaluates at, and `before`'s values there
        (None where out of its reach), computed once."""
        if self._native is None:
            points = self._variable_points(before.variables())
            self._native = points, before.point_values(points, self.roots)
        return self._native

    def _variable_points(self, names: str) -> List[List[int]]:
        """The value of each variable of `names` at each of the `POINTS` points of
        the decimal reading, as the native core takes them: 52 slots, `a`-`z`
        then `A`-`Z`, 0 for a variable `before` does not have."""
        points: List[List[int]] = []
        for point in range(POINTS):
            evaluator = _Evaluator(f"{self.seed}\x00{point}", "decimal", roots=self.roots)
            slots = [0] * 52
            for name in names:
                slot = ord(name) - ord("a") if name.islower() else 26 + ord(name) - ord("A")
                slots[slot] = evaluator._variable(name)
            points.append(slots)
        return points


def same_expression(first: MathExpression, second: MathExpression, seed: str) -> bool:
    """Whether two trees are one expression up to the order and grouping of sums
    and products and the form of constants (`2.0` and `2`, `-3` and `-(3)`):
    compared with every constant read as a symbol, so that a zero factor can't
    hide a difference (`0 * 9^x^x` is not `0 * (9^x)^x`)."""
    try:
        values = [
            _Evaluator(f"{seed}\x00symbolic", "decimal", symbolic=True).evaluate(tree)[0]
            for tree in (first, second)
        ]
    except ValueError:
        return False
    return values[0] == values[1]


# -- ranges -----------------------------------------------------------------------

Bound = Union[Fraction, float]
"""An end of a range: a number, or `-math.inf` / `math.inf` where the range has
none."""
Range = Tuple[Bound, Bound]
"""The interval `[low, high]` that holds every value a subtree takes, over all the
values of its variables where it has one."""

_BOUND_BITS = 128
"""Ends of ranges are kept to this size (in bits), rounded outwards past it."""
_BIG = Fraction(2**64)


def _down(value: Bound) -> Bound:
    """`value`, or a smaller bound of at most `_BOUND_BITS` bits."""
    if isinstance(value, float) or max(
        value.numerator.bit_length(), value.denominator.bit_length()
    ) <= _BOUND_BITS:
        return value
    if value >= _BIG:
        return _BIG
    if value <= -_BIG:
        return -math.inf
    return Fraction(math.floor(value * _BIG), _BIG.numerator)


def _up(value: Bound) -> Bound:
    """`value`, or a larger bound of at most `_BOUND_BITS` bits."""
    low = _down(-value)
    return -low


def _times(a: Bound, b: Bound) -> Bound:
    """`a * b` of two ends, zero when either is zero (an unbounded factor is
    still finite everywhere)."""
    return Fraction(0) if a == 0 or b == 0 else a * b


def _product(a: Range, b: Range) -> Range:
    ends = [_times(x, y) for x in a for y in b]
    return _down(min(ends)), _up(max(ends))


def _reciprocal(a: Range, node: MathExpression) -> Range:
    """The range of `1 / v` for the nonzero values `v` of range `a`; `Undefined`
    when `a` holds zero only."""
    low, high = a
    if low == 0 and high == 0:
        raise Undefined(f"{quote(str(node))} divides by zero for every value")

    def inverse(end: Bound) -> Bound:
        return Fraction(0) if isinstance(end, float) else 1 / end

    if low > 0 or high < 0:
        return _down(inverse(high)), _up(inverse(low))
    if low == 0:
        return _down(inverse(high)), math.inf
    if high == 0:
        return -math.inf, _up(inverse(low))
    return -math.inf, math.inf


def _power_bound(base: Bound, exponent: int, up: bool) -> Bound:
    """A bound of `base ** exponent` (`base >= 0`, `exponent >= 1`) from above
    (`up`) or below, its ends rounded outwards as it is computed."""
    if isinstance(base, float):
        return base
    keep = _up if up else _down
    result: Bound = Fraction(1)
    while exponent:
        if exponent & 1:
            result = keep(_times(result, base))
        exponent >>= 1
        if exponent:
            base = keep(_times(base, base))
            if isinstance(base, float):
                return base if result != 0 else result
    return result


def _whole_power_range(a: Range, exponent: int) -> Range:
    """The range of `v ** exponent` (`exponent >= 1`) for `v` in range `a`."""
    low, high = a
    odd = exponent % 2 == 1
    if low >= 0:
        return _power_bound(low, exponent, False), _power_bound(high, exponent, True)
    top = _power_bound(-low, exponent, True)  # the largest magnitude below zero
    if high <= 0:
        bottom = _power_bound(-high, exponent, False)
        return (-top, -bottom) if odd else (bottom, top)
    highest = _power_bound(high, exponent, True)
    return (-top, highest) if odd else (Fraction(0), max(top, highest))


def _sign(end: Bound) -> Fraction:
    return Fraction((end > 0) - (end < 0))


class _Ranges:
    """The range of subtrees (interval arithmetic, over the reals), to find the
    subtrees that have no value for any value of their variables: a fractional
    power of a base that is negative for every value (`(sgn(x) - 2)^0.5`), zero
    to a power that is negative for every value (`0^(sgn(x) - 2)`), a division
    by a subtree that is zero for every value. Ranges hold every value, so what
    they refuse has none: no text with a value somewhere is refused. Constants
    are read both ways (`constant_value`), their range holding both. Ranges
    are kept per node, so each is computed once."""

    def __init__(self) -> None:
        self._known: Dict[int, Range] = {}

    def check(self, tree: MathExpression) -> None:
        """`Undefined` when a subtree of `tree` has no value for any value of its
        variables: the operands of every division, power other than a whole
        positive one, and factorial are ranged (not a variable or a constant
        alone, whose ranges show nothing the point evaluation does not). Only a
        tree with `sgn` or `abs` is ranged: the point evaluation takes their
        values as opaque, while the signs it reasons with show the rest but for
        a constant's margin (see `check_defined`)."""
        nodes = _nodes(tree)
        if not any(isinstance(node, _BOUNDED) for node in nodes):
            return
        for node in nodes:
            if isinstance(node, DivideExpression):
                if node.right is not None and not _leaf(node.right):
                    _reciprocal(self.range(node.right), node)
            elif isinstance(node, PowerExpression):
                if not _whole_positive(node.right) and not (
                    node.left is None or _leaf(node.left)
                ) or not (node.right is None or _leaf(node.right)):
                    self.range(node)
            elif isinstance(node, FactorialExpression):
                child = node.left if node.left is not None else node.right
                if child is not None and not _leaf(child):
                    self.range(node)

    def range(self, node: MathExpression) -> Range:
        known = self._known.get(id(node))
        if known is None:
            known = self._known[id(node)] = self._range(node)
        return known

    def _range(self, node: MathExpression) -> Range:
        kind = type(node)
        if kind is VariableExpression or isinstance(node, VariableExpression):
            return -math.inf, math.inf
        if isinstance(node, ConstantExpression):
            readings = [constant_value(node.value, reading) for reading in ("decimal", "binary")]
            return min(readings), max(readings)
        child, left, right = _operands(node)
        if child is not None:
            return self._unary(node, self.range(child))
        a, b = self.range(left), self.range(right)
        if isinstance(node, AddExpression):
            return _down(a[0] + b[0]), _up(a[1] + b[1])
        if isinstance(node, SubtractExpression):
            return _down(a[0] - b[1]), _up(a[1] - b[0])
        if isinstance(node, MultiplyExpression):
            return _product(a, b)
        if isinstance(node, DivideExpression):
            return _product(a, _reciprocal(b, node))
        if isinstance(node, PowerExpression):
            return self._power(node, a, b)
        return -math.inf, math.inf  # an equation, or a node of another kind

    def _unary(self, node: MathExpression, a: Range) -> Range:
        low, high = a
        if isinstance(node, NegateExpression):
            return -high, -low
        if isinstance(node, AbsExpression):
            if low >= 0:
                return a
            if high <= 0:
                return -high, -low
            return Fraction(0), max(-low, high)
        if isinstance(node, SgnExpression):
            return _sign(low), _sign(high)
        if isinstance(node, FactorialExpression):
            if high < 0:
                raise Undefined(
                    f"{quote(str(node))} is the factorial of a negative number for every value"
                )
            return Fraction(1), math.inf
        return -math.inf, math.inf

    def _power(self, node: MathExpression, base: Range, power: Range) -> Range:
        low, high = base
        exponent_low, exponent_high = power
        if exponent_low == exponent_high and isinstance(exponent_low, Fraction):
            exponent = exponent_low
            if exponent.denominator == 1:
                whole = int(exponent)
                if whole == 0:
                    return Fraction(1), Fraction(1)
                if whole > 0:
                    return _whole_power_range(base, whole)
                return _reciprocal(_whole_power_range(base, -whole), node)
            if low == high and isinstance(low, Fraction) and low > 0:
                root = rational_power(low, exponent)
                if root is not None:
                    return root, root
        if (
            not isinstance(exponent_low, float)
            and not isinstance(exponent_high, float)
            and math.ceil(exponent_low) > math.floor(exponent_high)
        ):
            # A fractional power for every value: defined for a base >= 0 only
            # (> 0 when the power is negative).
            if high < 0 or (high == 0 and exponent_high < 0):
                raise Undefined(
                    f"{quote(str(node))} is a negative number to a fractional power "
                    "for every value"
                )
            return Fraction(0), math.inf
        if low == 0 and high == 0 and exponent_high < 0:
            raise Undefined(f"{quote(str(node))} is 0 to a negative power for every value")
        return (Fraction(0), math.inf) if low > 0 else (-math.inf, math.inf)


_BOUNDED = (SgnExpression, AbsExpression)
"""The functions whose values ranges bound (the point evaluation can't)."""


def _nodes(tree: MathExpression) -> List[MathExpression]:
    """Every node of `tree`, without recursion."""
    nodes: List[MathExpression] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(child for child in (node.left, node.right) if child is not None)
    return nodes


def _leaf(node: MathExpression) -> bool:
    return isinstance(node, (ConstantExpression, VariableExpression))


def _whole_positive(node: Optional[MathExpression]) -> bool:
    """A constant that is a whole number >= 1 (a power of it is defined
    everywhere)."""
    if not isinstance(node, ConstantExpression):
        return False
    value = node.value
    return isinstance(value, (int, float)) and not isinstance(value, bool) and (
        math.isfinite(value) and value >= 1 and value == int(value)
    )


def check_defined(tree: MathExpression, text: str) -> None:
    """Raise `ValueError` when the expression has no finite value (division by
    zero, `0^-1`, a negative number to a fractional power...) or is too large to
    evaluate exactly. A text is refused when evaluating it at a point shows it
    (the signs, a zero divisor or a zero base to a negative power do not depend
    on the point), or when the ranges of its subtrees show it has no value for
    any value of its variables (`(sgn(x) - 2)^0.5`)."""
    try:
        # One point shows it: the signs, and a zero divisor, do not depend on it.
        for reading in readings(tree):
            point_values(tree, text, reading, points=1)
        _Ranges().check(tree)
    except Undefined as error:
        raise ValueError(f"the value of {quote(text)} is not finite: {error}") from None
    except ValueError as error:
        raise ValueError(f"the value of {quote(text)} cannot be evaluated exactly: {error}") from None


# -- domains ------------------------------------------------------------------------

Condition = Tuple[str, Tuple[int, ...]]
"""A condition a value must meet for an expression to have one: its kind
(`"nonzero"`, `"nonnegative"`, `"power"`: a power with a variable exponent is
defined, `"whole"`: a factorial's argument is a whole number >= 0) and what it
is about, known by values at each point (see `_Conditions`)."""


class _Recorder(_Evaluator):
    """An evaluator that keeps what it knows of every node it evaluates."""

    def __init__(self, seed: str, roots: int) -> None:
        super().__init__(seed, "decimal", roots=roots)
        self.known: Dict[int, Value] = {}

    def evaluate(self, node: MathExpression) -> Value:
        value = super().evaluate(node)
        self.known[id(node)] = value
        return value


class _Conditions:
    """The conditions under which a tree has a value: each division's divisor is
    nonzero, each base of a fractional power is >= 0 (and nonzero to a negative
    power), each base of a negative whole power is nonzero, each power with a
    variable exponent is defined, each factorial's argument is whole.

    A condition is known by the values it is about at the points of `seed`, as
    values are compared (each variable `t^roots`), so two trees share one when
    they ask it of the same value, whatever its form. A nonzero condition is
    split into its factors' (`x * y != 0` is `x != 0` and `y != 0`), and known
    by its value up to a constant factor (`2x + 2 != 0` is `x + 1 != 0`)."""

    def __init__(self, tree: MathExpression, seed: str, roots: int) -> None:
        self.recorders = [_Recorder(f"{seed}\x00{point}", roots) for point in range(POINTS)]
        for recorder in self.recorders:
            recorder.evaluate(tree)
        self.found: Dict[Condition, Tuple[MathExpression, MathExpression]] = {}
        """Each condition, with the node that asks it and the node it is about."""
        for node in _nodes(tree):
            self._conditions_of(node)

    def _value(self, node: MathExpression) -> Value:
        return self.recorders[0].known[id(node)]

    def _key(self, node: MathExpression) -> Tuple[int, ...]:
        return tuple(recorder.known[id(node)][0] for recorder in self.recorders)

    def _add(
        self, kind: str, key: Tuple[int, ...], asker: MathExpression, subject: MathExpression
    ) -> None:
        self.found.setdefault((kind, key), (asker, subject))

    def _conditions_of(self, node: MathExpression) -> None:
        left, right = node.left, node.right
        if isinstance(node, DivideExpression) and right is not None:
            self._nonzero(right, node)
        elif isinstance(node, PowerExpression) and left is not None and right is not None:
            exponent = self._value(right)[1]
            if exponent is None:
                if self._value(left)[2] != POSITIVE:
                    self._add("power", self._key(left) + self._key(right), node, node)
            elif exponent.denominator != 1:
                if self._value(left)[2] & NEGATIVE:
                    self._add("nonnegative", self._key(left), node, left)
                if exponent < 0:
                    self._nonzero(left, node)
            elif exponent < 0:
                self._nonzero(left, node)
        elif isinstance(node, FactorialExpression):
            child = left if left is not None else right
            if child is not None and not self._value(child)[3]:
                self._add("whole", self._key(child), node, child)

    def _nonzero(self, node: MathExpression, asker: MathExpression) -> None:
        """The nonzero conditions of `node`'s factors."""
        stack = [node]
        while stack:
            node = stack.pop()
            _, exact, signs, _, _ = self._value(node)
            if not signs & ZERO or (exact is not None and exact != 0):
                continue  # never zero
            left, right = node.left, node.right
            child = left if left is not None else right
            exponent = None if right is None else self._value(right)[1]
            if isinstance(node, MultiplyExpression) and left is not None and right is not None:
                stack += [left, right]
            elif isinstance(node, (NegateExpression, AbsExpression, SgnExpression)) and child:
                stack.append(child)
            elif isinstance(node, DivideExpression) and left is not None:
                stack.append(left)  # its divisor has a condition of its own
            elif isinstance(node, PowerExpression) and left is not None and exponent is not None:
                if exponent > 0:
                    stack.append(left)
                # x^0 is 1, and a negative power is never zero where it has a value.
            else:
                key = self._key(node)
                if key[0]:
                    # Up to a constant factor: the ratios of the values.
                    inverse = pow(key[0], -1, PRIME)
                    key = tuple(value * inverse % PRIME for value in key)
                self._add("nonzero", key, asker, node)


def narrowed_domain(
    before: MathExpression, after: MathExpression, seed: str, roots: Optional[int] = None
) -> Optional[str]:
    """None when `after` has a value wherever `before` has one, as far as their
    conditions tell (`_Conditions`): every condition of `after` is one of
    `before`'s. Else why not, naming the part of `after` that asks more (`x^2 /
    x` after `x`: `x` must be nonzero). The trees are evaluated at the points of
    `seed` with each variable `t^roots` (`root_denominators` of `before` when
    None, as `ValueCheck` compares them); trees that can't be are left to the
    value check (None)."""
    if roots is None:
        roots = root_denominators(before)
    try:
        conditions = _Conditions(before, seed, roots).found
        added = _Conditions(after, seed, roots).found
    except ValueError:
        return None
    for condition, (asker, subject) in added.items():
        if condition in conditions:
            continue
        part, about = quote(str(asker), 60), quote(str(subject), 60)
        kind = condition[0]
        if kind == "nonzero":
            return f"{part} needs {about} to be nonzero"
        if kind == "nonnegative":
            return f"{part} needs {about} to be >= 0"
        if kind == "whole":
            return f"{part} needs {about} to be a whole number >= 0"
        return f"{part} is a power with a variable exponent, not one of the first text's"
    return None


def same_value(before: MathExpression, after: MathExpression, seed: str) -> bool:
    """Whether two expressions have the same exact value, tested at `POINTS`
    points derived from `seed` under both readings of decimal constants. False
    when `after` has no finite value (or is too large to evaluate)."""
    return ValueCheck(before, seed).keeps_value(after)


def same_value_where_defined(
    before: MathExpression, after: MathExpression, seed: str
) -> Tuple[bool, int]:
    """`same_value`, and the `roots` it compared with; when `after` has a
    fractional power of a variable and `before` none, compared again with each
    variable a power of `t` as `after` needs (`x^3` and `x^2 * x^0.5 * x^0.5`
    are the same where both have a value), so that `narrowed_domain`, given
    those `roots`, can tell what `after` asks more."""
    check = ValueCheck(before, seed)
    if check.keeps_value(after):
        return True, check.roots
    roots = root_denominators(after)
    if roots == check.roots:
        return False, roots
    return ValueCheck(before, seed, roots=roots).keeps_value(after), roots


__all__ = (
    "MAX_EXACT_BITS",
    "MAX_DEGREE",
    "MAX_KEPT_BITS",
    "MAX_FACTORIAL",
    "POINTS",
    "PRIME",
    "ROOT_DENOMINATORS",
    "Undefined",
    "ValueCheck",
    "check_defined",
    "constant_value",
    "narrowed_domain",
    "has_floats",
    "point_values",
    "rational_power",
    "readings",
    "root_denominators",
    "same_expression",
    "same_tree",
    "same_value",
    "same_value_where_defined",
)
