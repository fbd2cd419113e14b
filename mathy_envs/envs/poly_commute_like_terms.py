"""PolyCommuteLikeTerms: bring a like pair together so it can be factored.

Its generator, `poly_commute_like_terms_problem` (built on `commute_like_terms`), is
above the env."""

import numpy as np
from mathy_core import MathExpression

from ..problems import (
    NativeFamily,
    GeneratedProblem,
    defaults_of,
    rand_int,
    rand_templates,
    rand_term,
    rand_unlike_terms,
    retry,
    tree_check,
)
from ..state import MathyEnvState
from .._engine import GOAL_FACTOR_OUT_APPLIES, factor_out_applies
from .._support.pristine import pristine
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .generation import generator_difficulty
from .goal import GoalEnv

NAMESPACE = "mathy.polynomials.commute.like.terms"

BLOCKER_COUNTS = {
    MathyEnvDifficulty.easy: (1, 2),
    MathyEnvDifficulty.normal: (2, 3),
    MathyEnvDifficulty.hard: (5, 9),
}


def poly_commute_like_terms_problem(
    rng: np.random.Generator, params: MathyEnvProblemArgs, *, namespace: str = NAMESPACE
) -> MathyEnvProblem:
    """A PolyCommuteLikeTerms problem: `commute_like_terms` with a blocker count
    drawn from `BLOCKER_COUNTS[params.difficulty]`."""
    low, high = BLOCKER_COUNTS[generator_difficulty(rng, params, namespace)]
    drawn = _NATIVE.draw(rng, (low, high, *_MAX_NOISE))
    if drawn is None:
        drawn = commute_like_terms(rng, rand_int(rng, low, high))
    return MathyEnvProblem(drawn.text, drawn.complexity, namespace)


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

    return retry(build, tree_check(factor_out_applies), "commute_like_terms")


_NATIVE = NativeFamily(
    "commute_like_terms", poly_commute_like_terms_problem, commute_like_terms
)
"""The native core's draws of this generator (`NativeFamily`)."""
_MAX_NOISE = defaults_of(commute_like_terms, "max_noise")


@pristine
class PolyCommuteLikeTerms(GoalEnv):
    """Commute and regroup terms until two like terms can be factored together.

    ## Description
    A sum holds one like pair separated by `k` unlike terms. The agent wins as soon
    as distributive factor out applies somewhere, i.e. the pair sits together.
    Example problems: `4x + 2y + 3x` and `5b + 2z + 7a + 8k + z + 3m`.

    ## Action Space
    As for every `GoalEnv` (see its docstring): `(rule, node)` over the seven
    core rules.

    ## Observation Space
    As for every `GoalEnv` (see its docstring).

    ## Rewards
    The win signal when factor out becomes possible; `LOSE` (-1) on running out of
    moves or a fourth revisit; otherwise the `MathyEnv` step rewards.

    ## Starting State
    `poly_commute_like_terms_problem` (in this file): `k` blockers between the pair, 1-2
    (easy), 2-3 (normal) or 5-9 (hard), with up to two unlike terms on each side.
    Complexity is `k + 1`.

    ## Episode End
    Won when distributive factor out applies to some node; lost after
    `complexity * 4` moves or on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    namespace = NAMESPACE
    generator = staticmethod(poly_commute_like_terms_problem)
    native_goal = GOAL_FACTOR_OUT_APPLIES

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        return factor_out_applies(self.tree_of(env_state, expression))


__all__ = (
    "BLOCKER_COUNTS",
    "NAMESPACE",
    "PolyCommuteLikeTerms",
    "commute_like_terms",
    "poly_commute_like_terms_problem",
)
