"""PolySimplify: combine like terms until the polynomial is fully simplified."""

from typing import Any, List, Optional

from ..problems import rand_int, simplify_terms
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .goal import SimplifyGoalEnv

TERM_COUNTS = {
    MathyEnvDifficulty.easy: (2, 5),
    MathyEnvDifficulty.normal: (4, 7),
    MathyEnvDifficulty.hard: (4, 9),
}


class PolySimplify(SimplifyGoalEnv):
    """Simplify a polynomial by combining its like terms.

    ## Description
    The agent rewrites a sum of terms such as `4x + 2y + 2x` until no like terms
    remain and every term is in the preferred form (`6x + 2y`). Example problems:
    `2x + 5y + x` and `4x^2 + (3z + 7x^2) + z`.

    ## Action Space
    `Discrete(len(rules) * max_seq_len)`: an action is `(rule, node)`, flattened as
    `rule * max_seq_len + node`, with nodes counted left to right (in-order). The
    seven core rules are used; most `(rule, node)` pairs are invalid in a given
    state (see `get_valid_moves`).

    ## Observation Space
    Any of the four observation types of `MathyEnvState.to_observation` (flat by
    default), built from the expression tree and the valid-move mask.

    ## Rewards
    The win signal (`1 + 1/moves_used`, capped at 2) when the expression is
    simplified; `LOSE` (-1) on running out of moves or visiting an expression a
    fourth time; otherwise the `MathyEnv` step rewards (helpful +0.01, unhelpful
    -0.01, time step -0.01, revisits -0.02 per visit).

    ## Starting State
    A generated sum of terms with at least one group of like terms, sometimes
    shuffled or partly parenthesized: 2-5 terms (easy), 4-7 (normal), 4-9 (hard).
    Complexity is the number of terms.

    ## Episode End
    The episode is won when no like terms remain and every term is in preferred
    form; it is lost after `complexity * 4` moves or on a fourth revisit.

    ## Arguments
    - `ops`: the operators placed between generated terms (default `["+"]`)
    - every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...)
    """

    def __init__(self, ops: Optional[List[str]] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ops: List[str] = list(ops) if ops is not None else ["+"]
        if not self.ops:
            raise ValueError("ops must name at least one operator")

    def get_env_namespace(self) -> str:
        return "mathy.polynomials.simplify"

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        low, high = TERM_COUNTS[params.difficulty]
        num_terms = rand_int(self.np_random, low, high)
        text, complexity = simplify_terms(self.np_random, num_terms, ops=self.ops)
        return MathyEnvProblem(text, complexity, self.get_env_namespace())
