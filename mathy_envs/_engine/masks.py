"""Action masks: which `(rule, node)` actions are valid in an expression.

An action is valid when the rule's `can_apply_to` accepts the node and its result
is an admissible text (see `mathy_envs.limits`) with the exact value of the
expression (see `mathy_envs._engine.values`). Results of the core rules on safe
expressions (`ParsedExpression.safe`) are known to be both; every other action
is applied to a fresh copy of the tree and checked.
"""

from typing import Any, Callable, Dict, Hashable, Iterable, List, Optional, Sequence, Tuple, Type

import numpy as np
import numpy.typing as npt
from mathy_core import BaseRule, MathExpression

from .._support.frozen import frozen, is_frozen
from .._support.lru import LRUCache, Memo
from .parse_cache import ExpressionCache
from .expressions import ParsedExpression
from .layout import NodeLayout
from .native import NativeExpression
from .tree_edits import apply_rule
from .admission import MOVE_LIMITS
from .rules import (
    APPLICABLE_NODE_TYPES,
    are_core_rules,
    commute_preference,
    core_preference,
    CORE_RULE_TYPES,
    EXPRESSION_TYPES,
    SHAPE_KEYS,
    Children,
    ShapeKey,
)
from .values import ROOT_DENOMINATORS, ValueCheck, same_expression, same_tree

MaskArray = npt.NDArray[np.int8]
"""A `(num_rules, num_nodes)` 0/1 mask; nodes in action (in-order) order."""
MASK_CACHE_SIZE = 16384
"""Masks an env keeps, by expression text."""

FreshTree = Callable[[], MathExpression]
"""Returns a copy of the expression's tree that a check may change."""


RuleCheck = Tuple[int, Callable[[MathExpression], bool], Optional[ShapeKey]]
"""A rule's row in the mask, its `can_apply_to`, and the key its answers are kept
under (from the node's subtree shape), or None when they are not kept."""
SHAPE_MEMORY_SIZE = 8192
"""Answers a sweep keeps by subtree shape."""


