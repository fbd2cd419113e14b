"""The core rules: the default action set of every environment, in action order."""

from typing import Dict, FrozenSet, List

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


SUBTREE_RULE_TYPES: FrozenSet[type] = frozenset(
    {ConstantsSimplifyRule, DistributiveFactorOutRule, VariableMultiplyRule}
)
"""Core rule types whose `can_apply_to` reads only the node's subtree (the node, its
descendants and their links to each other, never the node's parent), and whose
answers cost more to compute than to look up: masks keep them by subtree shape
(`NodeLayout.shapes`) for the next expression holding the same subtree. The tests
check the kept answers against asking the rule on every state seeded random play
reaches."""


__all__ = (
    "APPLICABLE_NODE_TYPES",
    "CORE_RULE_TYPES",
    "EXPRESSION_TYPES",
    "SUBTREE_RULE_TYPES",
    "core_rules",
)
