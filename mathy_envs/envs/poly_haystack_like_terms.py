"""PolyHaystackLikeTerms: find the one pair of like terms in a sum.

Its generator, `poly_haystack_like_terms_problem` (built on `haystack_like_terms`),
is above the env."""

from typing import Any, List, Optional, Sequence, Tuple, Type

import numpy as np
from mathy_core import BaseRule, MathExpression
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from ..problems import (
    NativeFamily,
    GeneratedProblem,
    rand_int,
    rand_templates,
    rand_term,
    retry,
    shuffled,
)
from ..state import MathyEnvState
from .._support.pristine import pristine
from .._engine import GOAL_ACTED_AT_LIKE_TERM, like_term_indexes, term_indexes
from ..types import EnvRewards, MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .generation import generator_difficulty
from .goal import GoalEnv

NAMESPACE = "mathy.polynomials.haystack.like.terms"

TERM_COUNTS = {
    MathyEnvDifficulty.easy: (3, 8),
    MathyEnvDifficulty.normal: (4, 7),
    MathyEnvDifficulty.hard: (5, 12),
}


def poly_haystack_like_terms_problem(
    rng: np.random.Generator, params: MathyEnvProblemArgs, *, namespace: str = NAMESPACE
) -> MathyEnvProblem:
    """A PolyHaystackLikeTerms problem: `haystack_like_terms` with a term count
    drawn from `TERM_COUNTS[params.difficulty]`."""
    low, high = TERM_COUNTS[generator_difficulty(rng, params, namespace)]
    drawn = _NATIVE.draw(rng, (low, high))
    if drawn is None:
        drawn = haystack_like_terms(rng, rand_int(rng, low, high))
    return MathyEnvProblem(drawn.text, drawn.complexity, namespace)


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


_NATIVE = NativeFamily(
    "haystack_like_terms", poly_haystack_like_terms_problem, haystack_like_terms
)
"""The native core's draws of this generator (`NativeFamily`)."""


@pristine
class PolyHaystackLikeTerms(GoalEnv):
    """Act on a term that has a like term somewhere else in the sum.

    ## Description
    A sum of terms holds exactly one pair of like terms. The agent wins by applying
    any rule at the node of one of those two terms (the term's own node, such as
    the `*` of `4x`). Example problems: `4x + 2y + 9k + 3x` and
    `7b^2 + 2q + 5m + 3q + 8z`.

    ## Action Space
    As for every `GoalEnv` (see its docstring), with one difference: commutative
    swap may reorder preferred-form terms (`preferred_term_commute=True`), so
    every term node has a valid action.

    ## Observation Space
    As for every `GoalEnv` (see its docstring).

    ## Rewards
    The win signal on acting at a like term. Every rule but restate subtraction
    is penalized (-0.01). On running out of moves the reward is `LOSE` minus the
    distance (in node indexes) from the last acted node to the nearest like term,
    divided by the largest term index (clipped so it is in [-2, -1]).

    ## Starting State
    `poly_haystack_like_terms_problem` (in this file): 3-8 terms (easy), 4-7
    (normal) or 5-12 (hard), each a coefficient times a variable (sometimes with
    an exponent). Complexity is 2.

    ## Episode End
    Won on acting at a like term; lost after `complexity` (2) moves or on a fourth
    revisit.

    ## Arguments
    - `preferred_term_commute`: defaults to True here (see Action Space)
    - every other `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`,
      `seed`, ...)
    """

    namespace = NAMESPACE
    generator = staticmethod(poly_haystack_like_terms_problem)

    moves_per_complexity = 1
    goal_depends_on_history = True
    native_goal = GOAL_ACTED_AT_LIKE_TERM

    def __init__(self, preferred_term_commute: bool = True, **kwargs: Any) -> None:
        super().__init__(preferred_term_commute=preferred_term_commute, **kwargs)

    def get_rewarding_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
        return [RestateSubtractionRule]

    def get_penalizing_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
        return [
            ConstantsSimplifyRule,
            CommutativeSwapRule,
            DistributiveMultiplyRule,
            DistributiveFactorOutRule,
            AssociativeSwapRule,
            VariableMultiplyRule,
        ]

    def _last_acted_node(
        self, env_state: MathyEnvState
    ) -> Optional[Tuple[Sequence[MathExpression], int]]:
        """The in-order nodes of the expression the last action was applied to,
        and the index of the node it was applied at."""
        history = env_state.agent.history
        if len(history) < 2:
            return None
        return self._expressions.parse(history[-2].raw).nodes, history[-1].action[1]

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        acted = self._last_acted_node(env_state)
        if acted is None:
            return False
        nodes, index = acted
        return index in like_term_indexes(nodes)

    def get_lose_signal(self, env_state: MathyEnvState) -> float:
        acted = self._last_acted_node(env_state)
        if acted is None:
            return EnvRewards.LOSE
        nodes, index = acted
        likes = like_term_indexes(nodes)
        terms = term_indexes(nodes)
        if not likes or not terms:
            return EnvRewards.LOSE
        distance = min(abs(index - like) for like in likes)
        return self.lose_at_distance(distance, max(terms))

    def lose_at_distance(self, distance: int, largest: int) -> float:
        """The lose signal of a last move at `distance` nodes from the nearest
        like term, the largest term index being `largest`."""
        return EnvRewards.LOSE - min(1.0, distance / max(1, largest))

    def native_losses(self, length: int) -> Optional[Tuple[List[float], float]]:
        table = [
            float(self.lose_at_distance(distance, largest))
            for largest in range(length)
            for distance in range(length)
        ]
        return table, float(EnvRewards.LOSE)


__all__ = (
    "NAMESPACE",
    "PolyHaystackLikeTerms",
    "TERM_COUNTS",
    "haystack_like_terms",
    "poly_haystack_like_terms_problem",
)
