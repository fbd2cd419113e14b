"""PolyGroupLikeTerms: reorder a sum so each kind of term forms one run.

Its generator, `poly_group_like_terms_problem` (built on `group_like_terms`), is
above the env."""

import numpy as np
from mathy_core import MathExpression

from ..problems import (
    NativeFamily,
    GeneratedProblem,
    chance,
    rand_int,
    rand_templates,
    rand_term,
    retry,
    shuffled,
    tree_check,
)
from ..state import MathyEnvState
from .._engine import GOAL_LIKE_TERMS_GROUPED, like_terms_grouped
from .._support.pristine import pristine
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .generation import generator_difficulty
from .goal import GoalEnv

NAMESPACE = "mathy.polynomials.group_like_terms"

TERM_COUNTS = {
    MathyEnvDifficulty.easy: (5, 7),
    MathyEnvDifficulty.normal: (5, 10),
    MathyEnvDifficulty.hard: (11, 16),
}


def poly_group_like_terms_problem(
    rng: np.random.Generator, params: MathyEnvProblemArgs, *, namespace: str = NAMESPACE
) -> MathyEnvProblem:
    """A PolyGroupLikeTerms problem: `group_like_terms` with a term count drawn
    from `TERM_COUNTS[params.difficulty]`."""
    low, high = TERM_COUNTS[generator_difficulty(rng, params, namespace)]
    drawn = _NATIVE.draw(rng, (low, high))
    if drawn is None:
        drawn = group_like_terms(rng, rand_int(rng, low, high))
    return MathyEnvProblem(drawn.text, drawn.complexity, namespace)


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

    return retry(build, tree_check(like_terms_grouped), "group_like_terms")


_NATIVE = NativeFamily(
    "group_like_terms", poly_group_like_terms_problem, group_like_terms
)
"""The native core's draws of this generator (`NativeFamily`)."""


@pristine
class PolyGroupLikeTerms(GoalEnv):
    """Reorder the terms of a sum so that like terms sit next to each other.

    ## Description
    The agent commutes and regroups terms until every kind of term (its variables
    and exponent) forms one contiguous run, without needing to combine them.
    `4x + x + 2y` is grouped; `4x + 2y + x` is not. Example problems:
    `4x + 2y + x + 7z + y` and `x^2 + 3k + 5x^2 + 2y + 9k + y`.

    ## Action Space
    As for every `GoalEnv` (see its docstring): `(rule, node)` over the seven
    core rules.

    ## Observation Space
    As for every `GoalEnv` (see its docstring).

    ## Rewards
    The win signal once grouped; `LOSE` (-1) on running out of moves or a fourth
    revisit; otherwise the `MathyEnv` step rewards.

    ## Starting State
    `poly_group_like_terms_problem` (in this file): a shuffled sum of 5-7 terms
    (easy), 5-10 (normal) or 11-16 (hard) with one or more kinds of term split
    apart. Complexity is the number of terms.

    ## Episode End
    Won when each kind of term forms one run; lost after `complexity * 4` moves or
    on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    namespace = NAMESPACE
    generator = staticmethod(poly_group_like_terms_problem)
    native_goal = GOAL_LIKE_TERMS_GROUPED

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        return like_terms_grouped(self.tree_of(env_state, expression))


__all__ = (
    "NAMESPACE",
    "PolyGroupLikeTerms",
    "TERM_COUNTS",
    "group_like_terms",
    "poly_group_like_terms_problem",
)