class Sweep:
    """`can_apply_to` of every rule at every node, for one list of rules, without
    the calls whose answer is known:

    - a core rule is not asked about a node of a type it can never apply to
      (`APPLICABLE_NODE_TYPES`); other rules, and nodes of types mathy_core's
      parser does not build, are always asked;
    - a rule of a type in `SHAPE_KEYS` (exactly that type, not a subclass) is
      asked once per key, which its `SHAPE_KEYS` entry computes from the node's
      subtree shape (`NodeLayout.shapes`): its answer is kept for every later node
      with the same key, in this or another expression.

    With `rule_types`, the rows of rules of other types are zero.

    When the rules are exactly the seven core rules in action order (their own
    classes, unpatched, with mathy_core's settings but commutative swap's
    `preferred`: `native_rules`), an expression the native core parsed
    (`ParsedExpression.native`) gets its mask from the native core instead
    (`native_mask`, which `checked_mask` asks first), which answers as mathy_core's
    `can_apply_to` does (tests/_engine/test_native_parse.py proves it on every sample).
    """

    def __init__(
        self,
        rules: Sequence[BaseRule],
        rule_types: Optional[Sequence[Type[BaseRule]]] = None,
    ) -> None:
        allowed = tuple(rule_types) if rule_types is not None else None
        self.rules: List[BaseRule] = list(rules)
        self._asked = [
            (
                index,
                rule.can_apply_to,
                APPLICABLE_NODE_TYPES.get(type(rule)),
                SHAPE_KEYS.get(type(rule)),
            )
            for index, rule in enumerate(self.rules)
            if allowed is None or isinstance(rule, allowed)
        ]
        self.settings = _settings_of(self.rules)
        """Each rule's attributes (its settings) when the sweep was made."""
        self._checks: Dict[type, Tuple[RuleCheck, ...]] = {}
        self._answers: Memo[Tuple[int, Hashable], bool] = Memo(SHAPE_MEMORY_SIZE)
        self._core = allowed is None and are_core_rules(self.rules)

    def made_for(self, rules: Sequence[BaseRule]) -> bool:
        """Whether the sweep was made for `rules`: the same rule objects, in the
        same order, each with the settings (attributes) it has now."""
        if self.rules != rules:
            return False
        now = [getattr(rule, "__dict__", None) for rule in rules]
        try:
            return now == self.settings  # one comparison in C, the hot path
        except Exception:  # a setting whose == has no single truth value (an array)
            return all(_same_settings(a, b) for a, b in zip(now, self.settings))

    def checks(self, node_type: type) -> Tuple[RuleCheck, ...]:
        """The rules to ask about a node of `node_type`."""
        checks = self._checks.get(node_type)
        if checks is None:
            known = node_type in EXPRESSION_TYPES
            checks = tuple(
                (index, can_apply, shape_key)
                for index, can_apply, applicable, shape_key in self._asked
                if applicable is None or not known or node_type in applicable
            )
            # Filled once per node type; a race only computes the same tuple twice.
            self._checks[node_type] = checks
        return checks

    def native_rules(self, native: Optional[NativeExpression]) -> bool:
        """Whether the native core answers for these rules on an expression it
        parsed (`native`, `ParsedExpression.native`): the rules are the core
        rules. Asked each time: a rule's settings may have been changed since the
        sweep was made."""
        return native is not None and self._core and are_core_rules(self.rules)

    def native_mask(self, native: NativeExpression, count: int) -> Optional[MaskArray]:
        """The mask of an expression of `count` nodes the native core parsed
        (`native`), from the native core, for rules of which `native_rules` holds;
        None where commutative swap's `preferred` is not a bool."""
        preferred = commute_preference(self.rules)
        if preferred is None or len(native) != count:
            return None
        cells = native.mask(preferred)
        core: MaskArray = np.frombuffer(cells, dtype=np.int8).reshape(len(self.rules), count).copy()
        return core

    def mask(
        self, nodes: Sequence[MathExpression], layout: Optional[NodeLayout] = None
    ) -> MaskArray:
        """The `(num_rules, num_nodes)` mask of `can_apply_to` at `nodes`; with
        `layout` (the `NodeLayout` of the same nodes), answers are kept and reused
        by subtree shape."""
        count = len(nodes)
        size = len(self.rules) * count
        if size == 0:
            return np.zeros((len(self.rules), count), dtype=np.int8)
        # Row-major (rule, node) bytes: far cheaper to fill and to turn into
        # an array than nested lists.
        cells = bytearray(size)
        known = self._checks
        answers = self._answers
        shapes = layout.shapes if layout is not None else None
        children: Children = ([], [])
        if layout is not None and shapes is not None:
            children = layout.children
        for column, node in enumerate(nodes):
            kind = type(node)
            checks = known.get(kind)
            if checks is None:
                checks = self.checks(kind)
            for row, can_apply, shape_key in checks:
                if shape_key is not None and shapes is not None:
                    key = (row, shape_key(shapes, children, column))
                    answer = answers.get(key)
                    if answer is None:
                        answer = answers.put(key, bool(can_apply(node)))
                    if answer:
                        cells[row * count + column] = 1
                elif can_apply(node):
                    cells[row * count + column] = 1
        # A copy owns its data: no buffer objects stay alive with the mask.
        mask: MaskArray = np.frombuffer(cells, dtype=np.int8).reshape(len(self.rules), count)
        owned: MaskArray = mask.copy()
        return owned


def _same_settings(now: Optional[Dict[str, Any]], then: Optional[Dict[str, Any]]) -> bool:
    """Whether a rule's attributes `now` are those it had (`then`): equal
    dicts, or, where a value's `==` has no single truth value (an array), the
    same names holding the same objects."""
    if now is None or then is None:
        return now is then
    try:
        return bool(now == then)
    except Exception:
        return now.keys() == then.keys() and all(now[name] is then[name] for name in now)


