"""PolyCommuteLikeTerms: bring a like pair together so it can be factored."""

from mathy_core import MathExpression

from ..problems import commute_like_terms, rand_int
from ..state import MathyEnvState
from ..terms import factor_out_applies
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .goal import GoalEnv

BLOCKER_COUNTS = {
    MathyEnvDifficulty.easy: (1, 2),
    MathyEnvDifficulty.normal: (2, 3),
    MathyEnvDifficulty.hard: (5, 9),
}


class PolyCommuteLikeTerms(GoalEnv):
    """Commute and regroup terms until two like terms can be factored together.

    ## Description
    A sum holds one like pair separated by `k` unlike terms. The agent wins as soon
    as distributive factor out applies somewhere, i.e. the pair sits together.
    Example problems: `4x + 2y + 3x` and `5b + 2z + 7a + 8k + z + 3m`.

    ## Action Space
    `Discrete(len(rules) * max_seq_len)`: `(rule, node)` flattened as
    `rule * max_seq_len + node`, nodes counted left to right (in-order), with the
    seven core rules.

    ## Observation Space
    Any of the four observation types of `MathyEnvState.to_observation` (flat by
    default), built from the expression tree and the valid-move mask.

    ## Rewards
    The win signal when factor out becomes possible; `LOSE` (-1) on running out of
    moves or a fourth revisit; otherwise the `MathyEnv` step rewards.

    ## Starting State
    `k` blockers between the pair: 1-2 (easy), 2-3 (normal), 5-9 (hard), with up to
    two unlike terms on each side. Complexity is `k + 1`.

    ## Episode End
    Won when distributive factor out applies to some node; lost after
    `complexity * 4` moves or on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    def get_env_namespace(self) -> str:
        return "mathy.polynomials.commute.like.terms"

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        return factor_out_applies(expression)

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        low, high = BLOCKER_COUNTS[params.difficulty]
        text, complexity = commute_like_terms(
            self.np_random, rand_int(self.np_random, low, high)
        )
        return MathyEnvProblem(text, complexity, self.get_env_namespace())
