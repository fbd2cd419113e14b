"""The core rules: the default action set of every environment, in action order."""

from types import MappingProxyType
from typing import Callable, Dict, FrozenSet, Hashable, List, Mapping, Sequence, Tuple

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

from .parsing import CONSTANT_SHAPE_SYMBOLS, NO_SHAPE, SHAPE_SYMBOLS


def core_rules(preferred_term_commute: bool = False) -> List[BaseRule]:
    """Fresh instances of the seven core rules, in action order (rule index 0 to 6).

    `preferred_term_commute` lets commutative swap reorder terms already in the
    preferred `4x` form.
    """
    return [
        ConstantsSimplifyRule(),
        CommutativeSwapRule(preferred=preferred_term_commute),
        DistributiveMultiplyRule(),
        DistributiveFactorOutRule(),
        AssociativeSwapRule(),
        VariableMultiplyRule(),
        RestateSubtractionRule(),
    ]


CORE_RULE_TYPES: FrozenSet[type] = frozenset(type(rule) for rule in core_rules())
"""Rules whose results on a safe expression (`ParsedExpression.safe`) are known
to be exact and in range; every other rule's results are checked one by one."""


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


def whole_subtree(shapes: Sequence[str], children: Children, index: int) -> Hashable:
    """The key of an answer that depends on the node's whole subtree: its shape."""
    return shapes[index]


def sum_window(shapes: Sequence[str], children: Children, index: int) -> Hashable:
    """The key of a distributive factor-out answer at a node: each child's shape,
    except that a child which is itself a sum is told only by that type and by
    its own child next to the node (the right child of a left sum, the left child
    of a right sum). mathy_core 0.9's `DistributiveFactorOutRule.can_apply_to`
    reads nothing else: it looks for a term on each side of the node, stepping
    into a neighbouring sum only along that inner side, and is False at every node
    that is not a sum."""
    shape = shapes[index]
    if shape[0] != _SUM:
        return shape
    left_of, right_of = children
    # `]` and `[` open no shape, so a window equals a whole shape only when
    # neither child is a sum, and then it is that shape.
    left = left_of[index]
    left_key = shapes[left] if left >= 0 else NO_SHAPE
    if left_key[0] == _SUM:
        inner = right_of[left]
        left_key = "]" + (shapes[inner] if inner >= 0 else NO_SHAPE)
    right = right_of[index]
    right_key = shapes[right] if right >= 0 else NO_SHAPE
    if right_key[0] == _SUM:
        inner = left_of[right]
        right_key = "[" + (shapes[inner] if inner >= 0 else NO_SHAPE)
    return _SUM + left_key + right_key


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
    "CORE_RULE_TYPES",
    "EXPRESSION_TYPES",
    "SHAPE_KEYS",
    "Children",
    "ShapeKey",
    "constants_window",
    "sum_window",
    "whole_subtree",
    "core_rules",
)
