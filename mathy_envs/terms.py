"""Predicates over expression terms, built from mathy_core's term helpers.

Environments use them to recognise wins, and problem generators to reject
problems that would be won before the first move.
"""

from mathy_core import MathExpression, get_terms, has_like_terms, is_preferred_term_form


def is_simplified(expression: MathExpression) -> bool:
    """No like terms remain and every term is in the preferred simple form."""
    if has_like_terms(expression):
        return False
    return all(is_preferred_term_form(term) for term in get_terms(expression))


__all__ = ("is_simplified",)
