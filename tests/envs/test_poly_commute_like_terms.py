"""PolyCommuteLikeTerms' generator, `commute_like_terms` (in
`mathy_envs/envs/poly_commute_like_terms.py`).

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser` and
terms compared with mathy_core's `terms_are_like` (`oracles`), so the
expectations do not come from `mathy_envs._engine.terms`. The env itself is tested in
`test_builtin_envs.py`.
"""

import numpy as np
import pytest
from mathy_core import get_terms
from oracles import factor_out_anywhere, like_pairs, parse

from mathy_envs.envs.poly_commute_like_terms import commute_like_terms

SAMPLES = 40
MAX_NODES = 128


# -- the generator, commute_like_terms (mathy_envs/envs/poly_commute_like_terms.py) ----


@pytest.mark.parametrize("blockers", range(1, 10))
def test_commute_like_terms(blockers: int) -> None:
    rng = np.random.default_rng(blockers)
    for _ in range(SAMPLES):
        text, complexity = commute_like_terms(rng, blockers)
        tree = parse(text)
        terms = get_terms(tree)
        ((i, j),) = like_pairs(terms)
        assert j - i - 1 == blockers, text
        assert complexity == blockers + 1, text
        assert not factor_out_anywhere(tree), text
        assert i <= 2 and len(terms) - 1 - j <= 2, text  # max_noise=2 each side
        assert len(tree.to_list()) <= MAX_NODES


def test_commute_like_terms_noise_knob() -> None:
    rng = np.random.default_rng(8)
    for _ in range(20):
        terms = get_terms(parse(commute_like_terms(rng, 3, max_noise=0).text))
        assert like_pairs(terms) == [(0, 4)]
