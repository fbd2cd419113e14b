"""The planner works on any MathyEnv, including your own."""

from typing import Optional

import mathy_envs  # before mathy_core, which needs it first on Python 3.13
from mathy_core import ConstantExpression, MathExpression

from mathy_envs import (
    MathyEnv,
    MathyEnvProblem,
    MathyEnvProblemArgs,
    MathyEnvState,
    MathyObservation,
)
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs.time_step import TimeStep, termination


class AddConstants(MathyEnv):
    """Won when the expression is a single number."""

    def get_env_namespace(self) -> str:
        return "mathy.example.add_constants"

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        numbers = self.np_random.integers(1, 10, size=6)
        return MathyEnvProblem(" + ".join(map(str, numbers)), 6, self.get_env_namespace())

    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        if isinstance(expression, ConstantExpression):
            return termination(features, self.get_win_signal(env_state))
        return None


env = AddConstants(seed=2)
start, problem = env.get_initial_state()
solution = swarm_solve(start, SwarmConfig(n_walkers=32, seed=0), env=env)
print(f"{problem.text} = {solution.states[-1].agent.problem} in {len(solution.actions)} moves")
assert solution.solved
