"""Action masks: which `(rule, node)` actions are valid in an expression.

An action is valid when the rule's `can_apply_to` accepts the node and its result
is an admissible text (see `mathy_envs.limits`) with the exact value of the
expression (see `mathy_envs.values`). Results of the core rules on safe
expressions (`ParsedExpression.safe`) are known to be both; every other action
is applied to a fresh copy of the tree and checked.
"""

from typing import Callable, Iterable, List, Optional, Sequence, Type

import numpy as np
import numpy.typing as npt
from mathy_core import BaseRule, MathExpression

from .lru import LRUCache
from .parsing import ExpressionCache, ParsedExpression, apply_rule
from .rules import CORE_RULE_TYPES
from .values import same_value

MaskArray = npt.NDArray[np.int8]
"""A `(num_rules, num_nodes)` 0/1 mask; nodes in action (in-order) order."""
MASK_CACHE_SIZE = 4096
"""Masks an env keeps, by expression text."""

FreshTree = Callable[[], MathExpression]
"""Returns a copy of the expression's tree that a check may change."""


def candidate_mask(
    rules: Sequence[BaseRule],
    nodes: Sequence[MathExpression],
    rule_types: Optional[Sequence[Type[BaseRule]]] = None,
) -> MaskArray:
    """`can_apply_to` of every rule at every node; with `rule_types`, the rows of
    rules of other types are zero."""
    allowed = tuple(rule_types) if rule_types is not None else None
    rows: List[List[int]] = []
    for rule in rules:
        if allowed is not None and not isinstance(rule, allowed):
            rows.append([0] * len(nodes))
            continue
        can_apply = rule.can_apply_to
        rows.append([1 if can_apply(node) else 0 for node in nodes])
    return np.asarray(rows, dtype=np.int8).reshape(len(rules), len(nodes))


def rows_to_check(rules: Sequence[BaseRule], parsed: ParsedExpression) -> Iterable[int]:
    """The rules whose results must be checked one by one: every rule on an
    expression that is not safe, else only rules outside `CORE_RULE_TYPES`."""
    if not parsed.safe:
        return range(len(rules))
    return [i for i, rule in enumerate(rules) if type(rule) not in CORE_RULE_TYPES]


def keeps_value(
    rule: BaseRule,
    node_index: int,
    parsed: ParsedExpression,
    expressions: ExpressionCache,
    fresh_tree: FreshTree,
) -> bool:
    """Whether applying `rule` at the node gives an admissible text with the exact
    value of `parsed`. Any failure of mathy_core while applying it (numpy errors
    on extreme constants, assertions) makes the action invalid."""
    try:
        with np.errstate(all="ignore"):
            change = apply_rule(fresh_tree(), rule, node_index, parsed.text)
            assert change.result is not None
            after = expressions.parse(str(change.result.get_root()))
    except Exception:
        return False
    return same_value(parsed.tree, after.tree, parsed.text)


def remove_unsound(
    rules: Sequence[BaseRule],
    mask: MaskArray,
    rows: Iterable[int],
    parsed: ParsedExpression,
    expressions: ExpressionCache,
    fresh_tree: FreshTree,
) -> None:
    """Zero the actions of `rows` whose result does not keep the value of
    `parsed` or is outside the supported range."""
    for rule_index in rows:
        rule = rules[rule_index]
        for node_index in np.flatnonzero(mask[rule_index]):
            if not keeps_value(rule, int(node_index), parsed, expressions, fresh_tree):
                mask[rule_index, node_index] = 0


def checked_mask(
    rules: Sequence[BaseRule],
    parsed: ParsedExpression,
    expressions: ExpressionCache,
    fresh_tree: FreshTree,
    rule_types: Optional[Sequence[Type[BaseRule]]] = None,
) -> MaskArray:
    """The mask of `parsed`: `candidate_mask`, less the actions whose result would
    be out of the supported range or change the expression's value."""
    mask = candidate_mask(rules, parsed.nodes, rule_types)
    remove_unsound(rules, mask, rows_to_check(rules, parsed), parsed, expressions, fresh_tree)
    return mask


class MaskCache:
    """Read-only masks by expression text, for one list of rule objects.

    `rules` is a plain list that callers may change in place (e.g.
    `env.rules[1] = CommutativeSwapRule(preferred=True)`); cached masks are only
    valid for the rule objects they were computed with, so a lookup with other
    rules empties the cache first.
    """

    def __init__(self, capacity: int = MASK_CACHE_SIZE) -> None:
        self._masks: LRUCache[str, MaskArray] = LRUCache(capacity)
        self._rules: List[BaseRule] = []

    def clear(self) -> None:
        self._masks.clear()

    def get(
        self, text: str, rules: List[BaseRule], compute: Callable[[], MaskArray]
    ) -> MaskArray:
        """The cached mask of `text`, or `compute()`'s, made read-only and kept."""
        if self._rules != rules:
            self._masks.clear()
            self._rules = list(rules)
        mask = self._masks.get(text)
        if mask is None:
            mask = compute()
            mask.flags.writeable = False
            self._masks.put(text, mask)
        return mask


__all__ = (
    "MASK_CACHE_SIZE",
    "MaskArray",
    "MaskCache",
    "candidate_mask",
    "checked_mask",
    "keeps_value",
    "remove_unsound",
    "rows_to_check",
)
