"""An env's moves by expression text: valid-move masks and move results, cached,
and the rewrite, refusal and value check of a move or an episode.

`MoveCache` keeps, per env, the read-only mask of every expression text it was
asked about (for the env's rules, see `MaskCache`) and the result text of each
valid move. The functions below answer on either core: where the native core
parsed a text (and the rules are the core rules) it writes the results and the
rewrites, elsewhere mathy_core does; callers never learn which.
"""

from types import MappingProxyType
from typing import List, Optional, Sequence, Tuple, Type

import numpy as np
from mathy_core import BaseRule, ExpressionChangeRule, ExpressionParser, MathExpression

from .._support.lru import LRUCache
from ..limits import quote
from .admission import admit
from .expressions import ParsedExpression
from .masks import MASK_CACHE_SIZE, MaskArray, MaskCache, MoveResults, Sweep, checked_mask
from .parse_cache import ExpressionCache, expression_cache, parse
from .parsers import parse_text
from .rules import CORE_RULE_TABLE, are_core_rules
from .tree_edits import DeferredChange, apply_at, apply_rule, copy_tree
from .values import narrowed_domain, same_value_where_defined

Move = Tuple[int, int]
"""A `(rule_index, node_index)` action."""

NO_RULE = BaseRule()
"""The rule of the change an invalid move with no such rule gives."""


class MoveCache:
    """The masks and move results of one env, by expression text.

    Masks are kept for the rules they were computed with (`MaskCache` empties
    itself when asked with other rules or settings); results are kept with the
    mask they were computed for, so a result of a mask that is gone is never
    read. Pickled with the env (both caches pickle their entries).
    """

    def __init__(self) -> None:
        self._masks = MaskCache()
        self._results: LRUCache[str, Tuple[MaskArray, MoveResults]] = LRUCache(MASK_CACHE_SIZE)

    def clear(self) -> None:
        """Forget the masks (the env's rules or parser changed); the results of
        a forgotten mask are never read again."""
        self._masks.clear()

    def mask(
        self,
        text: str,
        rules: List[BaseRule],
        parser: ExpressionParser,
        equations: bool = True,
        owner: type = object,
    ) -> MaskArray:
        """The read-only `(len(rules), nodes)` mask of `text`, computed once per
        text (with `parser`'s cache of parsed texts). Unless `equations`, a
        `ValueError` naming `owner` (the env's class) for a text with `=`."""
        masks = self._masks
        mask, sweep = masks.lookup(text, rules)
        if mask is None:
            mask = masks.keep(text, _text_mask(text, sweep, parser, equations, owner))
        return mask

    def results(
        self, text: str, rules: List[BaseRule], parser: ExpressionParser, mask: MaskArray
    ) -> MoveResults:
        """`(rule, node, result text)` of each valid move of `text` (its mask
        `mask`, as `mask` gave it), in mask order, computed once per mask. The
        native core writes a result where it can (the core rules on a text it
        parsed; proven equal to mathy_core's), mathy_core's rule applied to a
        copy of the tree writes the others."""
        kept = self._results.get(text)
        if kept is not None and kept[0] is mask:
            return kept[1]
        parsed = expression_cache(parser).parse(text)
        native = parsed.native if are_core_rules(rules) else None
        written: List[Tuple[int, int, Optional[str]]]
        if native is not None and mask.shape[1] == len(native):
            written = native.apply_mask(mask)
        else:
            rows, columns = np.nonzero(mask)
            written = [(rule, node, None) for rule, node in zip(rows.tolist(), columns.tolist())]
        results: List[Tuple[int, int, str]] = []
        for rule, node, out in written:
            if out is None:
                change = parsed.rewrite(rules[rule], node)
                assert change.result is not None
                out = str(change.result.get_root())
            results.append((rule, node, out))
        made = tuple(results)
        self._results.put(text, (mask, made))
        return made


