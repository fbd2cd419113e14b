"""The term primitives problem generators are built from.

Each environment's generator lives in the environment's own file (for example
`simplify_terms` in `mathy_envs/envs/poly_simplify.py`); this module holds what
they share: random terms, kinds of term and operators, `retry` and the
`GeneratedProblem` they return.

Every generator is a plain function of a `numpy.random.Generator` and its knobs,
returning a `GeneratedProblem(text, complexity)`. Generators never touch the
global `random` or `numpy.random` state and never iterate over sets or dicts of
strings, so a seed yields the same problems in every process. Generators whose
families can produce an already-won problem retry (at most `MAX_ATTEMPTS` times)
with `retry`.
"""

import inspect
import operator
import sys
import threading
import warnings
from itertools import chain
from operator import is_
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
from mathy_core import MathExpression

from .limits import DEFAULT_MAX_SEQ_LEN
from ._engine import parse
from ._engine import ParsedExpression, private_entry
from ._engine import copy_tree, draw_problem, is_library_code
from ._support.pristine import changed_module_attribute
from ._engine import (
    factor_out_applies,
    factor_out_entry,
    is_simplified,
    like_terms_grouped,
    like_terms_grouped_entry,
    simplified_entry,
)

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
    """A variable from `VARIABLES`, or from `COMMON_VARIABLES` with `common`."""
    pool = COMMON_VARIABLES if common else VARIABLES
    return pool[int(rng.integers(len(pool)))]


def rand_coefficient(rng: np.random.Generator, low: int = 1, high: int = MAX_COEFFICIENT) -> int:
    """A uniform coefficient in `[low, high]`."""
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
    """The items in a random order."""
    order = rng.permutation(len(items))
    return [items[int(i)] for i in order]


def retry(
    build: Callable[[], GeneratedProblem],
    rejects: Callable[[ParsedExpression], bool],
    family: str,
) -> GeneratedProblem:
    """Call `build` until its problem is not rejected and has at most `MAX_NODES`
    nodes (at most `MAX_ATTEMPTS` calls)."""
    # User code is given a private copy of the cached parse.
    private = not is_library_code(rejects)
    for _ in range(MAX_ATTEMPTS):
        problem = build()
        parsed = parse(problem.text)
        if len(parsed) <= MAX_NODES and not rejects(private_entry(parsed) if private else parsed):
            return problem
    raise ValueError(
        f"{family}: no acceptable problem in {MAX_ATTEMPTS} attempts; "
        f"check the generator's knobs"
    )


def tree_check(
    predicate: Callable[[MathExpression], bool],
) -> Callable[[ParsedExpression], bool]:
    """A `retry` rejection test from a test of the expression tree, e.g.
    `tree_check(is_simplified)` rejects problems that are already simplified.

    The library's `is_simplified`, `factor_out_applies` and `like_terms_grouped`
    give the engine's tests of a parsed text (the same verdicts, made without
    a tree where the engine can)."""
    for known, entry_check in _ENTRY_CHECKS:
        if predicate is known:
            return entry_check
    if is_library_code(predicate):
        return lambda parsed: predicate(parsed.tree)
    return lambda parsed: predicate(copy_tree(parsed.tree))


_ENTRY_CHECKS: Tuple[
    Tuple[Callable[[MathExpression], bool], Callable[[ParsedExpression], bool]], ...
] = (
    (is_simplified, simplified_entry),
    (factor_out_applies, factor_out_entry),
    (like_terms_grouped, like_terms_grouped_entry),
)
"""The tree predicates `tree_check` answers from the parsed text's entry."""


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


def defaults_of(function: Callable[..., Any], *names: str) -> Tuple[Any, ...]:
    """The default values of `function`'s parameters `names`."""
    parameters = inspect.signature(function).parameters
    return tuple(parameters[name].default for name in names)


_internals = operator.attrgetter("__code__", "__defaults__", "__kwdefaults__")
"""What a function runs and reads: its code and its defaults (the objects:
a function's defaults are compared by identity, as an equal default may still
behave otherwise)."""


