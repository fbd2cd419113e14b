"""Every MathyEnv keyword passes through gymnasium.make: here a reward scheme of
your own and a problem generator."""

import gymnasium
import numpy as np

import mathy_envs.gym  # noqa: F401  (registers the mathy-* ids)
from mathy_envs import MathyEnvProblem, MathyEnvProblemArgs
from mathy_envs.rewards import RewardScheme
from mathy_envs.time_step import transition


class Shaped(RewardScheme):
    """The default checks, but every rule costs 0.05 (check 5, after wins,
    losses and revisits)."""

    def rule_used(self, env, state, features):  # type: ignore[no-untyped-def]
        return transition(features, -0.05, env.reward_discount)


def like_pairs(
    rng: np.random.Generator, params: MathyEnvProblemArgs
) -> MathyEnvProblem:
    """Two like terms and a blocker, drawn from the env's generator."""
    a, b, c = (int(n) for n in rng.integers(2, 10, size=3))
    return MathyEnvProblem(f"{a}x + {b}y + {c}x", 3, "mathy.example.like_pairs")


env = gymnasium.make(
    "mathy-poly-easy-v0", reward_scheme=Shaped(), generator=like_pairs, published_info=True
)
obs, info = env.reset(seed=1)
print("problem:", env.unwrapped.state.agent.problem)
obs, reward, terminated, truncated, info = env.step(
    int(np.flatnonzero(info["action_mask"])[0])
)
print(f"{info['change'].rule} -> {info['change'].expression}, reward {reward:+.2f}")

try:
    gymnasium.make("mathy-poly-easy-v0", reward_schem=Shaped())  # misspelled
except TypeError as error:
    print("TypeError:", str(error).split(":")[0])
