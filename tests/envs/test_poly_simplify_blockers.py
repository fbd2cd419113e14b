"""PolySimplifyBlockers' generator, `commute_blockers` (in
`mathy_envs/envs/poly_simplify_blockers.py`).

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser` and
terms compared with mathy_core's `terms_are_like` (`oracles`), so the
expectations do not come from `mathy_envs._engine.terms`. The env itself is tested in
`test_builtin_envs.py`.
"""

import numpy as np
import pytest
from mathy_core import get_terms
from oracles import like_pairs, parse

from mathy_envs.envs.poly_simplify_blockers import commute_blockers

SAMPLES = 40


# -- the generator, commute_blockers (mathy_envs/envs/poly_simplify_blockers.py) -------


@pytest.mark.parametrize("blockers", range(1, 7))
def test_commute_blockers(blockers: int) -> None:
    rng = np.random.default_rng(blockers)
    shapes = set()
    for _ in range(SAMPLES):
        text, complexity = commute_blockers(rng, blockers)
        terms = get_terms(parse(text))
        n = len(terms)
        assert like_pairs(terms) == [(0, n - 1)] or like_pairs(terms) == [(1, n - 2)]
        ((i, j),) = like_pairs(terms)
        assert j - i - 1 == blockers, text
        assert complexity == n == blockers + (2 if i == 0 else 4), text
        shapes.add(i)
    assert shapes == {0, 1}  # the pair alone and inside a four-term frame
