"""Whole derivations scored line by line, at three grains, side by side."""

from mathy_envs.envs import PolySimplify
from mathy_envs.text import score_derivation

env = PolySimplify()
problem = "4x + 2y + 3x"
completions = {
    "one rewrite a line": "2y + 4x + 3x\n2y + (4 + 3) * x\n2y + 7x",
    "as people write it": "Move the y term first.\n<answer>\n2y + 4x + 3x = 2y + 7x\n</answer>",
    "the answer alone": "2y + 7x",
    "a slip in line 2": "2y + 4x + 3x\n2y + 8x",
}
for name, completion in completions.items():
    rewards = []
    for grain in (1, 2, None):
        score = score_derivation(env, problem, completion, steps_per_line=grain)
        rewards.append(f"{score.reward:.0f}")
    print(f"{name:<19} steps_per_line=1: {rewards[0]}  =2: {rewards[1]}  =None: {rewards[2]}")

# Each line's verdict, for process (per-step) rewards:
score = score_derivation(env, problem, completions["a slip in line 2"], steps_per_line=None)
for line in score.lines:
    print(f"  line {line.step}: {line.text:<14} kept value {line.kept_value!s:<5} {line.reason}")
print("step rewards", score.step_rewards, "first bad step", score.first_bad_step)
