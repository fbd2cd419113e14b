"""ComplexSimplify: multiply a product of terms into one simple term.

Its generator, `complex_simplify_problem` (built on `complex_product`, with its
check `strands_a_power`), is above the env."""

from typing import List

import numpy as np
from mathy_core import MathExpression, MultiplyExpression, TermEx, get_term_ex

from .._engine import ParsedExpression
from ..problems import (
    NativeFamily,
    GeneratedProblem,
    rand_int,
    rand_templates,
    rand_term,
    retry,
)
from .._engine import simplified_entry
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .generation import generator_difficulty
from .goal import SimplifyGoalEnv

NAMESPACE = "mathy.monomials.complex_simplify"

FACTOR_COUNTS = {
    MathyEnvDifficulty.easy: (2, 3),
    MathyEnvDifficulty.normal: (3, 5),
    MathyEnvDifficulty.hard: (4, 7),
}


def complex_simplify_problem(
    rng: np.random.Generator, params: MathyEnvProblemArgs, *, namespace: str = NAMESPACE
) -> MathyEnvProblem:
    """A ComplexSimplify problem: `complex_product` with a factor count drawn
    from `FACTOR_COUNTS[params.difficulty]`."""
    low, high = FACTOR_COUNTS[generator_difficulty(rng, params, namespace)]
    drawn = _NATIVE.draw(rng, (low, high))
    if drawn is None:
        drawn = complex_product(rng, rand_int(rng, low, high))
    return MathyEnvProblem(drawn.text, drawn.complexity, namespace)


def complex_product(rng: np.random.Generator, num_factors: int) -> GeneratedProblem:
    """A product of `num_factors` terms such as `4x * 2y^2 * 7q`, variables drawn
    from a small pool so some repeat. Products that are already simplified, or
    that no sequence of moves can simplify (`strands_a_power`), are drawn again.
    Complexity: `num_factors`."""
    if num_factors < 2:
        raise ValueError(f"num_factors must be at least 2, got {num_factors}")

    def build() -> GeneratedProblem:
        pool = rand_templates(rng, max(2, num_factors - 1), exponent_probability=0.4)
        factors = [
            rand_term(rng, pool[int(rng.integers(len(pool)))], coefficient_probability=0.7)
            for _ in range(num_factors)
        ]
        return GeneratedProblem(" * ".join(factors), num_factors)

    return retry(build, _rejects, "complex_product")


def _rejects(parsed: ParsedExpression) -> bool:
    """`complex_product`'s rejection test: the product is simplified, or
    `strands_a_power`. That one needs the tree, and a bare power after the
    first factor (`x^2`, no coefficient), which most products lack."""
    return simplified_entry(parsed) or (
        _has_bare_power(parsed.text) and strands_a_power(parsed.tree)
    )


def _has_bare_power(text: str) -> bool:
    """Whether a factor after the first of a generated product (`4x * y^2`: its
    factors joined by " * ") is a bare power (`y^2`), the only kind of factor
    `strands_a_power` can find stranded: without one, it is False."""
    return any(factor[0].isalpha() and "^" in factor for factor in text.split(" * ")[1:])


def product_factors(expression: MathExpression) -> List[MathExpression]:
    """The factors of a product, left to right, as the parser groups them: the
    chain `((4x * y^2) * 7q)` has the factors `4x`, `y^2` and `7q`. A leading
    `4x` is one factor (the bottom of the chain, a term of its own)."""
    factors: List[MathExpression] = []
    node = expression
    while isinstance(node, MultiplyExpression) and get_term_ex(node) is None:
        assert node.left is not None and node.right is not None
        factors.append(node.right)
        node = node.left
    factors.append(node)
    factors.reverse()
    return factors


