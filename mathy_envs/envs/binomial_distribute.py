"""BinomialDistribute: multiply out binomials and simplify the result."""

from ..problems import (
    BinomialStyle,
    binomial_times_binomial,
    binomial_times_monomial,
    chance,
)
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .goal import SimplifyGoalEnv

STYLES = {
    MathyEnvDifficulty.easy: BinomialStyle(),
    MathyEnvDifficulty.normal: BinomialStyle(coefficient_probability=0.5),
    MathyEnvDifficulty.hard: BinomialStyle(
        coefficient_probability=0.5,
        power_probability=0.5,
        second_variable_probability=0.3,
        common_variables=False,
    ),
}


class BinomialDistribute(SimplifyGoalEnv):
    """Distribute a product of binomials (or a binomial and a monomial) and
    simplify the result.

    ## Description
    The agent distributes the multiplication across the sums, multiplies the
    resulting terms and combines like terms. Example problems: `(x + 2)(x + 3)`
    and `(k + 2) * k`; hard problems add powers and coefficients, such as
    `(2x^2 + 3)(x + 4y)`.

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
    Binomial times binomial (complexity 4) or binomial times monomial (complexity
    3), each half the time. Easy uses one simple variable and constants; normal
    adds coefficients (`(2x + 3)(x + 5)`); hard adds powers, any variable and a
    second variable.

    ## Episode End
    Won when no like terms remain and every term is in preferred form; lost after
    `complexity * 4` moves or on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    def get_env_namespace(self) -> str:
        return "mathy.binomials.mulptiply"

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        style = STYLES[params.difficulty]
        if chance(self.np_random, 0.5):
            text, complexity = binomial_times_binomial(self.np_random, style)
        else:
            text, complexity = binomial_times_monomial(self.np_random, style)
        return MathyEnvProblem(text, complexity, self.get_env_namespace())
