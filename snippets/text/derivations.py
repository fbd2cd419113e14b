"""Whole derivations scored step by step: the reward of single-turn RL."""

from mathy_envs.envs import PolySimplify
from mathy_envs.text import score_derivation

env = PolySimplify()
problem = "4x + 2y + 3x"
completions = {
    "a derivation": "2y + 4x + 3x\n2y + (4 + 3) * x\n2y + 7x",
    "the answer alone": "2y + 7x",
    "a slip in step 2": "2y + 4x + 3x\n2y + 8x",
    "unfinished": "2y + 4x + 3x\n2y + (4 + 3) * x",
}
for name, completion in completions.items():
    score = score_derivation(env, problem, completion)
    print(
        f"{name:<17} reward {score.reward:.2f}  verified {score.verified}/{score.steps}"
        f"  goal {score.reached_goal!s:<5}  {score.reason}"
    )
