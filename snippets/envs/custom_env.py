"""A custom environment: add up a sum of constants until one number is left."""

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
from mathy_envs.time_step import TimeStep, is_terminal_transition, termination


class AddConstants(MathyEnv):
    def get_env_namespace(self) -> str:
        return "mathy.example.add_constants"

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        count = {"easy": 3, "normal": 5, "hard": 8}[params.difficulty.value]
        numbers = self.np_random.integers(1, 10, size=count)  # always use np_random
        text = " + ".join(str(n) for n in numbers)
        return MathyEnvProblem(text, count, self.get_env_namespace())

    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        if isinstance(expression, ConstantExpression):  # a single number: won
            return termination(features, self.get_win_signal(env_state))
        return None  # no opinion: the default rewards apply


env = AddConstants(seed=1)
state, problem = env.get_initial_state()
while True:
    action = env.random_action(env.parser.parse(state.agent.problem))
    state, time_step, _ = env.get_next_state(state, action)
    if is_terminal_transition(time_step):
        break
env.print_history(state)
assert time_step.reward > 0, "this seeded random episode is a win"
env.finalize_state(state)  # the final expression has the value of the problem