def _settings_of(rules: Sequence[BaseRule]) -> List[Optional[Dict[str, Any]]]:
    """A copy of each rule's attributes: its settings (`preferred`, ...) and
    anything set on it (None for a rule without a `__dict__`)."""
    settings: List[Optional[Dict[str, Any]]] = []
    for rule in rules:
        own = getattr(rule, "__dict__", None)
        settings.append(None if own is None else dict(own))
    return settings


def candidate_mask(
    rules: Sequence[BaseRule],
    nodes: Sequence[MathExpression],
    rule_types: Optional[Sequence[Type[BaseRule]]] = None,
) -> MaskArray:
    """`can_apply_to` of every rule at every node (see `Sweep`, which does this
    for many expressions); with `rule_types`, the rows of rules of other types are
    zero."""
    return Sweep(rules, rule_types).mask(nodes)


def rows_to_check(rules: Sequence[BaseRule], parsed: ParsedExpression) -> Sequence[int]:
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
    check: Optional[ValueCheck] = None,
    native_rule: Optional[int] = None,
) -> bool:
    """Whether applying `rule` at the node gives an admissible text with the exact
    value of `parsed`: both the rule's own tree and the tree its printed text
    parses back to (mathy_core's printer can drop parentheses that matter) must
    have it. `check` is a `ValueCheck` of `parsed` to reuse. Any failure of
    mathy_core while applying it (numpy errors on extreme constants, assertions)
    makes the action invalid.

    `native_rule`, when given, is the core rule index of `rule`: the native core
    then writes the rewrite (`ParsedExpression.native`) where it can, and tells
    whether its text reads back as the rule's own tree."""
    if check is None:
        check = _value_check(parsed, parsed.native if native_rule is not None else None)
    if native_rule is not None and parsed.native is not None:
        kept = _native_keeps_value(native_rule, node_index, parsed, expressions, check)
        if kept is not None:
            return kept
    try:
        with np.errstate(all="ignore"):
            change = apply_rule(fresh_tree(), rule, node_index, parsed.text)
            assert change.result is not None
            rewritten = change.result.get_root()
            after = expressions.parse(str(rewritten))
    except Exception:
        return False
    if same_tree(rewritten, after.tree):
        return check.keeps_value(after.tree)
    # The text reads back as another tree: it must be the same expression, and
    # both must keep the value.
    if not same_expression(rewritten, after.tree, parsed.text):
        return False
    return check.keeps_value(after.tree, rewritten)


def same_value_of(before: ParsedExpression, after: ParsedExpression) -> bool:
    """Whether `after` has the exact value of `before` (`values.ValueCheck`,
    computed by the native core where both are its parses and within its
    reach), as masks test a move's result."""
    check = _value_check(before, before.native)
    if before.native is not None and after.native is not None:
        kept = check.native_keeps_value(before.native, after.native)
        if kept is not None:
            return kept
    return check.keeps_value(after.tree)


def _value_check(parsed: ParsedExpression, native: Optional[NativeExpression]) -> ValueCheck:
    """A `ValueCheck` of `parsed`; with `native` (its native parse, when the
    native core checks the rewrites), one that makes the tree only if a check
    falls back to it, the native core telling its `root_denominators`."""
    if native is None:
        return ValueCheck(parsed.tree, parsed.text)
    roots = ROOT_DENOMINATORS if native.variable_powers() else 1
    return ValueCheck(None, parsed.text, make_before=lambda: parsed.tree, roots=roots)


def _native_keeps_value(
    rule_index: int,
    node_index: int,
    parsed: ParsedExpression,
    expressions: ExpressionCache,
    check: ValueCheck,
) -> Optional[bool]:
    """`keeps_value` computed by the native core: its rewrite, its parse of the
    printed text and its exact evaluation (`ValueCheck.native_keeps_value` and
    `native_keeps_rewrite`); None where any of them is out of its reach."""
    native = parsed.native
    if native is None:
        return None
    text = native.apply(rule_index, node_index)
    if text is None:
        return None
    try:
        after = expressions.parse(text)
    except Exception:
        return False
    if after.native is None:
        return None
    reads_as = native.rewrite_reads_as(rule_index, node_index, after.native)
    if reads_as is None:
        return None
    if reads_as:
        kept = check.native_keeps_value(native, after.native)
        return check.keeps_value(after.tree) if kept is None else kept
    # The text reads back as another tree: it must be the same expression, and
    # both must keep the value.
    return check.native_keeps_rewrite(native, rule_index, node_index, after.native)


