"""Independent oracles shared by the env and generator tests: SPEC's win
conditions and term facts computed straight from mathy_core, never from
mathy_envs, so the tests can catch the library getting them wrong."""

from typing import List, Sequence, Tuple

from mathy_core import (
    ExpressionParser,
    MathExpression,
    get_terms,
    has_like_terms,
    is_preferred_term_form,
    terms_are_like,
)
from mathy_core.rules import DistributiveFactorOutRule

PARSER = ExpressionParser()


def parse(text: str) -> MathExpression:
    """A tree from mathy_core's own parser (not the library's cache)."""
    return PARSER.parse(text)


def simplified(tree: MathExpression) -> bool:
    """SPEC's "simplified", straight from mathy_core."""
    if has_like_terms(tree):
        return False
    return all(is_preferred_term_form(term) for term in get_terms(tree))


def like_pairs(terms: Sequence[MathExpression]) -> List[Tuple[int, int]]:
    """Index pairs of terms that mathy_core calls alike."""
    return [
        (i, j)
        for i in range(len(terms))
        for j in range(i + 1, len(terms))
        if terms_are_like(terms[i], terms[j])
    ]


def factor_out_anywhere(tree: MathExpression) -> bool:
    """Distributive factor out applies at some node."""
    rule = DistributiveFactorOutRule()
    return any(rule.can_apply_to(node) for node in tree.to_list("inorder"))
