"""Seeded problem generators.

Every generator is a plain function of a `numpy.random.Generator` and its knobs,
returning a `GeneratedProblem(text, complexity)`. Generators never touch the
global `random` or `numpy.random` state and never iterate over sets or dicts of
strings, so a seed yields the same problems in every process. Generators whose
families can produce an already-won problem retry (at most `MAX_ATTEMPTS` times).
"""

from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
from mathy_core import MathExpression

from .parsing import parse
from .terms import is_simplified

VARIABLES: str = "abcdfghjklmnopqrstuvwxyz"
"""Variables problems draw from ("e" and "i" are left out: they read as constants)."""
COMMON_VARIABLES: str = "xyz"
MAX_COEFFICIENT: int = 12
MAX_EXPONENT: int = 4
MAX_ATTEMPTS: int = 100

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
    rejects: Callable[[MathExpression], bool],
    family: str,
) -> GeneratedProblem:
    """Call `build` until its problem is not rejected (at most `MAX_ATTEMPTS`)."""
    for _ in range(MAX_ATTEMPTS):
        problem = build()
        if not rejects(parse(problem.text).tree):
            return problem
    raise ValueError(
        f"{family}: no acceptable problem in {MAX_ATTEMPTS} attempts; "
        f"check the generator's knobs"
    )


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

    return retry(build, is_simplified, "simplify_terms")


__all__ = (
    "COMMON_VARIABLES",
    "GeneratedProblem",
    "MAX_ATTEMPTS",
    "TermTemplate",
    "VARIABLES",
    "chance",
    "join_terms",
    "rand_coefficient",
    "rand_int",
    "rand_templates",
    "rand_term",
    "rand_variable",
    "retry",
    "shuffled",
    "simplify_terms",
    "term_text",
)