def remove_unsound(
    rules: Sequence[BaseRule],
    mask: MaskArray,
    rows: Iterable[int],
    parsed: ParsedExpression,
    expressions: ExpressionCache,
    fresh_tree: FreshTree,
    native_rules: bool = False,
) -> None:
    """Zero the actions of `rows` whose result does not keep the value of
    `parsed` or is outside the supported range. With `native_rules`, the rules
    are the core rules in action order (`Sweep.native_rules`) and the native core
    checks the rewrites it can."""
    native = parsed.native if native_rules else None
    check = _value_check(parsed, native)
    for rule_index in rows:
        rule = rules[rule_index]
        native_rule = rule_index if native is not None else None
        for node_index in np.flatnonzero(mask[rule_index]):
            if not keeps_value(
                rule, int(node_index), parsed, expressions, fresh_tree, check, native_rule
            ):
                mask[rule_index, node_index] = 0


def checked_mask(
    sweep: Sweep,
    parsed: ParsedExpression,
    expressions: ExpressionCache,
    fresh_tree: FreshTree,
) -> MaskArray:
    """The mask of `parsed`: `sweep`'s, less the actions whose result would be out
    of the supported range or change the expression's value. Read-only where no
    action needed checking (as `frozen` makes arrays: over immutable bytes)."""
    layout = parsed.layout
    native = parsed.native
    core = sweep.native_rules(native)
    rules = sweep.rules
    # The core rules on a safe expression leave nothing to check (their
    # rows are never among `rows_to_check`).
    rows = () if core and parsed.safe else rows_to_check(rules, parsed)
    mask: Optional[MaskArray] = None
    if core and native is not None:
        # The native core's mask needs no mathy_core nodes (an entry it parsed
        # makes them only when they are read); `native_rules` has just asked
        # `are_core_rules`.
        preferred = core_preference(rules)
        count = len(layout)
        if preferred is not None and len(native) == count:
            if rows:
                # Not safe: the native core checks every move it can.
                return _natively_checked(
                    native.check_moves(parsed.text, preferred, MOVE_LIMITS),
                    (len(rules), count),
                    rules,
                    parsed,
                    expressions,
                    fresh_tree,
                )
            mask = np.frombuffer(native.mask(preferred), dtype=np.int8).reshape(
                len(rules), count
            )
    if mask is None:
        mask = sweep.mask(layout.nodes, layout)
    if rows:
        remove_unsound(rules, mask, rows, parsed, expressions, fresh_tree, core)
    return mask


def _natively_checked(
    verdicts: bytes,
    shape: Tuple[int, int],
    rules: Sequence[BaseRule],
    parsed: ParsedExpression,
    expressions: ExpressionCache,
    fresh_tree: FreshTree,
) -> MaskArray:
    """The mask from the native core's checks of each move (`check_moves`: 0
    not valid, 1 valid, 2 left to this module), the moves it left checked by
    `keeps_value`."""
    mask: MaskArray = np.frombuffer(verdicts, dtype=np.int8).reshape(shape).copy()
    left = np.argwhere(mask == _LEFT_TO_PYTHON)
    if len(left):
        check = _value_check(parsed, parsed.native)
        for rule_index, node_index in left.tolist():
            mask[rule_index, node_index] = keeps_value(
                rules[rule_index], node_index, parsed, expressions, fresh_tree, check
            )
    return mask


_LEFT_TO_PYTHON = 2
"""`Expression.check_moves`' verdict for a move whose check it leaves to Python."""


def kept_mask(mask: MaskArray) -> MaskArray:
    """`mask` read-only for good: itself when it is an array over immutable
    bytes already (`is_frozen`), else `frozen`'s copy."""
    return mask if is_frozen(mask) else frozen(mask)


