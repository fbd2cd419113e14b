"""Rows and a reward function for TRL's GRPOTrainer, called here as the trainer
calls it: keyword arguments (the dataset's columns among them), one float per
completion."""

from mathy_envs.envs import PolySimplify
from mathy_envs.text.grpo import grpo_reward, grpo_rows

env = PolySimplify()
rows = grpo_rows(env, 1000, seed=0)  # datasets.Dataset.from_list(rows) for TRL
print(rows[0]["prompt"])
print()

reward = grpo_reward(env)
solution = "2y + 4x + 3x\n2y + (4 + 3) * x\n2y + 7x"
completions = [
    solution,
    [{"role": "assistant", "content": solution}],  # TRL's conversational format
    "2y + 7x",  # the final answer alone: any number of rewrites on a line by default
    "2y + 4x + 3x\n2y + (4 + 3) * x",  # unfinished
]
batch = {"problem": ["4x + 2y + 3x"] * 4, "max_moves": [20] * 4}
print(reward(prompts=[""] * 4, completions=completions, **batch))
# One rewrite per line (rows made with the same steps_per_line state the rule):
strict = grpo_reward(env, steps_per_line=1)
print(strict(prompts=[""] * 4, completions=completions, **batch), "(steps_per_line=1)")

# With TRL installed (and a model to train), pass them on:
#
#   from datasets import Dataset
#   from trl import GRPOConfig, GRPOTrainer
#
#   trainer = GRPOTrainer(
#       model="Qwen/Qwen2.5-0.5B-Instruct",
#       reward_funcs=reward,
#       train_dataset=Dataset.from_list(rows),
#       args=GRPOConfig(output_dir="mathy-grpo"),
#   )
#   trainer.train()
