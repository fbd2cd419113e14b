"""Seeded problem generators.

Every generator is a plain function of a `numpy.random.Generator` and its knobs,
returning a `GeneratedProblem(text, complexity)`. Generators never touch the
global `random` or `numpy.random` state and never iterate over sets or dicts of
strings, so a seed yields the same problems in every process. Generators whose
families can produce an already-won problem retry (at most `MAX_ATTEMPTS` times).
"""

from dataclasses import dataclass
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
from mathy_core import BaseRule, MathExpression, MultiplyExpression, TermEx, get_term_ex
from mathy_core.rules import ConstantsSimplifyRule, DistributiveFactorOutRule

from .limits import DEFAULT_MAX_SEQ_LEN
from .parsing import ParsedExpression, parse
from .terms import factor_out_applies, is_simplified, like_terms_grouped

VARIABLES: str = "abcdfghjklmnopqrstuvwxyz"
"""Variables problems draw from ("e" and "i" are left out: they read as constants)."""
COMMON_VARIABLES: str = "xyz"
MAX_COEFFICIENT: int = 12
MAX_EXPONENT: int = 4
MAX_ATTEMPTS: int = 100
MAX_NODES: int = DEFAULT_MAX_SEQ_LEN
"""Generated problems have at most this many nodes (the default `max_seq_len`)."""

TermTemplate = Tuple[str, Optional[int]]
"""A kind of term: its variable and exponent (None for no exponent)."""


class GeneratedProblem(NamedTuple):
    """A generated problem text and its complexity."""

    text: str
    complexity: int


def chance(rng: np.random.Generator, probability: float) -> bool:
    """True with the given probability."""
    return bool(rng.random() < probability)


def rand_int(rng: np.random.Generator, low: int, high: int) -> int:
    """A uniform integer in `[low, high]` (both included)."""
    return int(rng.integers(low, high + 1))


def rand_variable(rng: np.random.Generator, common: bool = False) -> str:
    pool = COMMON_VARIABLES if common else VARIABLES
    return pool[int(rng.integers(len(pool)))]


def rand_coefficient(rng: np.random.Generator, low: int = 1, high: int = MAX_COEFFICIENT) -> int:
    return rand_int(rng, low, high)


def term_text(
    coefficient: Optional[int] = None,
    variable: Optional[str] = None,
    exponent: Optional[int] = None,
) -> str:
    """`4x^2`, `x^2`, `4x`, `x` or `4`."""
    text = "" if coefficient is None else str(coefficient)
    if variable is not None:
        text += variable
        if exponent is not None:
            text += f"^{exponent}"
    return text


def rand_term(
    rng: np.random.Generator,
    template: TermTemplate,
    coefficient_probability: float = 0.8,
) -> str:
    """A term of the given kind with a random (optional) coefficient."""
    variable, exponent = template
    coefficient = rand_coefficient(rng, 2) if chance(rng, coefficient_probability) else None
    return term_text(coefficient, variable, exponent)


def rand_templates(
    rng: np.random.Generator,
    count: int,
    exclude: Sequence[TermTemplate] = (),
    common: bool = False,
    exponent_probability: float = 0.3,
) -> List[TermTemplate]:
    """`count` distinct kinds of term, none of them in `exclude`."""
    taken = list(exclude)
    result: List[TermTemplate] = []
    failures = 0
    while len(result) < count:
        variable = rand_variable(rng, common and failures < 20)
        exponent = (
            rand_int(rng, 2, MAX_EXPONENT) if chance(rng, exponent_probability) else None
        )
        template = (variable, exponent)
        if template in taken:
            failures += 1
            if failures > 1000:
                raise ValueError(f"cannot find {count} distinct term kinds")
            continue
        taken.append(template)
        result.append(template)
    return result


def join_terms(
    rng: np.random.Generator,
    terms: Sequence[str],
    ops: Sequence[str] = ("+",),
    parenthesize_probability: float = 0.0,
) -> str:
    """Join terms with operators drawn from `ops`, sometimes wrapping a run of
    two or more (but not all) terms in parentheses."""
    pieces = list(terms)
    if len(pieces) >= 3 and chance(rng, parenthesize_probability):
        length = rand_int(rng, 2, len(pieces) - 1)
        start = rand_int(rng, 0, len(pieces) - length)
        inner = _join(rng, pieces[start : start + length], ops)
        pieces[start : start + length] = [f"({inner})"]
    return _join(rng, pieces, ops)


