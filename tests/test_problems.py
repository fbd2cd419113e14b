"""Problem generators (`mathy_envs.problems`): plain functions of a
`numpy.random.Generator` and their knobs, independent of env logic.

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser`;
terms are counted with `get_terms` and compared with mathy_core's
`terms_are_like`, so the expectations do not come from `mathy_envs.terms`.
"""

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np
import pytest
from oracles import factor_out_anywhere, like_pairs, parse, simplified
from mathy_core import (
    AddExpression,
    MathExpression,
    MultiplyExpression,
    VariableExpression,
    get_term_ex,
    get_terms,
    terms_are_like,
)

from mathy_envs.parsing import parse as parse_for_env
from mathy_envs.envs.binomial_distribute import STYLES
from mathy_envs.types import MathyEnvDifficulty
from mathy_envs.problems import (
    BinomialStyle,
    GeneratedProblem,
    binomial_times_binomial,
    binomial_times_monomial,
    combine_in_place,
    combines_in_two_moves,
    commute_blockers,
    commute_like_terms,
    complex_product,
    group_like_terms,
    haystack_like_terms,
    product_factors,
    simplify_terms,
    strands_a_power,
)

REPO = Path(__file__).resolve().parents[1]
MAX_NODES = 128






def split_kind(terms: Sequence[MathExpression]) -> bool:
    """Some kind of term is split: a like pair with an unlike term between."""
    return any(
        any(not terms_are_like(terms[i], terms[m]) for m in range(i + 1, j))
        for i, j in like_pairs(terms)
    )


def nodes(text: str) -> int:
    return len(parse(text).to_list())


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
from test_problems import GENERATORS
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
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    code = REPRO_CODE.format(tests=str(REPO / "tests"))
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == repro()


# -- families --------------------------------------------------------------------------

SAMPLES = 40
HARD = STYLES[MathyEnvDifficulty.hard]


@pytest.mark.parametrize("num_terms", range(2, 10))
def test_simplify_terms(num_terms: int) -> None:
    rng = np.random.default_rng(num_terms)
    for _ in range(SAMPLES):
        text, complexity = simplify_terms(rng, num_terms)
        tree = parse(text)
        terms = get_terms(tree)
        assert complexity == len(terms) == num_terms, text
        assert like_pairs(terms), text
        assert not simplified(tree), text
        assert " - " not in text


def test_simplify_terms_ops_and_shapes() -> None:
    rng = np.random.default_rng(1)
    plus_minus = [simplify_terms(rng, 6, ops=("+", "-")).text for _ in range(60)]
    assert any(" - " in text for text in plus_minus)
    assert any(" + " in text for text in plus_minus)
    minus = [simplify_terms(rng, 4, ops=("-",)).text for _ in range(30)]
    assert all(" + " not in text and " - " in text for text in minus)
    for text in plus_minus + minus:
        assert not simplified(parse(text)), text
    texts = [simplify_terms(rng, 7).text for _ in range(100)]
    assert any("(" in text for text in texts)  # sometimes parenthesized
    never = [
        simplify_terms(rng, 7, parenthesize_probability=0.0).text for _ in range(40)
    ]
    assert not any("(" in text for text in never)


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


@pytest.mark.parametrize("num_terms", [3, 6, 9, 12, 16, 22])
def test_combine_in_place(num_terms: int) -> None:
    rng = np.random.default_rng(num_terms)
    for _ in range(SAMPLES):
        text, complexity = combine_in_place(rng, num_terms)
        tree = parse(text)
        terms = get_terms(tree)
        assert complexity == len(terms) == num_terms, text
        ((i, j),) = like_pairs(terms)
        assert j == i + 1, text  # exactly one like pair, and it is adjacent
        assert len(tree.to_list()) <= MAX_NODES
        assert combines_in_two_moves(parse_for_env(text)), text


def test_combine_in_place_parentheses_knob() -> None:
    rng = np.random.default_rng(4)
    never = [combine_in_place(rng, 10, parenthesize_probability=0.0).text for _ in range(20)]
    assert not any("(" in text for text in never)
    always = [combine_in_place(rng, 10, parenthesize_probability=1.0).text for _ in range(20)]
    assert all("(" in text for text in always)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("4x + 2x + y", True),  # factor out, then 4 + 2
        ("y + 4x + 2x", True),
        ("2x + 3x", True),
        ("x^2 + 3x^2 + x", True),  # (1 + 3) * x^2 + x -> 4x^2 + x
        ("4x + y + 2x", False),  # not adjacent: factor out does not apply
        ("4x + 2x + 3x", False),  # a third like term is left over
        ("4x + 2x + y + 3y", False),  # two pairs
        ("x + y", False),  # nothing to combine
        ("4x + 2y", False),
    ],
)
def test_combines_in_two_moves(text: str, expected: bool) -> None:
    assert combines_in_two_moves(parse_for_env(text)) is expected


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


@pytest.mark.parametrize("num_factors", range(2, 8))
def test_complex_product(num_factors: int) -> None:
    rng = np.random.default_rng(num_factors)
    for _ in range(SAMPLES):
        text, complexity = complex_product(rng, num_factors)
        tree = parse(text)
        assert isinstance(tree, MultiplyExpression), text
        factors = text.split("*")
        assert complexity == len(factors) == num_factors, text
        for factor in factors:
            assert get_term_ex(parse(factor.strip())) is not None, text
        assert not simplified(tree), text


@pytest.mark.parametrize(
    "text, stranded",
    [
        # a bare power of a repeated variable, no coefficient term after it, and
        # another variable before it: no moves can simplify these
        ("h^4 * 10f^3 * f^3", True),
        ("a^2 * r * a^2 * a^2", True),
        ("7x * q^3 * q^3 * x", True),
        ("10w^2 * d^3 * w^2 * x^2", True),
        ("5h^4 * f^4 * r * h^4 * r", True),
        ("t^3 * u^2 * t^3", True),
        ("o^4 * 5l^3 * l^3 * w^2 * w^2", True),
        ("p * 8d^2 * d^2", True),
        # a coefficient term after it can carry it
        ("3a * a^2 * 5b", False),
        # a coefficient before it can come loose and walk up to it
        ("10s^2 * 5j^3 * j^3", False),
        ("x^2 * 3y * 5z * x^2 * x^2", False),
        ("c^2 * 3j^4 * 10c^2 * c^2", False),
        ("x^2 * 12x^2 * 9p", False),
        # only its own variable before it
        ("10m^2 * m^2 * l^4", False),
        ("x^2 * 3x * x^2 * y", False),
        # nothing to join it with, or no bare power
        ("x^2 * y^2 * z", False),
        ("4x * 2y^2 * 7q", False),
        ("2x * y * 3x", False),
        ("x^2 * x^2", False),
    ],
)
def test_strands_a_power(text: str, stranded: bool) -> None:
    assert strands_a_power(parse(text)) is stranded


def test_product_factors() -> None:
    factors = product_factors(parse("4x * y^2 * 7q * z"))
    assert [str(factor) for factor in factors] == ["4x", "y^2", "7q", "z"]
    assert [str(f) for f in product_factors(parse("x * y"))] == ["x", "y"]
    assert [str(f) for f in product_factors(parse("4x"))] == ["4x"]


@pytest.mark.parametrize("num_factors", range(2, 8))
def test_complex_product_strands_no_power(num_factors: int) -> None:
    rng = np.random.default_rng(100 + num_factors)
    for _ in range(SAMPLES):
        text, _ = complex_product(rng, num_factors)
        assert not strands_a_power(parse(text)), text


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
