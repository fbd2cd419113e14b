"""PolyGroupLikeTerms: reorder a sum so each kind of term forms one run."""

from mathy_core import MathExpression

from ..problems import group_like_terms, rand_int
from ..state import MathyEnvState
from ..terms import like_terms_grouped
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .goal import GoalEnv

TERM_COUNTS = {
    MathyEnvDifficulty.easy: (5, 7),
    MathyEnvDifficulty.normal: (5, 10),
    MathyEnvDifficulty.hard: (11, 16),
}


class PolyGroupLikeTerms(GoalEnv):
    """Reorder the terms of a sum so that like terms sit next to each other.

    ## Description
    The agent commutes and regroups terms until every kind of term (its variables
    and exponent) forms one contiguous run, without needing to combine them.
    `4x + x + 2y` is grouped; `4x + 2y + x` is not. Example problems:
    `4x + 2y + x + 7z + y` and `x^2 + 3k + 5x^2 + 2y + 9k + y`.

    ## Action Space
    `Discrete(len(rules) * max_seq_len)`: `(rule, node)` flattened as
    `rule * max_seq_len + node`, nodes counted left to right (in-order), with the
    seven core rules.

    ## Observation Space
    Any of the four observation types of `MathyEnvState.to_observation` (flat by
    default), built from the expression tree and the valid-move mask.

    ## Rewards
    The win signal once grouped; `LOSE` (-1) on running out of moves or a fourth
    revisit; otherwise the `MathyEnv` step rewards.

    ## Starting State
    A shuffled sum of 5-7 terms (easy), 5-10 (normal) or 11-16 (hard) with one or
    more kinds of term split apart. Complexity is the number of terms.

    ## Episode End
    Won when each kind of term forms one run; lost after `complexity * 4` moves or
    on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    def get_env_namespace(self) -> str:
        return "mathy.polynomials.group_like_terms"

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        return like_terms_grouped(expression)

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        low, high = TERM_COUNTS[params.difficulty]
        text, complexity = group_like_terms(
            self.np_random, rand_int(self.np_random, low, high)
        )
        return MathyEnvProblem(text, complexity, self.get_env_namespace())
