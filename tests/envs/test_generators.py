"""What every problem generator promises, checked over all of them: a generator
is a plain function of a `numpy.random.Generator` and its knobs, the same seed
gives the same problems (in every process), only the given generator is drawn
from, and impossible knobs raise.

The generators live beside their envs (`mathy_envs/envs/<env>.py`); each one's
own family tests are in `tests/envs/test_<env>.py`, the shared primitives'
in `tests/test_problems.py`.
"""

import json
import random
from typing import Callable, Dict, List, Tuple

import numpy as np
import pytest
from helpers import REPO, run_python

from mathy_envs.envs.binomial_distribute import (
    STYLES,
    binomial_times_binomial,
    binomial_times_monomial,
)
from mathy_envs.envs.complex_simplify import complex_product
from mathy_envs.envs.poly_combine_in_place import combine_in_place
from mathy_envs.envs.poly_commute_like_terms import commute_like_terms
from mathy_envs.envs.poly_group_like_terms import group_like_terms
from mathy_envs.envs.poly_haystack_like_terms import haystack_like_terms
from mathy_envs.envs.poly_simplify import simplify_terms
from mathy_envs.envs.poly_simplify_blockers import commute_blockers
from mathy_envs.problems import GeneratedProblem
from mathy_envs.types import MathyEnvDifficulty

HARD = STYLES[MathyEnvDifficulty.hard]


Generator = Callable[[np.random.Generator], GeneratedProblem]

# every generator with fixed knobs
GENERATORS: Dict[str, Generator] = {
    "simplify_terms": lambda rng: simplify_terms(rng, 6),
    "simplify_terms-ops": lambda rng: simplify_terms(rng, 5, ops=("+", "-")),
    "commute_blockers": lambda rng: commute_blockers(rng, 3),
    "combine_in_place": lambda rng: combine_in_place(rng, 10),
    "commute_like_terms": lambda rng: commute_like_terms(rng, 3),
    "group_like_terms": lambda rng: group_like_terms(rng, 8),
    "haystack_like_terms": lambda rng: haystack_like_terms(rng, 6),
    "complex_product": lambda rng: complex_product(rng, 4),
    "binomial_times_binomial": lambda rng: binomial_times_binomial(rng),
    "binomial_times_binomial-hard": lambda rng: binomial_times_binomial(rng, HARD),
    "binomial_times_monomial": lambda rng: binomial_times_monomial(rng),
    "binomial_times_monomial-hard": lambda rng: binomial_times_monomial(rng, HARD),
}


def sequence(name: str, seed: int, count: int = 15) -> List[Tuple[str, int]]:
    rng = np.random.default_rng(seed)
    return [tuple(GENERATORS[name](rng)) for _ in range(count)]  # type: ignore[misc]


# -- plain seeded functions ------------------------------------------------------------


@pytest.mark.parametrize("name", list(GENERATORS))
def test_same_seed_same_problems(name: str) -> None:
    first = sequence(name, 5)
    assert sequence(name, 5) == first
    assert sequence(name, 6) != first
    assert len(set(first)) > 1  # the generator advances
    problem = GENERATORS[name](np.random.default_rng(5))
    assert isinstance(problem, GeneratedProblem)
    text, complexity = problem
    assert isinstance(text, str) and isinstance(complexity, int)
    assert (text, complexity) == first[0]


@pytest.mark.parametrize("name", list(GENERATORS))
def test_only_the_given_generator_is_used(name: str) -> None:
    expected = sequence(name, 9)
    random.seed(1)
    np.random.seed(1)
    before = (random.getstate(), np.random.get_state())
    # interleave another generator's draws and reseed the global ones on the way
    rng, other = np.random.default_rng(9), np.random.default_rng(10)
    got = []
    for index in range(len(expected)):
        GENERATORS[name](other)
        got.append(tuple(GENERATORS[name](rng)))
        if index == 7:
            after = (random.getstate(), np.random.get_state())
            assert after[0] == before[0]
            assert all(np.array_equal(a, b) for a, b in zip(before[1], after[1]))
            random.seed(2)
            np.random.seed(2)
    assert got == expected


REPRO_CODE = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
from envs.test_generators import GENERATORS
print(json.dumps({{
    name: [list(make(rng)) for rng in [np.random.default_rng(3)] for _ in range(10)]
    for name, make in GENERATORS.items()
}}))
"""


def repro() -> Dict[str, List[List[object]]]:
    return {
        name: [list(make(rng)) for rng in [np.random.default_rng(3)] for _ in range(10)]
        for name, make in GENERATORS.items()
    }


@pytest.mark.parametrize("hash_seed", ["0", "1", "31337"])
def test_same_seed_same_problems_in_every_process(hash_seed: str) -> None:
    code = REPRO_CODE.format(tests=str(REPO / "tests"))
    result = run_python("-c", code, hash_seed=hash_seed, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == repro()


@pytest.mark.parametrize(
    "make",
    [
        lambda rng: simplify_terms(rng, 1),  # no room for a like pair
        lambda rng: simplify_terms(rng, 4, ops=()),
        lambda rng: commute_like_terms(rng, 0),  # an adjacent pair factors at once
        lambda rng: group_like_terms(rng, 2),  # two terms are always grouped
        lambda rng: haystack_like_terms(rng, 1),  # no room for a like pair
        lambda rng: complex_product(rng, 1),  # one factor is already simple
    ],
)
def test_impossible_knobs_raise(make: Generator) -> None:
    with pytest.raises(ValueError):
        make(np.random.default_rng(0))
