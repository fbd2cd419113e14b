"""PolyHaystackLikeTerms' generator, `haystack_like_terms` (in
`mathy_envs/envs/poly_haystack_like_terms.py`).

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser` and
terms compared with mathy_core's `terms_are_like` (`oracles`), so the
expectations do not come from `mathy_envs._engine.terms`. The env itself is tested in
`test_builtin_envs.py`.
"""

import numpy as np
import pytest
from mathy_core import get_term_ex, get_terms
from oracles import like_pairs, parse

from mathy_envs.envs.poly_haystack_like_terms import haystack_like_terms

SAMPLES = 40
MAX_NODES = 128


# -- the generator, haystack_like_terms (mathy_envs/envs/poly_haystack_like_terms.py) ---


@pytest.mark.parametrize("num_terms", range(2, 13))
def test_haystack_like_terms(num_terms: int) -> None:
    rng = np.random.default_rng(num_terms)
    for _ in range(SAMPLES):
        text, complexity = haystack_like_terms(rng, num_terms)
        tree = parse(text)
        terms = get_terms(tree)
        assert complexity == 2
        assert len(terms) == num_terms, text
        assert len(like_pairs(terms)) == 1, text
        for term in terms:  # a coefficient times a variable, maybe with an exponent
            parts = get_term_ex(term)
            assert parts is not None, text
            assert parts.coefficient is not None and parts.variable is not None, text
        assert len(tree.to_list()) <= MAX_NODES
