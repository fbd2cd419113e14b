"""The core rules: the default action set of every environment, in action order."""

from types import MappingProxyType
from typing import Callable, Dict, FrozenSet, Hashable, List, Mapping

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


def whole_subtree(shape: Hashable) -> Hashable:
    """The key of an answer that depends on the node's whole subtree: its shape."""
    return shape


def sum_window(shape: Hashable) -> Hashable:
    """The key of a distributive factor-out answer at a node: each child's shape,
    except that a child which is itself a sum is told only by that type and by
    its own child next to the node (the right child of a left sum, the left child
    of a right sum). mathy_core 0.9's `DistributiveFactorOutRule.can_apply_to`
    reads nothing else: it looks for a term on each side of the node, stepping
    into a neighbouring sum only along that inner side, and is False at every node
    that is not a sum."""
    if type(shape) is not tuple or shape[0] is not AddExpression:
        return shape
    _, left, right = shape
    # A child is None only in a hand-built sum missing it.
    if left is not None and left[0] is AddExpression:
        left = (AddExpression, left[2])
    if right is not None and right[0] is AddExpression:
        right = (AddExpression, right[1])
    return (AddExpression, left, right)


def constants_window(shape: Hashable) -> Hashable:
    """The key of a constant arithmetic answer at a node: its subtree's shape,
    except that a binary node whose left child is not a constant (nor, for a
    product, another product) is told only by its type and its left child's
    type. mathy_core 0.9's `ConstantsSimplifyRule.can_apply_to` tests the node's
    type and its left child's first, and each of its arrangements needs a
    constant on the left or a product of products: the answer at those nodes
    is False, and most sums are such nodes (`a + b + c` has a sum on its left)."""
    if type(shape) is tuple and len(shape) == 3:
        kind, left, _ = shape
        left_kind = left[0] if left is not None else None
        if left_kind is not ConstantExpression and not (
            kind is MultiplyExpression and left_kind is MultiplyExpression
        ):
            return (kind, left_kind)
    return shape


SHAPE_KEYS: Mapping[type, Callable[[Hashable], Hashable]] = MappingProxyType(
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
    "constants_window",
    "sum_window",
    "whole_subtree",
    "core_rules",
)
