"""PolyGroupLikeTerms' generator, `group_like_terms` (in
`mathy_envs/envs/poly_group_like_terms.py`).

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser` and
terms compared with mathy_core's `terms_are_like` (`oracles`), so the
expectations do not come from `mathy_envs._engine.terms`. The env itself is tested in
`test_builtin_envs.py`.
"""

from typing import Sequence

import numpy as np
import pytest
from mathy_core import MathExpression, get_terms, terms_are_like
from oracles import like_pairs, parse

from mathy_envs.envs.poly_group_like_terms import group_like_terms

SAMPLES = 40
MAX_NODES = 128


def split_kind(terms: Sequence[MathExpression]) -> bool:
    """Some kind of term is split: a like pair with an unlike term between."""
    return any(
        any(not terms_are_like(terms[i], terms[m]) for m in range(i + 1, j))
        for i, j in like_pairs(terms)
    )


# -- the generator, group_like_terms (mathy_envs/envs/poly_group_like_terms.py) --------


@pytest.mark.parametrize("num_terms", range(3, 17))
def test_group_like_terms(num_terms: int) -> None:
    rng = np.random.default_rng(num_terms)
    for _ in range(SAMPLES):
        text, complexity = group_like_terms(rng, num_terms)
        tree = parse(text)
        terms = get_terms(tree)
        assert complexity == len(terms) == num_terms, text
        assert split_kind(terms), text
        assert len(tree.to_list()) <= MAX_NODES