def _text_mask(
    text: str, sweep: Sweep, parser: ExpressionParser, equations: bool, owner: type
) -> MaskArray:
    """The mask of `text` for `sweep`'s rules (see `MoveCache.mask`)."""
    expressions = expression_cache(parser)
    parsed = expressions.parse(text)
    if parsed.has_equation and not equations:
        raise ValueError(f"{owner.__name__} does not support equations: {quote(text)}")
    return checked_mask(sweep, parsed, expressions, lambda: copy_tree(parsed.tree))


def tree_mask(
    root: MathExpression,
    expression: MathExpression,
    rules: List[BaseRule],
    rule_types: Optional[Sequence[Type[BaseRule]]],
    parser: ExpressionParser,
    equations: bool = True,
    owner: type = object,
) -> MaskArray:
    """The mask of the checked, hand-built tree `expression` (whose root is
    `root`), not cached: its nodes are `expression`'s, in-order. With
    `rule_types`, the rows of rules of other types are zero."""
    parsed = ParsedExpression(str(root), expression)
    admit(parsed)
    if parsed.has_equation and not equations:
        raise ValueError(f"{owner.__name__} does not support equations: {quote(parsed.text)}")
    return checked_mask(
        Sweep(rules, rule_types), parsed, expression_cache(parser), expression.clone
    )


def fitting_nodes(expressions: ExpressionCache, text: str, max_seq_len: int) -> int:
    """The node count of `text`, or a `ValueError` when it does not parse or
    has more nodes than `max_seq_len` (no observation could hold it)."""
    nodes = len(expressions.parse(text))
    if nodes > max_seq_len:
        raise ValueError(
            f"problem {quote(text)} has {nodes} nodes, more than "
            f"max_seq_len={max_seq_len}: pass a max_seq_len of at least "
            f"{nodes} or a shorter problem"
        )
    return nodes


def check_equations(expressions: ExpressionCache, text: str, owner: type) -> None:
    """A `ValueError` naming `owner` (an env class that does not support
    equations) when `text` is an equation."""
    if expressions.parse(text).has_equation:
        raise ValueError(f"{owner.__name__} does not support equations: {quote(text)}")


def in_mask(mask: MaskArray, move: Move) -> bool:
    """Whether `mask` holds `move` (False when it is out of the mask's range)."""
    rule_index, node_index = move
    return bool(
        0 <= rule_index < mask.shape[0]
        and 0 <= node_index < mask.shape[1]
        and mask[rule_index, node_index]
    )


def rewrite_move(
    expressions: ExpressionCache, rules: List[BaseRule], text: str, move: Move
) -> Tuple[str, ExpressionChangeRule]:
    """The text a valid `move` makes of `text`, and the change it made.

    The native core writes the text where it parsed `text` and the rules are
    the core rules; the change (a `DeferredChange`) is then made from a fresh
    parse only when it is read. Elsewhere mathy_core's rule rewrites the cached
    tree, which leaves the cache (`take_node`)."""
    rule_index, node_index = move
    rule = rules[rule_index]
    native = expressions.parse(text).native
    written: Optional[str] = None
    if native is not None and are_core_rules(rules):
        written = native.apply(rule_index, node_index)
    if written is None:
        change = apply_at(rule, expressions.take_node(text, node_index))
        assert change.result is not None
        return str(change.result.get_root()), change
    # The native step left the tree alone: forgetting an unshared entry keeps
    # the cache as small as the pure-Python step leaves it.
    expressions.forget(text)
    # Made from a fresh parse, under the parser's lock: any thread may read it.
    parser = expressions.parser
    return written, DeferredChange(
        rule, lambda: apply_rule(parse_text(parser, text), rule, node_index, text)
    )


