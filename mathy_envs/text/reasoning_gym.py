"""reasoning-gym datasets of the mathy environments, scored step by step.

Importing this module registers one `reasoning_gym` dataset per built-in
environment (`DATASET_NAMES`: `mathy_poly_simplify`, `mathy_complex_simplify`,
...), so that

    import reasoning_gym
    import mathy_envs.text.reasoning_gym  # noqa: F401  (registers the datasets)

    data = reasoning_gym.create_dataset("mathy_poly_simplify", seed=42, size=100)
    entry = data[0]
    data.score_answer(entry["answer"], entry)   # 1.0

works (`pip install "mathy_envs[reasoning-gym]"`). An entry's `question` asks
for a derivation (`mathy_envs.text.prompts.derivation_prompt`), its `answer`
is the swarm planner's solution written as one, and `score_answer` is
`score_derivation(...).reward`: 1.0 for a derivation that reaches the goal with
every line passing the check of the grain, else 0.0. The config takes
`difficulty` ("easy", "normal" or "hard"), `seed`, `size` and `steps_per_line`
(`mathy_envs.text.derivations`): "auto" by default, which is None for the
simplify tasks, so that a line may make any number of rewrites that keep the
exact value (as people and language models write algebra) and the last line
must be the goal in simplest terms, and 3 (at most three valid moves a line,
each checked) for the tasks whose goal is about the problem's own terms
(commuting, grouping, acting on like terms), where free rewrites could plant
terms of their own. 1 asks for one rewrite per line (the
question then shows a worked example of each rule), an int `k` for at most `k`.
The question states the rule in use.
Entry `i` of a seed is the same problem on every call and machine.

`register(name, env_class)` registers a dataset of your own `MathyEnv`.
"""

import re
import threading
from dataclasses import dataclass
from typing import Any, Dict, Optional, Type, Union

import numpy as np
from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import DATASETS, register_dataset

from ..env import MathyEnv
from ..envs import ENV_TASKS
from ..expert import without_loops
from ..limits import quote, type_name
from ..swarm import SwarmConfig, swarm_solve
from ..types import MathyEnvDifficulty, MathyEnvProblemArgs
from .derivations import score_derivation
from .reach import AUTO, check_grain, grain_for
from .prompts import derivation_prompt


def dataset_name(env_class: Type[MathyEnv]) -> str:
    """`mathy_` and the class name in snake case: `mathy_poly_simplify`."""
    return "mathy_" + re.sub(r"(?<!^)(?=[A-Z])", "_", env_class.__name__).lower()


DATASET_NAMES: Dict[str, str] = {dataset_name(env): task for task, env in ENV_TASKS.items()}
"""Registered dataset name -> task name (`ENV_TASKS`)."""

_ENV_CLASSES: Dict[str, Type[MathyEnv]] = {}
"""Registered dataset name -> env class."""
_LOCK = threading.Lock()


@dataclass
class MathyDatasetConfig:
    """The settings of a mathy dataset (`reasoning_gym.create_dataset` keywords)."""

    difficulty: str = "easy"
    """"easy", "normal" or "hard"."""
    seed: Optional[int] = None
    size: int = 500
    name: str = "mathy_poly_simplify"
    """The dataset (its env); set by `create_dataset`'s name."""
    steps_per_line: Union[int, None, str] = AUTO
    """The grain answers are checked at: None (any number of rewrites per
    line; the simplify tasks), an int from 1 to `MAX_STEPS_PER_LINE`, or "auto"
    (None where the env takes free derivations, else 3)."""

    def validate(self) -> None:
        difficulties = [d.value for d in MathyEnvDifficulty]
        if self.difficulty not in difficulties:
            raise ValueError(f"difficulty must be one of {difficulties}, got {quote(self.difficulty, 40)}")
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 1:
            raise ValueError(f"size must be an int >= 1, got {quote(self.size, 40)}")
        if self.steps_per_line != AUTO:
            if isinstance(self.steps_per_line, str):
                raise ValueError(f"steps_per_line must be None, an int or 'auto', got {quote(self.steps_per_line, 40)}")
            check_grain(self.steps_per_line)
        if self.name not in _ENV_CLASSES:
            raise ValueError(f"no mathy dataset is named {quote(self.name, 60)}")


class MathyDataset(ProceduralDataset):  # type: ignore[misc]
    """Problems of one mathy environment, asked as derivations."""

    def __init__(self, config: MathyDatasetConfig) -> None:
        super().__init__(config=config, seed=config.seed, size=config.size)
        self.env = _ENV_CLASSES[config.name]()
        self.grain = grain_for(self.env, config.steps_per_line)
        """The grain in use (`config.steps_per_line`, "auto" resolved)."""
        self.params = MathyEnvProblemArgs(MathyEnvDifficulty(config.difficulty))
        self._lock = threading.Lock()

    def __getitem__(self, idx: int) -> Dict[str, Any]:
        if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)) or not 0 <= idx < self.size:
            raise IndexError(f"index {quote(idx, 40)} is out of range [0, {self.size})")
        env = self.env
        with self._lock:
            env.np_random = np.random.default_rng([int(self.seed), int(idx)])
            state, problem = env.fitting_initial_state(self.params)
        planned = swarm_solve(state, SwarmConfig(seed=int(idx)), env)
        lines = [state.agent.problem]
        after = state
        if planned.solved:
            for action in without_loops(env, state, planned.actions):
                after, _, _ = env.get_next_state(after, action)
                lines.append(after.agent.problem)
        config: MathyDatasetConfig = self.config
        return {
            "question": derivation_prompt(env, state.agent.problem, state.max_moves, self.grain),
            "answer": "\n".join(lines),
            "metadata": {
                "source_dataset": config.name,
                "source_index": int(idx),
                "problem": state.agent.problem,
                "max_moves": state.max_moves,
                "env": type(env).__name__,
                "reference_solved": bool(planned.solved),
                "steps_per_line": self.grain,
                "difficulty": {"difficulty": config.difficulty},
            },
        }

    def score_answer(self, answer: Optional[str], entry: Dict[str, Any]) -> float:
        """`score_derivation(...).reward` of `answer` as a derivation of the
        entry's problem (0.0 for no answer)."""
        if not answer:
            return 0.0
        metadata = entry["metadata"]
        return score_derivation(
            self.env,
            metadata["problem"],
            answer,
            metadata["max_moves"],
            metadata.get("steps_per_line", self.grain),
        ).reward


def register(name: str, env_class: Type[MathyEnv]) -> None:
    """Register a dataset of `env_class` under `name` (a `ValueError` when the
    name is taken by another dataset)."""
    if not (isinstance(env_class, type) and issubclass(env_class, MathyEnv)):
        raise ValueError(f"env_class must be a MathyEnv subclass, got {type_name(env_class)}")
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty text, got {quote(name, 40)}")
    with _LOCK:
        if _ENV_CLASSES.get(name) is env_class:
            return
        if name in DATASETS:
            raise ValueError(f"a reasoning-gym dataset is already named {quote(name, 60)}")
        # Each name's config class defaults `name` to it, as create_dataset
        # builds the config from its keywords alone.
        config = type(
            f"MathyDatasetConfig_{name}",
            (MathyDatasetConfig,),
            {"__annotations__": {"name": str}, "name": name},
        )
        _ENV_CLASSES[name] = env_class
        register_dataset(name, MathyDataset, dataclass(config))


for _name, _task in DATASET_NAMES.items():
    register(_name, ENV_TASKS[_task])


__all__ = (
    "DATASET_NAMES",
    "MathyDataset",
    "MathyDatasetConfig",
    "dataset_name",
    "register",
)
