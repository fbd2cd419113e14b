"""The core rules: the default action set of every environment, in action order."""

from types import MappingProxyType
from typing import (
    Callable,
    Dict,
    FrozenSet,
    Hashable,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Type,
)

from mathy_core import (
    AbsExpression,
    AddExpression,
    BaseRule,
    ConstantExpression,
    DivideExpression,
    EqualExpression,
    FactorialExpression,
    FunctionExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SgnExpression,
    SubtractExpression,
    VariableExpression,
)
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from .shapes import (
    CONSTANT_SHAPE_SYMBOLS,
    INTEGER_SHAPE_SYMBOL,
    NO_SHAPE,
    SHAPE_SYMBOLS,
    VARIABLE_SHAPE_SYMBOL,
)


class CoreRule(NamedTuple):
    """One row of the core rule table (`CORE_RULE_TABLE`)."""

    kind: Type[BaseRule]
    """mathy_core's class of the rule. Its `__name__` is the row's name, by which
    the native core names the rule it implements at this index
    (`mathy_envs._native.CORE_RULE_NAMES`)."""
    preference: Optional[str] = None
    """The keyword (and attribute) of the rule's one setting a user may change,
    given `core_rules`' `preferred_term_commute`, or None: the native core takes
    that setting as an argument. Every other setting is mathy_core's default."""


CORE_RULE_TABLE: Tuple[CoreRule, ...] = (
    CoreRule(ConstantsSimplifyRule),
    CoreRule(CommutativeSwapRule, preference="preferred"),
    CoreRule(DistributiveMultiplyRule),
    CoreRule(DistributiveFactorOutRule),
    CoreRule(AssociativeSwapRule),
    CoreRule(VariableMultiplyRule),
    CoreRule(RestateSubtractionRule),
)
"""The core rules, in action order (row `i` is rule index `i`): the only place in
Python that states their order, names and settings. The native core states its
own (native/expression.hpp's `CoreRule`) and `mathy_envs._engine.native` refuses
a compiled core whose names (`CORE_RULE_NAMES`) differ."""

CORE_RULE_NAMES: Tuple[str, ...] = tuple(row.kind.__name__ for row in CORE_RULE_TABLE)
"""The name of each core rule (its mathy_core class's name), in action order."""


def core_rules(preferred_term_commute: bool = False) -> List[BaseRule]:
    """Fresh instances of the core rules, in action order (rule index `i` is row
    `i` of `CORE_RULE_TABLE`).

    `preferred_term_commute` lets commutative swap reorder terms already in the
    preferred `4x` form.
    """
    return [
        row.kind() if row.preference is None else row.kind(**{row.preference: preferred_term_commute})
        for row in CORE_RULE_TABLE
    ]


CORE_RULE_TYPES: FrozenSet[type] = frozenset(row.kind for row in CORE_RULE_TABLE)
_CORE_ORDER: Tuple[Type[BaseRule], ...] = tuple(row.kind for row in CORE_RULE_TABLE)
_CORE_METHODS = tuple(kind.can_apply_to for kind in _CORE_ORDER)
_CORE_APPLY = tuple(kind.apply_to for kind in _CORE_ORDER)
_CORE_SETTINGS: Tuple[Dict[str, object], ...] = tuple(
    dict(vars(rule)) for rule in core_rules()
)


COMMUTE_INDEX: int = next(
    index for index, row in enumerate(CORE_RULE_TABLE) if row.preference is not None
)
"""The action index of commutative swap among the core rules: the one rule with a
setting a user may change (`CoreRule.preference`)."""
_PREFERENCE: str = CORE_RULE_TABLE[COMMUTE_INDEX].preference or ""
_PREFERRING: Type[BaseRule] = CORE_RULE_TABLE[COMMUTE_INDEX].kind


def are_core_rules(rules: Sequence[BaseRule]) -> bool:
    """Whether `rules` are the core rules in action order as `core_rules`
    makes them: each of its own class (no subclass), with its class's
    `can_apply_to` and `apply_to` and no attribute of its own but mathy_core's settings, which
    are the defaults but for commutative swap's `preferred` (read at each use)."""
    if len(rules) != len(_CORE_ORDER):
        return False
    for rule, kind, method, apply, settings in zip(
        rules, _CORE_ORDER, _CORE_METHODS, _CORE_APPLY, _CORE_SETTINGS
    ):
        if type(rule) is not kind or kind.can_apply_to is not method or kind.apply_to is not apply:
            return False
        own = rule.__dict__
        if kind is _PREFERRING:  # its setting a user may change is read at each use
            if own.keys() != settings.keys():
                return False
        elif own != settings:  # equal dicts have equal keys
            return False
    return True