def _join(rng: np.random.Generator, pieces: Sequence[str], ops: Sequence[str]) -> str:
    text = pieces[0]
    for piece in pieces[1:]:
        op = ops[int(rng.integers(len(ops)))] if len(ops) > 1 else ops[0]
        text += f" {op} {piece}"
    return text


def shuffled(rng: np.random.Generator, items: Sequence[str]) -> List[str]:
    order = rng.permutation(len(items))
    return [items[int(i)] for i in order]


def retry(
    build: Callable[[], GeneratedProblem],
    rejects: Callable[[ParsedExpression], bool],
    family: str,
) -> GeneratedProblem:
    """Call `build` until its problem is not rejected and has at most `MAX_NODES`
    nodes (at most `MAX_ATTEMPTS` calls)."""
    for _ in range(MAX_ATTEMPTS):
        problem = build()
        parsed = parse(problem.text)
        if len(parsed) <= MAX_NODES and not rejects(parsed):
            return problem
    raise ValueError(
        f"{family}: no acceptable problem in {MAX_ATTEMPTS} attempts; "
        f"check the generator's knobs"
    )


def _tree_check(
    predicate: Callable[[MathExpression], bool],
) -> Callable[[ParsedExpression], bool]:
    return lambda parsed: predicate(parsed.tree)


# -- PolySimplify ---------------------------------------------------------------