def strands_a_power(expression: MathExpression) -> bool:
    """A product of terms in which a bare power can never join a like factor, so
    that no sequence of the core rules simplifies it (see below).

    True when some factor after the first is a bare power `v^k` (no coefficient)
    such that: `v` is in another factor too; no factor after it has a
    coefficient; some factor before it has another variable; and no factor
    before it has a coefficient that can come loose (one after the second
    factor, or the second when the first has one too). Examples:
    `h^4 * 10f^3 * f^3`, `a^2 * r * a^2 * a^2`, `7x * q^3 * q^3 * x`.

    Why such a power is stuck. Each step re-parses the text, so a product is
    always the left-leaning chain `((f1 * f2) * f3) * ...`, with a `4x` after
    the first factor grouped as a subtree of its own. Of the core rules only
    these act on such a chain:

    - commutative swap (in the envs' `preferred=False` form) refuses the chain
      node whose right factor is a bare power unless the next factor is a
      subtree (a term with a coefficient): a bare power moves left only in
      front of a coefficient term. It turns a coefficient term `4x` into
      `x * 4` only when the term's sibling is a subtree too: always after the
      second factor, and for the second only when the first has a coefficient;
    - variable multiply joins two like factors only when the right one has a
      coefficient (`x^2 * 3x^2`) or when everything left of the right one is a
      single term (`x^2 * x^2 * ...` at the start of the chain);
    - associative grouping is undone by the text round trip, except that it
      glues a loose constant onto the factor after it (`... * 5 * x^2` becomes
      `... * 5x^2`).

    So a bare power with no coefficient term after it never gets ahead of the
    factors before it, and is joined only if they collapse into one like term,
    which another variable among them rules out; unless a loose constant gives
    it a coefficient. A constant comes loose only from a coefficient term that
    can be turned (`4x` to `x * 4`) and then walks right, gluing onto each next
    factor and being turned off it again, until it glues onto the power. With
    such a coefficient before the power (`10s^2 * 5j^3 * j^3`) the product is
    winnable and kept; without one it is rejected. The check errs towards
    rejecting: it does not look at what a loose constant or a joined power could
    do next.
    """
    terms: List[TermEx] = []
    for factor in product_factors(expression):
        term = get_term_ex(factor)
        if term is None or term.variable is None:
            return False
        terms.append(term)

    def comes_loose(index: int) -> bool:
        if terms[index].coefficient is None:
            return False
        return index >= 2 or (index == 1 and terms[0].coefficient is not None)

    for index, term in enumerate(terms):
        if index == 0 or term.coefficient is not None or term.exponent is None:
            continue
        others = terms[:index] + terms[index + 1 :]
        if all(other.variable != term.variable for other in others):
            continue  # nothing to join
        if any(later.coefficient is not None for later in terms[index + 1 :]):
            continue  # a coefficient term can come and carry it left
        if all(earlier.variable == term.variable for earlier in terms[:index]):
            continue  # the factors before it collapse into one like term
        if any(comes_loose(earlier) for earlier in range(index)):
            continue  # a loose constant can walk up to it
        return True
    return False


_NATIVE = NativeFamily(
    "complex_simplify", complex_simplify_problem, complex_product, _rejects, _has_bare_power, product_factors,
    strands_a_power
)
"""The native core's draws of this generator (`NativeFamily`)."""


class ComplexSimplify(SimplifyGoalEnv):
    """Simplify a product of terms into a single term in preferred form.

    ## Description
    The agent multiplies coefficients, merges repeated variables into powers and
    reorders factors until one simple term remains. Example problems:
    `4x * 2y^2 * 7q` and `3a * a^2 * 5b`.

    ## Action Space
    As for every `GoalEnv` (see its docstring): `(rule, node)` over the seven
    core rules.

    ## Observation Space
    As for every `GoalEnv` (see its docstring).

    ## Rewards
    The win signal on simplifying; `LOSE` (-1) on running out of moves or a fourth
    revisit; otherwise the `MathyEnv` step rewards.

    ## Starting State
    `complex_simplify_problem` (in this file): a product of 2-3 factors (easy), 3-5
    (normal) or 4-7 (hard) that some sequence of moves simplifies. Complexity is
    the number of factors.

    ## Episode End
    Won when the product is one term in preferred form; lost after
    `complexity * 8` moves or on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    namespace = NAMESPACE
    generator = staticmethod(complex_simplify_problem)

    moves_per_complexity = 8


__all__ = (
    "ComplexSimplify",
    "FACTOR_COUNTS",
    "NAMESPACE",
    "complex_product",
    "complex_simplify_problem",
    "product_factors",
    "strands_a_power",
)
