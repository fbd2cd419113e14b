"""PolySimplifyBlockers: move a like term around blockers, then simplify."""

from ..problems import commute_blockers, rand_int
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .goal import SimplifyGoalEnv

BLOCKER_COUNTS = {
    MathyEnvDifficulty.easy: (1, 2),
    MathyEnvDifficulty.normal: (2, 4),
    MathyEnvDifficulty.hard: (3, 6),
}


class PolySimplifyBlockers(SimplifyGoalEnv):
    """Simplify a polynomial whose like terms are kept apart by blocker terms.

    ## Description
    Two like terms are separated by a parenthesized group of unlike "blocker"
    terms, so the agent must commute and regroup before it can combine them.
    Example problems: `4x + (y + f) + x` and `7a + 4x + (2f + j) + x + 3d`.

    ## Action Space
    `Discrete(len(rules) * max_seq_len)`: `(rule, node)` flattened as
    `rule * max_seq_len + node`, nodes counted left to right (in-order), with the
    seven core rules.

    ## Observation Space
    Any of the four observation types of `MathyEnvState.to_observation` (flat by
    default), built from the expression tree and the valid-move mask.

    ## Rewards
    The win signal (`1 + 1/moves_used`, capped at 2) on simplifying; `LOSE` (-1)
    on running out of moves or a fourth revisit; otherwise the `MathyEnv` step
    rewards.

    ## Starting State
    A like pair around 1-2 blockers (easy), 2-4 (normal) or 3-6 (hard), either
    alone or inside a four-term frame. Complexity is the number of terms.

    ## Episode End
    Won when no like terms remain and every term is in preferred form; lost after
    `complexity * 4` moves or on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    def get_env_namespace(self) -> str:
        return "mathy.polynomials.commute_then_simplify"

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        low, high = BLOCKER_COUNTS[params.difficulty]
        text, complexity = commute_blockers(
            self.np_random, rand_int(self.np_random, low, high)
        )
        return MathyEnvProblem(text, complexity, self.get_env_namespace())
