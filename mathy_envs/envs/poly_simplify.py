"""PolySimplify: combine like terms until the polynomial is fully simplified.

Its generator, `poly_simplify_problem` (built on `simplify_terms`), is above the
env."""

from typing import Any, List, Optional, Sequence

import numpy as np

from ..problems import (
    GeneratedProblem,
    NativeFamily,
    TermTemplate,
    chance,
    defaults_of,
    join_terms,
    rand_int,
    rand_templates,
    rand_term,
    retry,
    shuffled,
)
from .._engine import simplified_entry
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .generation import generator_difficulty
from .goal import SimplifyGoalEnv

NAMESPACE = "mathy.polynomials.simplify"

TERM_COUNTS = {
    MathyEnvDifficulty.easy: (2, 5),
    MathyEnvDifficulty.normal: (4, 7),
    MathyEnvDifficulty.hard: (4, 9),
}


def poly_simplify_problem(
    rng: np.random.Generator,
    params: MathyEnvProblemArgs,
    *,
    ops: Sequence[str] = ("+",),
    namespace: str = NAMESPACE,
) -> MathyEnvProblem:
    """A PolySimplify problem: `simplify_terms` with a term count drawn from
    `TERM_COUNTS[params.difficulty]`."""
    low, high = TERM_COUNTS[generator_difficulty(rng, params, namespace)]
    drawn = _NATIVE.draw(rng, (low, high), _SIMPLIFY_CHANCES, ops)
    if drawn is None:
        drawn = simplify_terms(rng, rand_int(rng, low, high), ops=ops)
    return MathyEnvProblem(drawn.text, drawn.complexity, namespace)


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

    return retry(build, simplified_entry, "simplify_terms")


_NATIVE = NativeFamily("poly_simplify", poly_simplify_problem, simplify_terms)
"""The native core's draws of this generator (`NativeFamily`)."""
_SIMPLIFY_CHANCES = defaults_of(
    simplify_terms, "noise_probability", "shuffle_probability", "parenthesize_probability"
)


class PolySimplify(SimplifyGoalEnv):
    """Simplify a polynomial by combining its like terms.

    ## Description
    The agent rewrites a sum of terms such as `4x + 2y + 2x` until no like terms
    remain and every term is in the preferred form (`6x + 2y`). Example problems:
    `2x + 5y + x` and `4x^2 + (3z + 7x^2) + z`.

    ## Action Space
    As for every `GoalEnv` (see its docstring): `(rule, node)` over the seven
    core rules.

    ## Observation Space
    As for every `GoalEnv` (see its docstring).

    ## Rewards
    The win signal (`1 + 1/moves_used`, capped at 2) when the expression is
    simplified; `LOSE` (-1) on running out of moves or visiting an expression a
    fourth time; otherwise the `MathyEnv` step rewards (helpful +0.01, unhelpful
    -0.01, time step -0.01, revisits -0.02 per visit).

    ## Starting State
    `poly_simplify_problem` (in this file): a sum of terms with at least one group of
    like terms, sometimes shuffled or partly parenthesized: 2-5 terms (easy), 4-7
    (normal), 4-9 (hard). Complexity is the number of terms.

    ## Episode End
    The episode is won when no like terms remain and every term is in preferred
    form; it is lost after `complexity * 4` moves or on a fourth revisit.

    ## Arguments
    - `ops`: the operators placed between generated terms (default `["+"]`)
    - every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...)
    """

    namespace = NAMESPACE
    generator = staticmethod(poly_simplify_problem)

    def __init__(self, ops: Optional[List[str]] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ops: List[str] = list(ops) if ops is not None else ["+"]
        """The operators placed between generated terms."""
        if not self.ops:
            raise ValueError("ops must name at least one operator")

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        """The class's `generator`, with this env's `ops`."""
        return poly_simplify_problem(
            self.np_random, params, ops=self.ops, namespace=self.get_env_namespace()
        )


__all__ = (
    "NAMESPACE",
    "PolySimplify",
    "TERM_COUNTS",
    "poly_simplify_problem",
    "simplify_terms",
)