MoveResults = Tuple[Tuple[int, int, str], ...]
"""`(rule, node, result text)` of each valid move of an expression, in mask
order."""


def more_visited(results: Sequence[Optional[str]], visits: Dict[str, int]) -> List[int]:
    """The positions in `results` (the result texts of valid moves; None where
    one is not known) whose text was visited (`visits`: times per text) more
    often than another's: the moves an agent is not offered when masks leave
    out revisits. A move of unknown result is never among them."""
    counts = [None if out is None else visits.get(out, 0) for out in results]
    known = [count for count in counts if count is not None]
    if not known:
        return []
    least = min(known)
    if max(known) == least:
        return []
    return [
        position for position, count in enumerate(counts) if count is not None and count > least
    ]


def least_visited(
    mask: MaskArray, results: MoveResults, visits: Dict[str, int], aligned: bool = False
) -> MaskArray:
    """`mask` (read-only) less the moves that `more_visited` names among its
    valid moves, whose result texts `results` gives (`aligned`: `results` has
    exactly the moves of `mask`, in order): `mask` itself when there are none,
    else a new read-only array."""
    texts: List[Optional[str]]
    if aligned:
        moves = [(rule, node) for rule, node, _ in results]
        texts = [out for _, _, out in results]
    else:
        by_move = {(rule, node): out for rule, node, out in results}
        moves = [(int(rule), int(node)) for rule, node in zip(*np.nonzero(mask))]
        texts = [by_move.get(move) for move in moves]
    dropped = more_visited(texts, visits)
    if not dropped:
        return mask
    offered = mask.copy()
    for position in dropped:
        offered[moves[position]] = 0
    return frozen(offered)


class MaskCache:
    """Read-only masks by expression text, for one list of rule objects.

    `rules` is a plain list that callers may change in place (e.g.
    `env.rules[1] = CommutativeSwapRule(preferred=True)`), and a rule's settings
    may be changed in place too (`env.rules[1].preferred = True`); cached masks
    are only valid for the rule objects and settings they were computed with, so
    a lookup with other rules or settings empties the cache first.
    """

    def __init__(self, capacity: int = MASK_CACHE_SIZE) -> None:
        self._masks: LRUCache[str, MaskArray] = LRUCache(capacity)
        self._sweep = Sweep([])

    def clear(self) -> None:
        self._masks.clear()

    def get(
        self, text: str, rules: List[BaseRule], compute: Callable[[Sweep], MaskArray]
    ) -> MaskArray:
        """The cached mask of `text`, or `compute(sweep)`'s (with the `Sweep` of
        `rules`), made read-only and kept."""
        mask, sweep = self.lookup(text, rules)
        return mask if mask is not None else self.keep(text, compute(sweep))

    def lookup(self, text: str, rules: List[BaseRule]) -> Tuple[Optional[MaskArray], Sweep]:
        """The cached mask of `text` for `rules` (None when there is none, to be
        computed with the returned `Sweep` of `rules` and given to `keep`)."""
        sweep = self._sweep
        if not sweep.made_for(rules):
            self.clear()
            # One attribute holds the rules and their sweep, so no thread sees
            # the one without the other.
            sweep = self._sweep = Sweep(rules)
        return self._masks.get(text), sweep

    def keep(self, text: str, mask: MaskArray) -> MaskArray:
        """Keep `mask` (computed for `lookup`'s rules) as the mask of `text`,
        made read-only; returns the kept array."""
        kept = kept_mask(mask)
        self._masks.put(text, kept)
        return kept


__all__ = (
    "MASK_CACHE_SIZE",
    "SHAPE_MEMORY_SIZE",
    "MaskArray",
    "MaskCache",
    "MoveResults",
    "Sweep",
    "candidate_mask",
    "checked_mask",
    "keeps_value",
    "kept_mask",
    "least_visited",
    "more_visited",
    "remove_unsound",
    "rows_to_check",
    "same_value_of",
)
