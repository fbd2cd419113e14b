"""A custom environment that declares its namespace and generator instead of
writing `get_env_namespace` and `problem_fn`."""

import numpy as np

import mathy_envs  # before mathy_core, which needs it first on Python 3.13
from mathy_envs import MathyEnvProblem, MathyEnvProblemArgs
from mathy_envs.envs import SimplifyGoalEnv


def like_pair_problem(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
    """Two like terms to combine, drawn from `rng` (the env's `np_random`)."""
    a, b = (int(n) for n in rng.integers(1, 10, size=2))
    return MathyEnvProblem(f"{a}x + {b}x", 1, "")  # the env sets the namespace


class CombineLikePair(SimplifyGoalEnv):
    namespace = "mathy.example.like_pair"
    generator = staticmethod(like_pair_problem)


env = CombineLikePair(seed=3)
state, problem = env.get_initial_state()
print(problem.text, "|", problem.type, "|", state.agent.problem_type)