def move_refusal(
    expressions: ExpressionCache, rules: Sequence[BaseRule], text: str, move: Move
) -> Tuple[str, ExpressionChangeRule]:
    """Why `move` is not a valid move of `text` (for an error message), and the
    change an invalid move reports: its rule (`NO_RULE` out of range) and a copy
    of its node (None out of range; the parsed tree is shared and is never
    handed out)."""
    rule_index, node_index = move
    parsed = expressions.parse(text)
    rule_ok = 0 <= rule_index < len(rules)
    node_ok = 0 <= node_index < len(parsed)
    if not rule_ok:
        reason = f"rule index {rule_index} is out of range [0, {len(rules)})"
    elif not node_ok:
        reason = f"node index {node_index} is out of range [0, {len(parsed)})"
    else:
        reason = (
            f"{rules[rule_index].name} can't be applied to node {node_index}"
            " (or its result would not keep the expression's value)"
        )
    rule = rules[rule_index] if rule_ok else NO_RULE
    node = parsed.nodes[node_index].clone() if rule_ok and node_ok else None
    return reason, ExpressionChangeRule(rule, node)


def check_value_kept(expressions: ExpressionCache, first_text: str, last_text: str) -> None:
    """A `ValueError` unless `last_text` has the value of `first_text` wherever
    the first has one (see `MathyEnv.finalize_state`): both are evaluated
    exactly at pseudo-random points derived from the first text, and the last
    may ask no condition the first does not (`values.narrowed_domain`)."""
    first = expressions.parse(first_text).tree
    last = expressions.parse(last_text).tree
    same, roots = same_value_where_defined(first, last, first_text)
    if not same:
        raise ValueError(
            f"expression value changed: {quote(first_text)} is not equal to "
            f"{quote(last_text)}"
        )
    narrowed = narrowed_domain(first, last, first_text, roots)
    if narrowed is not None:
        raise ValueError(
            f"expression domain narrowed: {quote(last_text, 60)} has no value "
            f"where {quote(first_text, 60)} has one ({narrowed})"
        )



def rule_nodes(parsed: ParsedExpression, rule: BaseRule) -> List[int]:
    """The in-order indexes of the nodes of `parsed` that `rule` applies to
    (its `can_apply_to`): read from the native core's mask where it parsed the
    text and `rule` is a core rule of mathy_core's class with the settings a
    new one has, else asked of the rule."""
    row = _native_row(parsed, rule)
    native = parsed.native
    if row is None or native is None:
        return [index for index, node in enumerate(parsed.nodes) if rule.can_apply_to(node)]
    cells = native.mask(False)
    count = len(cells) // len(CORE_RULE_TABLE)
    return [index for index, cell in enumerate(cells[row * count : (row + 1) * count]) if cell]


def rewritten_entry(parsed: ParsedExpression, rule: BaseRule, index: int) -> ParsedExpression:
    """The parse of the text `rule` makes of `parsed` at in-order node `index`
    (a node it applies to): the native core's rewrite where it gives one (as
    for `rule_nodes`), mathy_core's elsewhere."""
    row = _native_row(parsed, rule)
    native = parsed.native
    text = None if row is None or native is None else native.apply(row, index)
    if text is None:
        change = parsed.rewrite(rule, index)
        if change.result is None:
            raise ValueError(f"{type(rule).__name__} does not apply at node {index}")
        text = str(change.result.get_root())
    return parse(text)


def _native_row(parsed: ParsedExpression, rule: BaseRule) -> Optional[int]:
    """The native core's row of `rule` where it answers for it: a core rule
    of mathy_core's class (never commutative swap, whose setting varies) with
    nothing set on the instance beyond what a new one has."""
    kind = type(rule)
    if parsed.native is None or kind not in _PLAIN_CORE_KINDS:
        return None
    if vars(rule) != vars(kind()):
        return None
    return _PLAIN_CORE_KINDS[kind]


_PLAIN_CORE_KINDS = MappingProxyType({
    row.kind: index
    for index, row in enumerate(CORE_RULE_TABLE)
    if row.preference is None
})
"""The core rules' classes without a setting, by their row of the mask."""


__all__ = (
    "rewritten_entry",
    "rule_nodes",
    "Move",
    "MoveCache",
    "NO_RULE",
    "check_equations",
    "check_value_kept",
    "fitting_nodes",
    "in_mask",
    "move_refusal",
    "rewrite_move",
    "tree_mask",
)
