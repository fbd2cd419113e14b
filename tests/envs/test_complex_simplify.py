"""ComplexSimplify's generator, `complex_product`, and its checks
`strands_a_power` and `product_factors` (in `mathy_envs/envs/complex_simplify.py`).

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser`
(`oracles`), so the expectations do not come from `mathy_envs._engine.terms`. The env
itself is tested in `test_builtin_envs.py`.
"""

from typing import List

import numpy as np
import pytest
from mathy_core import MultiplyExpression, get_term_ex
from oracles import parse, simplified

from mathy_envs._engine.parse_cache import parse as parse_for_env
from mathy_envs.envs import complex_simplify
from mathy_envs.problems import rand_int, rand_templates, rand_term
from mathy_envs.envs.complex_simplify import (
    complex_product,
    product_factors,
    strands_a_power,
)

SAMPLES = 40


# -- the generator, complex_product (mathy_envs/envs/complex_simplify.py) --------------


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


def _candidates(seed: int, count: int) -> List[str]:
    """Products as `complex_product` builds them, kept or not, of 2-7 factors."""
    rng = np.random.default_rng(seed)
    texts = []
    for _ in range(count):
        num_factors = rand_int(rng, 2, 7)
        pool = rand_templates(rng, max(2, num_factors - 1), exponent_probability=0.4)
        factors = [
            rand_term(rng, pool[int(rng.integers(len(pool)))], coefficient_probability=0.7)
            for _ in range(num_factors)
        ]
        texts.append(" * ".join(factors))
    return texts


def test_only_products_with_a_bare_power_can_strand_one() -> None:
    """complex_product asks `strands_a_power` (which needs the tree) only of
    products with a bare power after the first factor: over its products, the
    others never strand one, and its verdicts are those of the whole check."""
    texts = _candidates(5, 3000)
    stranded = [text for text in texts if strands_a_power(parse(text))]
    assert len(stranded) > 20
    assert all(complex_simplify._has_bare_power(text) for text in stranded)
    assert not all(complex_simplify._has_bare_power(text) for text in texts)
    assert not complex_simplify._has_bare_power("4x * 2y^2 * 7q")
    assert not complex_simplify._has_bare_power("x^2 * 3x * 5y")  # the first factor
    assert complex_simplify._has_bare_power("3x * x^2")


def test_complex_product_rejects_what_the_tree_checks_reject() -> None:
    """The rejection test `complex_product` retries on (the native verdict on
    simplified, then `strands_a_power` where a bare power may strand) rejects
    exactly the products mathy_core's trees say to reject."""
    rejected = 0
    for text in _candidates(6, 1500):
        expected = simplified(parse(text)) or strands_a_power(parse(text))
        assert complex_simplify._rejects(parse_for_env(text)) is expected, text
        rejected += expected
    assert rejected > 50
