"""PolyCombineInPlace: combine the one adjacent like pair of a long sum."""

from ..problems import combine_in_place, rand_int
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .goal import SimplifyGoalEnv

TERM_COUNTS = {
    MathyEnvDifficulty.easy: (6, 12),
    MathyEnvDifficulty.normal: (9, 16),
    MathyEnvDifficulty.hard: (16, 22),
}


class PolyCombineInPlace(SimplifyGoalEnv):
    """Combine the single pair of adjacent like terms hidden in a long sum, in two
    moves.

    ## Description
    A long sum of unlike terms holds exactly one adjacent like pair. The agent must
    find it, factor it out and add the coefficients, without moving anything else.
    Example problems: `3a + 4x + 2x + 5b + 7c + y^2` and
    `9k + (2q^3 + 7 + 3z) + 3z + 4g + 8b + 11m`.

    ## Action Space
    `Discrete(len(rules) * max_seq_len)`: `(rule, node)` flattened as
    `rule * max_seq_len + node`, nodes counted left to right (in-order), with the
    seven core rules.

    ## Observation Space
    Any of the four observation types of `MathyEnvState.to_observation` (flat by
    default), built from the expression tree and the valid-move mask.

    ## Rewards
    The win signal on simplifying; `LOSE` (-1) when the two moves run out;
    otherwise the `MathyEnv` step rewards.

    ## Starting State
    6-12 terms (easy), 9-16 (normal) or 16-22 (hard), sometimes with a run of them
    parenthesized. Complexity is the number of terms.

    ## Episode End
    Won when no like terms remain and every term is in preferred form; lost after
    2 moves.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    def get_env_namespace(self) -> str:
        return "mathy.polynomials.combine.in.place"

    def max_moves_fn(
        self, problem: MathyEnvProblem, config: MathyEnvProblemArgs
    ) -> int:
        return 2

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        low, high = TERM_COUNTS[params.difficulty]
        text, complexity = combine_in_place(
            self.np_random, rand_int(self.np_random, low, high)
        )
        return MathyEnvProblem(text, complexity, self.get_env_namespace())
