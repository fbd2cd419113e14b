"""Register your own environment class as Gymnasium ids."""

import gymnasium

from mathy_envs import MathyEnvProblem, MathyEnvProblemArgs
from mathy_envs.envs import SimplifyGoalEnv
from mathy_envs.gym import register_envs


class PairSums(SimplifyGoalEnv):
    """Combine two like terms (won when the sum is simplified)."""

    def get_env_namespace(self) -> str:
        return "mathy.example.pair_sums"

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        a, b = self.np_random.integers(2, 10, size=2)
        return MathyEnvProblem(f"{a}x + {b}x", 2, self.get_env_namespace())


print(register_envs({"pair-sums": PairSums}))
env = gymnasium.make("mathy-pair-sums-easy-v0", max_seq_len=32)
obs, info = env.reset(seed=0)
print(env.unwrapped.state.agent.problem, env.spec.kwargs["env_problem_args"])