def commute_preference(rules: Sequence[BaseRule]) -> Optional[bool]:
    """Commutative swap's `preferred` setting when `rules` are the core rules
    (`are_core_rules`) and it is a bool, else None: the one setting of the core
    rules a user may change, which the native core takes as an argument."""
    if not are_core_rules(rules):
        return None
    return core_preference(rules)


def core_preference(rules: Sequence[BaseRule]) -> Optional[bool]:
    """`commute_preference` of rules that `are_core_rules` was just asked
    about and holds of: commutative swap's `preferred` when it is a bool,
    else None."""
    preferred = getattr(rules[COMMUTE_INDEX], _PREFERENCE, None)
    return preferred if type(preferred) is bool else None


EXPRESSION_TYPES: FrozenSet[type] = frozenset(
    {
        AbsExpression,
        AddExpression,
        ConstantExpression,
        DivideExpression,
        EqualExpression,
        FactorialExpression,
        FunctionExpression,
        MultiplyExpression,
        NegateExpression,
        PowerExpression,
        SgnExpression,
        SubtractExpression,
        VariableExpression,
    }
)
"""The node types mathy_core's parser builds."""

_BINARY_TYPES = frozenset(
    {
        AddExpression,
        DivideExpression,
        EqualExpression,
        MultiplyExpression,
        PowerExpression,
        SubtractExpression,
    }
)

APPLICABLE_NODE_TYPES: Dict[type, FrozenSet[type]] = {
    # `a + b` or `a * b` under a parent of the same operation.
    AssociativeSwapRule: frozenset({AddExpression, MultiplyExpression}),
    CommutativeSwapRule: frozenset({AddExpression, EqualExpression, MultiplyExpression}),
    # Any binary operation on constants, or the negation of one.
    ConstantsSimplifyRule: _BINARY_TYPES | {NegateExpression},
    DistributiveFactorOutRule: frozenset({AddExpression}),
    # A product with a sum on one side.
    DistributiveMultiplyRule: frozenset({MultiplyExpression}),
    # `a - b`, or `a + -b` (restated as a subtraction).
    RestateSubtractionRule: frozenset({AddExpression, SubtractExpression}),
    VariableMultiplyRule: frozenset({MultiplyExpression}),
}
"""For each core rule type, the node types (of `EXPRESSION_TYPES`) its
`can_apply_to` can accept: each of these rules first tests the type of the node
(and of its children), and is False at the other types. Masks ask a core rule only
about nodes of these types, and about nodes of types mathy_core's parser does not
build; the tests check the table against asking every rule about every node."""


Children = Tuple[Sequence[int], Sequence[int]]
ShapeKey = Callable[[Sequence[str], Children, int], Hashable]
"""A function of a layout's `shapes` (not None) and `children` and of a node's
in-order index that gives the key a rule's answer at the node is kept under."""

_BINARY_SYMBOLS = frozenset(SHAPE_SYMBOLS.values())
_SUM = SHAPE_SYMBOLS[AddExpression]
_PRODUCT = SHAPE_SYMBOLS[MultiplyExpression]
_INTEGER = INTEGER_SHAPE_SYMBOL
_ZERO = _INTEGER + "0"
_VARIABLE = VARIABLE_SHAPE_SYMBOL


def whole_subtree(shapes: Sequence[str], children: Children, index: int) -> Hashable:
    """The key of an answer that depends on the node's whole subtree: its shape."""
    return shapes[index]


def sum_window(shapes: Sequence[str], children: Children, index: int) -> Hashable:
    """The key of a distributive factor-out answer at a node: what mathy_core
    0.9's `DistributiveFactorOutRule.can_apply_to` reads there, written so that
    equal keys get equal answers. It is False at every node that is not a sum
    (the key of those is their shape). At a sum it looks on each side for a term
    (`get_term_ex`): the child, or if the child is a sum, that sum's child next to
    the node, or if that is a sum too, its child next to the node in turn. The
    key has, for each side, a mark per sum stepped into (`]` on the left, `[` on
    the right) and the shape of the node reached (`+` for a third sum, of which
    nothing is read), with two changes that keep the answer:

    - a product with a whole constant other than 0 (of at most
      `_COLLAPSED_DIGITS` digits) on its left is written `*#` and the shape of
      its right side. As a term (`4x`, `4x^2`) it has a variable, so
      `factor_add_terms_ex` takes the smallest common factor of the two
      coefficients, which is 1 for any two such constants, and the answer is
      whether both terms have the same variable and exponent; any other product
      is no term and its constant is never read;
    - a side with one variable (every term has at most one) names it `a`, or on
      the right `a` too if it is the left side's and else `b`: the rule only
      compares the names of the two terms it finds, and reads nothing but the
      structure of a side that is no term.
    """
    shape = shapes[index]
    if shape[0] != _SUM:
        return shape
    left_of, right_of = children
    left = _side_window(shapes, left_of, right_of, left_of[index], right_of, "]")
    right = _side_window(shapes, left_of, right_of, right_of[index], left_of, "[")
    variable = _VARIABLE
    name = ""
    at = left.find(variable) + 1
    if at and left.find(variable, at) < 0:
        name = left[at]
        left = left[:at] + "a" + left[at + 1 :]
    at = right.find(variable) + 1
    if at and right.find(variable, at) < 0:
        right = right[:at] + ("a" if right[at] == name else "b") + right[at + 1 :]
    return _SUM + left + right