def simplify_terms(
    rng: np.random.Generator,
    num_terms: int,
    ops: Sequence[str] = ("+",),
    noise_probability: float = 0.5,
    shuffle_probability: float = 0.66,
    parenthesize_probability: float = 0.2,
) -> GeneratedProblem:
    """A sum of `num_terms` terms holding groups of like terms.

    At least one kind of term appears twice or more; each leftover term is either
    noise (a kind that appears once) or one more like term. Terms are sometimes
    shuffled and a run of them sometimes parenthesized. Complexity: `num_terms`.
    """
    if num_terms < 2:
        raise ValueError(f"a simplify problem needs at least 2 terms, got {num_terms}")
    if not ops:
        raise ValueError("ops must name at least one operator")

    def build() -> GeneratedProblem:
        groups = rand_int(rng, 1, num_terms // 2)
        templates = rand_templates(rng, groups, common=True)
        members = [t for t in templates for _ in range(2)]
        noise_kinds: List[TermTemplate] = []
        for _ in range(num_terms - len(members)):
            if chance(rng, noise_probability):
                noise_kinds.extend(rand_templates(rng, 1, templates + noise_kinds))
            else:
                members.append(templates[int(rng.integers(len(templates)))])
        terms = [rand_term(rng, kind) for kind in members + noise_kinds]
        if chance(rng, shuffle_probability):
            terms = shuffled(rng, terms)
        text = join_terms(rng, terms, ops, parenthesize_probability)
        return GeneratedProblem(text, num_terms)

    return retry(build, _tree_check(is_simplified), "simplify_terms")


# -- shared building blocks -------------------------------------------------------


def rand_unlike_terms(
    rng: np.random.Generator,
    count: int,
    exclude: Sequence[TermTemplate] = (),
    constant_probability: float = 0.0,
    coefficient_probability: float = 0.8,
) -> Tuple[List[str], List[TermTemplate]]:
    """`count` terms of distinct kinds (none in `exclude`), at most one of them a
    plain constant. Returns the terms and the kinds used."""
    has_constant = count > 0 and chance(rng, constant_probability)
    kinds = rand_templates(rng, count - int(has_constant), exclude)
    terms = [rand_term(rng, kind, coefficient_probability) for kind in kinds]
    if has_constant:
        terms.insert(rand_int(rng, 0, len(terms)), str(rand_coefficient(rng)))
    return terms, kinds


def _parenthesized(terms: Sequence[str]) -> str:
    inner = " + ".join(terms)
    return f"({inner})" if len(terms) > 1 else inner


# -- PolySimplifyBlockers ---------------------------------------------------------


def commute_blockers(rng: np.random.Generator, num_blockers: int) -> GeneratedProblem:
    """Two like terms kept apart by a parenthesized group of blocker terms.

    Either `4x + (y + f) + x` (complexity `num_blockers + 2`) or the pair inside a
    four-term frame, `7a + 4x + (2f + j) + x + 3d` (complexity `num_blockers + 4`).
    """
    if num_blockers < 1:
        raise ValueError(f"num_blockers must be at least 1, got {num_blockers}")

    def build() -> GeneratedProblem:
        like = rand_templates(rng, 1, common=True)
        first, second = (rand_term(rng, like[0]) for _ in range(2))
        blockers, kinds = rand_unlike_terms(rng, num_blockers, like)
        middle = _parenthesized(blockers)
        if chance(rng, 0.5):
            return GeneratedProblem(f"{first} + {middle} + {second}", num_blockers + 2)
        frame, _ = rand_unlike_terms(rng, 2, like + kinds)
        text = f"{frame[0]} + {first} + {middle} + {second} + {frame[1]}"
        return GeneratedProblem(text, num_blockers + 4)

    return retry(build, _tree_check(is_simplified), "commute_blockers")


# -- PolyCombineInPlace -----------------------------------------------------------


def combine_in_place(
    rng: np.random.Generator, num_terms: int, parenthesize_probability: float = 0.3
) -> GeneratedProblem:
    """A long sum of unlike terms holding exactly one adjacent like pair, which two
    moves (factor out, then add the coefficients) combine. A parenthesized run
    never separates the pair. Complexity: `num_terms`."""
    if num_terms < 3:
        raise ValueError(f"num_terms must be at least 3, got {num_terms}")

    def build() -> GeneratedProblem:
        like = rand_templates(rng, 1)
        terms, _ = rand_unlike_terms(rng, num_terms - 2, like, constant_probability=0.3)
        pair = " + ".join(rand_term(rng, like[0]) for _ in range(2))
        terms.insert(rand_int(rng, 0, len(terms)), pair)
        return GeneratedProblem(
            join_terms(rng, terms, ("+",), parenthesize_probability), num_terms
        )

    def rejects(parsed: ParsedExpression) -> bool:
        return is_simplified(parsed.tree) or not combines_in_two_moves(parsed)

    return retry(build, rejects, "combine_in_place")


_FACTOR_OUT = DistributiveFactorOutRule()
_ADD_CONSTANTS = ConstantsSimplifyRule()


def combines_in_two_moves(start: ParsedExpression) -> bool:
    """Factoring out some node, then simplifying constants at some node, leaves a
    simplified expression."""
    for index, node in enumerate(start.nodes):
        if not _FACTOR_OUT.can_apply_to(node):
            continue
        factored = _rewritten(start, _FACTOR_OUT, index)
        for second, inner in enumerate(factored.nodes):
            if _ADD_CONSTANTS.can_apply_to(inner):
                if is_simplified(_rewritten(factored, _ADD_CONSTANTS, second).tree):
                    return True
    return False


def _rewritten(parsed: ParsedExpression, rule: BaseRule, index: int) -> ParsedExpression:
    change = parsed.rewrite(rule, index)
    assert change.result is not None
    return parse(str(change.result.get_root()))


# -- PolyCommuteLikeTerms and PolyGroupLikeTerms ----------------------------------


def commute_like_terms(
    rng: np.random.Generator, num_blockers: int, max_noise: int = 2
) -> GeneratedProblem:
    """A sum with one like pair separated by `num_blockers` unlike terms, plus up to
    `max_noise` unlike terms on each side. Complexity: `num_blockers + 1`."""
    if num_blockers < 1:
        raise ValueError(f"num_blockers must be at least 1, got {num_blockers}")

    def build() -> GeneratedProblem:
        like = rand_templates(rng, 1, common=True)
        left = rand_int(rng, 0, max_noise)
        right = rand_int(rng, 0, max_noise)
        others, _ = rand_unlike_terms(rng, left + num_blockers + right, like)
        pair = [rand_term(rng, like[0]) for _ in range(2)]
        terms = (
            others[:left]
            + [pair[0]]
            + others[left : left + num_blockers]
            + [pair[1]]
            + others[left + num_blockers :]
        )
        return GeneratedProblem(" + ".join(terms), num_blockers + 1)

    return retry(build, _tree_check(factor_out_applies), "commute_like_terms")


def group_like_terms(rng: np.random.Generator, num_terms: int) -> GeneratedProblem:
    """A shuffled sum of `num_terms` terms in which some kind of term appears more
    than once, and at least one kind is split into separate runs.
    Complexity: `num_terms`."""
    if num_terms < 3:
        raise ValueError(f"num_terms must be at least 3, got {num_terms}")

    def build() -> GeneratedProblem:
        groups = rand_int(rng, 1, max(1, num_terms // 3))
        kinds = rand_templates(rng, groups, common=True)
        members = [kind for kind in kinds for _ in range(2)]
        for _ in range(num_terms - len(members)):
            if chance(rng, 0.5):
                members.append(kinds[int(rng.integers(len(kinds)))])
            else:
                members.extend(rand_templates(rng, 1, kinds + members))
        terms = shuffled(rng, [rand_term(rng, kind) for kind in members])
        return GeneratedProblem(" + ".join(terms), num_terms)

    return retry(build, _tree_check(like_terms_grouped), "group_like_terms")


# -- PolyHaystackLikeTerms --------------------------------------------------------


def haystack_like_terms(rng: np.random.Generator, num_terms: int) -> GeneratedProblem:
    """A sum of `num_terms` terms, each a coefficient times a variable (maybe with
    an exponent), in which exactly one pair of terms is alike. Complexity: 2."""
    if num_terms < 2:
        raise ValueError(f"num_terms must be at least 2, got {num_terms}")

    def build() -> GeneratedProblem:
        kinds = rand_templates(rng, num_terms - 1)
        terms = [rand_term(rng, kind, coefficient_probability=1.0) for kind in kinds]
        like = kinds[int(rng.integers(len(kinds)))]
        terms.append(rand_term(rng, like, 1.0))
        return GeneratedProblem(" + ".join(shuffled(rng, terms)), 2)

    return retry(build, lambda parsed: False, "haystack_like_terms")


# -- ComplexSimplify ----------------------------------------------------------------


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

    def rejects(parsed: ParsedExpression) -> bool:
        return is_simplified(parsed.tree) or strands_a_power(parsed.tree)

    return retry(build, rejects, "complex_product")


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


# -- BinomialDistribute -------------------------------------------------------------


@dataclass(frozen=True)
class BinomialStyle:
    """Knobs of the binomial families: how often a term gets a coefficient or a
    power, how often a binomial's second term is another variable, and whether
    variables come from the common `x, y, z`."""

    coefficient_probability: float = 0.0
    power_probability: float = 0.0
    second_variable_probability: float = 0.0
    common_variables: bool = True


def _binomial_terms(
    rng: np.random.Generator, variable: str, style: BinomialStyle
) -> Tuple[str, str]:
    exponent = rand_int(rng, 2, 3) if chance(rng, style.power_probability) else None
    coefficient = (
        rand_coefficient(rng, 2) if chance(rng, style.coefficient_probability) else None
    )
    head = term_text(coefficient, variable, exponent)
    if chance(rng, style.second_variable_probability):
        other = rand_variable(rng)
        tail = term_text(rand_coefficient(rng, 2), other if other != variable else None)
    else:
        tail = str(rand_coefficient(rng))
    return head, tail


def binomial_times_binomial(
    rng: np.random.Generator, style: BinomialStyle = BinomialStyle()
) -> GeneratedProblem:
    """`(x + 2)(x + 3)`, with coefficients, powers and a second variable as often
    as `style` says. Complexity: 4 (the terms of the two factors)."""

    def build() -> GeneratedProblem:
        variable = rand_variable(rng, common=style.common_variables)
        a, b = _binomial_terms(rng, variable, style)
        c, d = _binomial_terms(rng, variable, style)
        return GeneratedProblem(f"({a} + {b})({c} + {d})", 4)

    return retry(build, _tree_check(is_simplified), "binomial_times_binomial")


def binomial_times_monomial(
    rng: np.random.Generator, style: BinomialStyle = BinomialStyle()
) -> GeneratedProblem:
    """`(k + 2) * k`, with coefficients and powers as often as `style` says.
    Complexity: 3 (the terms of the two factors)."""

    def build() -> GeneratedProblem:
        variable = rand_variable(rng, common=style.common_variables)
        a, b = _binomial_terms(rng, variable, style)
        exponent = rand_int(rng, 2, 3) if chance(rng, style.power_probability) else None
        coefficient = (
            rand_coefficient(rng, 2) if chance(rng, style.coefficient_probability) else None
        )
        monomial = term_text(coefficient, variable, exponent)
        return GeneratedProblem(f"({a} + {b}) * {monomial}", 3)

    return retry(build, _tree_check(is_simplified), "binomial_times_monomial")


__all__ = (
    "BinomialStyle",
    "COMMON_VARIABLES",
    "binomial_times_binomial",
    "binomial_times_monomial",
    "combine_in_place",
    "combines_in_two_moves",
    "commute_blockers",
    "commute_like_terms",
    "complex_product",
    "group_like_terms",
    "haystack_like_terms",
    "rand_unlike_terms",
    "GeneratedProblem",
    "MAX_ATTEMPTS",
    "MAX_NODES",
    "TermTemplate",
    "VARIABLES",
    "chance",
    "join_terms",
    "rand_coefficient",
    "rand_int",
    "rand_templates",
    "rand_term",
    "product_factors",
    "rand_variable",
    "retry",
    "shuffled",
    "simplify_terms",
    "strands_a_power",
    "term_text",
)
