"""A new environment, the way a built-in one is written, checked with
check_mathy_env; then a broken copy of it, and what the checker says."""

import numpy as np
import mathy_envs  # before mathy_core, which needs it first on Python 3.13
from mathy_core import MathExpression, get_terms

from mathy_envs import MathyEnvProblem, MathyEnvProblemArgs, MathyEnvState
from mathy_envs.checker import MathyEnvContractError, check_mathy_env
from mathy_envs.envs import GoalEnv

NAMESPACE = "mathy.example.one_term"
TERMS = {"easy": 2, "normal": 3, "hard": 4}


def one_term_problem(
    rng: np.random.Generator, params: MathyEnvProblemArgs, *, namespace: str = NAMESPACE
) -> MathyEnvProblem:
    """A sum of like terms such as `4x + 2x + 7x`, drawn from `rng` only."""
    count = TERMS[params.difficulty.value]
    coefficients = rng.integers(2, 10, size=count)
    text = " + ".join(f"{c}x" for c in coefficients)
    return MathyEnvProblem(text, count, namespace)


class OneTerm(GoalEnv):
    """Combine a sum of like terms into one term."""

    def get_env_namespace(self) -> str:
        return NAMESPACE

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        return len(get_terms(expression)) == 1

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return one_term_problem(
            self.np_random, params, namespace=self.get_env_namespace()
        )


check_mathy_env(OneTerm())  # returns None: OneTerm keeps the contract
print("OneTerm: ok")


class Sloppy(OneTerm):
    """Draws 1 to 3 terms, forgetting that a single term is already won."""

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        count = int(self.np_random.integers(1, 4))
        text = " + ".join(f"{c}x" for c in self.np_random.integers(2, 10, size=count))
        return MathyEnvProblem(text, count, self.get_env_namespace())


try:
    check_mathy_env(Sloppy())
except MathyEnvContractError as error:  # an AssertionError
    print(f"rule: {error.rule}")
    print(f"message: {error}")