_COLLAPSED_DIGITS = 15
"""The longest coefficient a factor-out key leaves out: mathy_core factors any
whole number this size (numpy takes its square root as a float)."""


def _side_window(
    shapes: Sequence[str],
    left_of: Sequence[int],
    right_of: Sequence[int],
    index: int,
    inner_of: Sequence[int],
    mark: str,
) -> str:
    """One side of a `sum_window`: the side's child is `index`, and `inner_of`
    gives each sum's child next to the node (`mark` notes each step into one)."""
    window = ""
    while index >= 0:
        shape = shapes[index]
        symbol = shape[0]
        if symbol == _SUM:
            if len(window) == 2:
                return window + _SUM
            window += mark
            index = inner_of[index]
            continue
        if symbol == _PRODUCT:
            coefficient = left_of[index]
            factor = right_of[index]
            if coefficient >= 0 and factor >= 0:
                coefficient_shape = shapes[coefficient]
                if (
                    coefficient_shape[0] == _INTEGER
                    and coefficient_shape != _ZERO
                    # `#`, a sign if negative, then the digits.
                    and len(coefficient_shape)
                    <= _COLLAPSED_DIGITS + 1 + (coefficient_shape[1] == "-")
                ):
                    # `#` is otherwise always followed by digits or a sign.
                    return window + _PRODUCT + _INTEGER + shapes[factor]
        return window + shape
    return window + NO_SHAPE


def constants_window(shapes: Sequence[str], children: Children, index: int) -> Hashable:
    """The key of a constant arithmetic answer at a node: its subtree's shape,
    except that a binary node whose left child is not a constant (nor, for a
    product, another product) is told only by its type and its left child's
    type. mathy_core 0.9's `ConstantsSimplifyRule.can_apply_to` tests the node's
    type and its left child's first, and each of its arrangements needs a
    constant on the left or a product of products: the answer at those nodes
    is False, and most sums are such nodes (`a + b + c` has a sum on its left)."""
    shape = shapes[index]
    symbol = shape[0]
    if symbol in _BINARY_SYMBOLS:
        left = children[0][index]
        # The first character of a shape tells the node's type; two characters
        # are never a whole binary node's shape.
        left_symbol = shapes[left][0] if left >= 0 else NO_SHAPE
        if left_symbol not in CONSTANT_SHAPE_SYMBOLS and not (
            symbol == _PRODUCT and left_symbol == _PRODUCT
        ):
            return symbol + left_symbol
    return shape


SHAPE_KEYS: Mapping[type, ShapeKey] = MappingProxyType(
    {
        ConstantsSimplifyRule: constants_window,
        DistributiveFactorOutRule: sum_window,
        VariableMultiplyRule: whole_subtree,
    }
)
"""Core rule types whose `can_apply_to` reads only the node's subtree (the node, its
descendants and their links to each other, never the node's parent), and whose
answers cost more to compute than to look up, each with the key its answers are
kept under, computed from the node's subtree shape (`NodeLayout.shapes`): masks
reuse an answer for the next node, in this or another expression, whose key is
equal. The tests check the kept answers against asking the rule on every state
seeded random play reaches."""


__all__ = (
    "APPLICABLE_NODE_TYPES",
    "COMMUTE_INDEX",
    "commute_preference",
    "core_preference",
    "CORE_RULE_NAMES",
    "CORE_RULE_TABLE",
    "CORE_RULE_TYPES",
    "CoreRule",
    "EXPRESSION_TYPES",
    "SHAPE_KEYS",
    "Children",
    "ShapeKey",
    "constants_window",
    "sum_window",
    "whole_subtree",
    "core_rules",
)
