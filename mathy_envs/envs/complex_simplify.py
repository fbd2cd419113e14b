"""ComplexSimplify: multiply a product of terms into one simple term."""

from ..problems import complex_product, rand_int
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .goal import SimplifyGoalEnv

FACTOR_COUNTS = {
    MathyEnvDifficulty.easy: (2, 3),
    MathyEnvDifficulty.normal: (3, 5),
    MathyEnvDifficulty.hard: (4, 7),
}


class ComplexSimplify(SimplifyGoalEnv):
    """Simplify a product of terms into a single term in preferred form.

    ## Description
    The agent multiplies coefficients, merges repeated variables into powers and
    reorders factors until one simple term remains. Example problems:
    `4x * 2y^2 * 7q` and `3a * a^2 * 5b`.

    ## Action Space
    `Discrete(len(rules) * max_seq_len)`: `(rule, node)` flattened as
    `rule * max_seq_len + node`, nodes counted left to right (in-order), with the
    seven core rules.

    ## Observation Space
    Any of the four observation types of `MathyEnvState.to_observation` (flat by
    default), built from the expression tree and the valid-move mask.

    ## Rewards
    The win signal on simplifying; `LOSE` (-1) on running out of moves or a fourth
    revisit; otherwise the `MathyEnv` step rewards.

    ## Starting State
    A product of 2-3 factors (easy), 3-5 (normal) or 4-7 (hard). Complexity is the
    number of factors.

    ## Episode End
    Won when the product is one term in preferred form; lost after
    `complexity * 8` moves or on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    moves_per_complexity = 8

    def get_env_namespace(self) -> str:
        return "mathy.monomials.complex_simplify"

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        low, high = FACTOR_COUNTS[params.difficulty]
        text, complexity = complex_product(
            self.np_random, rand_int(self.np_random, low, high)
        )
        return MathyEnvProblem(text, complexity, self.get_env_namespace())
