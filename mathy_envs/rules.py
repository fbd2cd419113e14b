"""The core rules: the default action set of every environment, in action order."""

from typing import FrozenSet, List

from mathy_core import BaseRule
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


__all__ = ("CORE_RULE_TYPES", "core_rules")
