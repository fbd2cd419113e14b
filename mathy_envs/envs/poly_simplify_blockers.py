"""PolySimplifyBlockers: move a like term around blockers, then simplify.

Its generator, `poly_simplify_blockers_problem` (built on `commute_blockers`), is
above the env."""

from typing import Sequence

import numpy as np

from ..problems import (
    NativeFamily,
    GeneratedProblem,
    chance,
    rand_int,
    rand_templates,
    rand_term,
    rand_unlike_terms,
    retry,
)
from .._engine import simplified_entry
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .generation import generator_difficulty
from .goal import SimplifyGoalEnv

NAMESPACE = "mathy.polynomials.commute_then_simplify"

BLOCKER_COUNTS = {
    MathyEnvDifficulty.easy: (1, 2),
    MathyEnvDifficulty.normal: (2, 4),
    MathyEnvDifficulty.hard: (3, 6),
}


def poly_simplify_blockers_problem(
    rng: np.random.Generator, params: MathyEnvProblemArgs, *, namespace: str = NAMESPACE
) -> MathyEnvProblem:
    """A PolySimplifyBlockers problem: `commute_blockers` with a blocker count
    drawn from `BLOCKER_COUNTS[params.difficulty]`."""
    low, high = BLOCKER_COUNTS[generator_difficulty(rng, params, namespace)]
    drawn = _NATIVE.draw(rng, (low, high))
    if drawn is None:
        drawn = commute_blockers(rng, rand_int(rng, low, high))
    return MathyEnvProblem(drawn.text, drawn.complexity, namespace)


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

    return retry(build, simplified_entry, "commute_blockers")


def _parenthesized(terms: Sequence[str]) -> str:
    inner = " + ".join(terms)
    return f"({inner})" if len(terms) > 1 else inner


_NATIVE = NativeFamily(
    "simplify_blockers", poly_simplify_blockers_problem, commute_blockers, _parenthesized
)
"""The native core's draws of this generator (`NativeFamily`)."""


class PolySimplifyBlockers(SimplifyGoalEnv):
    """Simplify a polynomial whose like terms are kept apart by blocker terms.

    ## Description
    Two like terms are separated by a parenthesized group of unlike "blocker"
    terms, so the agent must commute and regroup before it can combine them.
    Example problems: `4x + (y + f) + x` and `7a + 4x + (2f + j) + x + 3d`.

    ## Action Space
    As for every `GoalEnv` (see its docstring): `(rule, node)` over the seven
    core rules.

    ## Observation Space
    As for every `GoalEnv` (see its docstring).

    ## Rewards
    The win signal (`1 + 1/moves_used`, capped at 2) on simplifying; `LOSE` (-1)
    on running out of moves or a fourth revisit; otherwise the `MathyEnv` step
    rewards.

    ## Starting State
    `poly_simplify_blockers_problem` (in this file): a like pair around 1-2
    blockers (easy), 2-4 (normal) or 3-6 (hard), either alone or inside a
    four-term frame. Complexity is the number of terms.

    ## Episode End
    Won when no like terms remain and every term is in preferred form; lost after
    `complexity * 4` moves or on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    namespace = NAMESPACE
    generator = staticmethod(poly_simplify_blockers_problem)


__all__ = (
    "BLOCKER_COUNTS",
    "NAMESPACE",
    "PolySimplifyBlockers",
    "commute_blockers",
    "poly_simplify_blockers_problem",
)
