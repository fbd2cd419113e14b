"""Visits: how many times an episode saw an expression, with its texts compared
in one canonical form.

Every text a move gives is printed by mathy_core (`4x + 2y + 3x`), but the first
text of an episode is the problem as it was written (`4x+2y+3x`, `4x + (2y) +
3x`). Visits count the first text in its printed form (mathy_core's print of
its parse, `ParsedExpression.canonical`), so a move back to the problem is a
revisit however the problem was written. The other texts of a history are the
texts moves gave, compared as they are.

`visit_counts` gives every text's count; `visits_of` one text's; both take a
state's history (`MathyEnvStateStep`s, or anything whose first item is the
text) and the env's parser. The first text is parsed through the calling
thread's cache, so a count costs one cache lookup and a pass over the history.
"""

from typing import Dict, Optional, Sequence

from mathy_core import ExpressionParser

from .parse_cache import parse


def canonical_text(text: str, parser: Optional[ExpressionParser] = None) -> str:
    """`text` as mathy_core prints its parse by `parser` (the default parser when
    None): the form in which visits compare it; `text` itself when it does not
    parse."""
    try:
        return parse(text, parser).canonical
    except (ValueError, RecursionError):
        return text


def visit_counts(
    history: Sequence[Sequence[object]], parser: Optional[ExpressionParser] = None
) -> Dict[str, int]:
    """How many times each text occurs in `history` (each step's text is its
    first item), the first text counted in its canonical form."""
    counts: Dict[str, int] = {}
    if not history:
        return counts
    first = str(history[0][0])
    key = canonical_text(first, parser)
    for step in history:
        text = str(step[0])
        if text == first:
            text = key
        counts[text] = counts.get(text, 0) + 1
    return counts


def visits_of(
    history: Sequence[Sequence[object]], text: str, parser: Optional[ExpressionParser] = None
) -> int:
    """How many times `text` occurs in `history`, every occurrence of the first
    text (and `text` itself, when it is that text) counted in its canonical
    form: `visit_counts(history, parser).get(canonical text, 0)` in one pass."""
    if not history:
        return 0
    texts = [step[0] for step in history]
    first = str(texts[0])
    key = canonical_text(first, parser)
    if text == first:
        text = key
    if text != key:
        return texts.count(text)
    return texts.count(key) + (texts.count(first) if first != key else 0)


__all__ = ("canonical_text", "visit_counts", "visits_of")
