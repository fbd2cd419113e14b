"""Single-turn RL on derivations with TRL's `GRPOTrainer` (or any trainer that
scores a batch of completions), in plain Python: no TRL import here.

`grpo_rows(env, count, seed)` makes the rows of a training dataset (`prompt`,
the derivation prompt; `problem` and `max_moves`, which the trainer passes back
to the reward function as keyword arguments), and `grpo_reward(env)` the reward
function TRL calls as `reward(prompts=..., completions=..., problem=...,
max_moves=..., **kwargs)`, one float per completion:
`score_derivation(...).reward`. Completions may be plain text or, in TRL's
conversational format, lists of messages (the last message's `content` is read).

Both take the grain `steps_per_line` (`mathy_envs.text.derivations`), `AUTO` by
default: None for the envs that take free derivations (the simplify tasks: a
line may make any number of rewrites as long as it keeps the exact value, and
the last line must be the goal in simplest terms), 3 for the others (at most
three valid moves a line, each checked). A base model writes algebra that
way, so it earns reward from the first steps of training; pass 1 to train the
one-rewrite-per-line grain of the env's own rules (its prompts then show a
worked example of each rule). Give the rows and the reward the same grain: the
prompt states its rule.

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from mathy_envs.envs import PolySimplify
    from mathy_envs.text.grpo import grpo_reward, grpo_rows

    env = PolySimplify()
    trainer = GRPOTrainer(
        model="Qwen/Qwen2.5-0.5B-Instruct",
        reward_funcs=grpo_reward(env),
        train_dataset=Dataset.from_list(grpo_rows(env, 1000, seed=0)),
        args=GRPOConfig(output_dir="out"),
    )
"""

from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from ..env import MathyEnv
from ..limits import quote, type_name
from .._support.settings import check_seed
from ..types import MathyEnvProblemArgs
from .derivations import score_derivation
from .reach import AUTO, grain_for
from .prompts import derivation_prompt

MAX_ROWS = 10_000_000


def grpo_rows(
    env: MathyEnv,
    count: int,
    seed: int = 0,
    params: Optional[MathyEnvProblemArgs] = None,
    steps_per_line: Union[int, None, str] = AUTO,
) -> List[Dict[str, Any]]:
    """`count` generated problems of `env` (its generator reseeded with `seed`)
    as dataset rows: `{"prompt", "problem", "max_moves"}`, the prompt stating
    the rule of the grain `steps_per_line`."""
    if not isinstance(env, MathyEnv):
        raise ValueError(f"env must be a MathyEnv, got {type_name(env)} {quote(env, 60)}")
    grain = grain_for(env, steps_per_line)
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= MAX_ROWS:
        raise ValueError(f"count must be an int in [1, {MAX_ROWS}], got {quote(count)}")
    check_seed("seed", seed)
    env.seed(seed)
    rows = []
    for _ in range(int(count)):
        state, _ = env.fitting_initial_state(params)
        problem = state.agent.problem
        rows.append(
            {
                "prompt": derivation_prompt(env, problem, state.max_moves, grain),
                "problem": problem,
                "max_moves": state.max_moves,
            }
        )
    return rows


def completion_text(completion: object) -> object:
    """The text of a completion: itself, or the `content` of the last message
    of a conversational one (anything else is returned as it is, and scores 0)."""
    if isinstance(completion, (list, tuple)) and completion:
        last = completion[-1]
        if isinstance(last, dict):
            return last.get("content", "")
    return completion


def grpo_reward(
    env: MathyEnv, steps_per_line: Union[int, None, str] = AUTO
) -> Callable[..., List[float]]:
    """The reward function of derivations in `env` at the grain
    `steps_per_line`, as TRL calls one."""
    if not isinstance(env, MathyEnv):
        raise ValueError(f"env must be a MathyEnv, got {type_name(env)} {quote(env, 60)}")
    grain = grain_for(env, steps_per_line)

    def mathy_derivation(
        completions: Sequence[object],
        problem: Sequence[str],
        max_moves: Optional[Sequence[int]] = None,
        **kwargs: Any,
    ) -> List[float]:
        budgets: Sequence[Any] = max_moves if max_moves is not None else [None] * len(completions)
        if not len(completions) == len(problem) == len(budgets):
            raise ValueError(
                f"completions, problem and max_moves must be as long as each other, got "
                f"{len(completions)}, {len(problem)} and {len(budgets)}"
            )
        rewards = []
        for completion, text, budget in zip(completions, problem, budgets):
            try:
                score = score_derivation(
                    env,
                    text,
                    completion_text(completion),
                    None if budget is None else int(budget),
                    grain,
                )
                rewards.append(score.reward)
            except (TypeError, ValueError):
                rewards.append(0.0)  # a problem (or budget) the env does not take
        return rewards

    return mathy_derivation


__all__ = ("completion_text", "grpo_reward", "grpo_rows")
