"""BinomialDistribute's generators, `binomial_times_binomial` and
`binomial_times_monomial`, with their knobs `BinomialStyle` (in
`mathy_envs/envs/binomial_distribute.py`).

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser`
(`oracles`), so the expectations do not come from `mathy_envs._engine.terms`. The env
itself is tested in `test_builtin_envs.py`.
"""

import numpy as np
import pytest
from mathy_core import AddExpression, MultiplyExpression, VariableExpression
from oracles import parse, simplified

from mathy_envs.envs.binomial_distribute import (
    STYLES,
    BinomialStyle,
    binomial_times_binomial,
    binomial_times_monomial,
)
from mathy_envs.types import MathyEnvDifficulty

SAMPLES = 40
HARD = STYLES[MathyEnvDifficulty.hard]


# -- the generator, binomial_times_binomial, binomial_times_monomial (mathy_envs/envs/binomial_distribute.py) ---


@pytest.mark.parametrize("hard", [False, True])
def test_binomials(hard: bool) -> None:
    rng = np.random.default_rng(int(hard))
    powers = 0
    for _ in range(SAMPLES):
        for make, complexity in ((binomial_times_binomial, 4), (binomial_times_monomial, 3)):
            text, got = make(rng, HARD if hard else BinomialStyle())
            assert got == complexity, text
            tree = parse(text)
            assert isinstance(tree, MultiplyExpression), text
            assert isinstance(tree.left, AddExpression), text
            right_is_sum = isinstance(tree.right, AddExpression)
            assert right_is_sum == (complexity == 4), text
            assert not simplified(tree), text
            names = {str(v.identifier) for v in tree.find_type(VariableExpression)}
            if not hard:
                assert len(names) == 1 and "^" not in text, text
            powers += "^" in text
    assert (powers > 0) == hard