class NativeFamily:
    """A built-in generator family the native core draws too.

    An env file makes one at import, naming its family and the functions of
    its own generator (the primitives of this module are added); the
    generator asks `draw` first and draws in Python where it gives None. The
    native core reproduces those functions as they were at import: `draw`
    gives None where any of them, or any function or constant of the
    library's modules, was replaced since, so that no code of yours is ever
    skipped.
    """

    def __init__(self, family: str, *functions: Callable[..., Any]) -> None:
        self.family = family
        self._functions = functions + _PRIMITIVES
        self._recorded = tuple(chain.from_iterable(map(_internals, self._functions)))
        self._lock = threading.Lock()
        self._asked = self._drawn = 0
        if functions:
            with _FAMILIES_LOCK:
                _FAMILIES[functions[0]] = self

    def counts(self) -> Tuple[int, int]:
        """How many problems the family's generators asked `draw` for, and how
        many of them the native core drew, so far in this process."""
        with self._lock:
            return self._asked, self._drawn

    def draw(
        self,
        rng: np.random.Generator,
        counts: Optional[Sequence[int]],
        chances: Sequence[float] = (),
        ops: Sequence[str] = (),
    ) -> Optional[GeneratedProblem]:
        """The problem the family's Python generator would draw from `rng` with
        these knobs (None for `counts`: knobs the native core does not read),
        drawn by the native core; None, `rng` unchanged, where Python must."""
        drawn = None
        if (
            counts is not None
            and changed_module_attribute() is None
            and all(map(is_, chain.from_iterable(map(_internals, self._functions)), self._recorded))
        ):
            drawn = draw_problem(
                self.family, rng, counts, chances, ops, VARIABLES, COMMON_VARIABLES,
                (MAX_COEFFICIENT, MAX_EXPONENT, MAX_ATTEMPTS, MAX_NODES),
            )
        with self._lock:
            self._asked += 1
            self._drawn += drawn is not None
        return None if drawn is None else GeneratedProblem(*drawn)


_FAMILIES: Dict[Callable[..., Any], NativeFamily] = {}
"""Each family by the generator it was made for (its first function)."""
_FAMILIES_LOCK = threading.Lock()


def native_family(generator: Callable[..., Any]) -> Optional[NativeFamily]:
    """The `NativeFamily` of a built-in generator (an env class's `generator`),
    or None."""
    with _FAMILIES_LOCK:
        return _FAMILIES.get(generator)


_PRIMITIVES: Tuple[Callable[..., Any], ...] = (
    chance, rand_int, rand_variable, rand_coefficient, term_text, rand_term, rand_templates,
    join_terms, _join, shuffled, retry, rand_unlike_terms, tree_check,
    # ... and the engine's, which they call
    parse, private_entry, is_library_code, simplified_entry, factor_out_entry,
    like_terms_grouped_entry,
)
"""The functions the generators are built from: this module's, and those of
the engine they call."""


# Where the env-specific generators went (they used to live here): importing one
# of these names from `mathy_envs.problems` still works, with a DeprecationWarning.
_MOVED: Dict[str, str] = {
    "simplify_terms": "poly_simplify",
    "commute_blockers": "poly_simplify_blockers",
    "combine_in_place": "poly_combine_in_place",
    "combines_in_two_moves": "poly_combine_in_place",
    "commute_like_terms": "poly_commute_like_terms",
    "group_like_terms": "poly_group_like_terms",
    "haystack_like_terms": "poly_haystack_like_terms",
    "complex_product": "complex_simplify",
    "product_factors": "complex_simplify",
    "strands_a_power": "complex_simplify",
    "BinomialStyle": "binomial_distribute",
    "binomial_times_binomial": "binomial_distribute",
    "binomial_times_monomial": "binomial_distribute",
}


def __getattr__(name: str) -> Any:
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    path = f"mathy_envs.envs.{module}"
    warnings.warn(
        f"mathy_envs.problems.{name} moved to {path}.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    # Not an import (this module sits below `envs`): importing any mathy_envs
    # module runs the package's `__init__`, which has loaded every env module.
    return getattr(sys.modules[path], name)


__all__ = (
    "COMMON_VARIABLES",
    "GeneratedProblem",
    "MAX_ATTEMPTS",
    "MAX_COEFFICIENT",
    "MAX_EXPONENT",
    "MAX_NODES",
    "NativeFamily",
    "TermTemplate",
    "VARIABLES",
    "chance",
    "defaults_of",
    "join_terms",
    "native_family",
    "rand_coefficient",
    "rand_int",
    "rand_templates",
    "rand_term",
    "rand_unlike_terms",
    "rand_variable",
    "retry",
    "shuffled",
    "term_text",
    "tree_check",
)
