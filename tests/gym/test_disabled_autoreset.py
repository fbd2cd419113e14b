"""The documented loop for `AutoresetMode.DISABLED`
(snippets/gym/disabled_autoreset.py) plays masked random actions through hundreds
of steps and episode ends in `SyncVectorEnv` and `AsyncVectorEnv` without one
invalid action.

A partial reset's infos hold zero `action_mask` rows for the envs it did not
reset: a loop that samples from them plays `NO_VALID_ACTION` in live episodes.
"""

import importlib.util
from types import ModuleType
from typing import Any, Dict, Optional, Tuple

import mathy_envs  # noqa: F401  (first: it lets mathy_core import on Python 3.13)
import numpy as np

import gymnasium
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

import mathy_envs.gym  # noqa: F401  (registers the mathy-* ids)
from helpers import REPO

DISABLED_SNIPPET = REPO / "snippets" / "gym" / "disabled_autoreset.py"
# "module:id" so that spawned workers register the ids too.
ENV_ID = "mathy_envs.gym:mathy-poly-easy-v0"
NUM_ENVS = 2
STEPS = 400


def _snippet() -> ModuleType:
    """The snippet imported as a module (its `__main__` part does not run)."""
    spec = importlib.util.spec_from_file_location("disabled", DISABLED_SNIPPET)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _make_env() -> gymnasium.Env:
    # An invalid action raises in the sub-env instead of being penalized.
    return gymnasium.make(ENV_ID, invalid_action_response="raise")


class _ValidActionChecker(gymnasium.vector.VectorWrapper):
    """Checks every batch of actions against the masks the vector env returned:
    a step's rows for every env, and a partial reset's rows for the envs it reset.
    Counts steps, episode ends (and those whose final mask is empty) and resets
    that left some env playing."""

    def __init__(self, env: VectorEnv) -> None:
        super().__init__(env)
        self.masks: Optional[np.ndarray] = None
        self.steps = 0
        self.episodes = 0
        self.empty_final_masks = 0
        self.partial_resets = 0

    def reset(
        self, *, seed: Any = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Any, Dict[str, Any]]:
        # Read the reset mask first: the vector env pops it from `options`.
        reset_mask = None if options is None else options.get("reset_mask")
        obs, infos = self.env.reset(seed=seed, options=options)
        if reset_mask is None:
            self.masks = infos["action_mask"].copy()
        else:
            assert self.masks is not None
            assert infos["_action_mask"].tolist() == reset_mask.tolist()
            self.masks[reset_mask] = infos["action_mask"][reset_mask]
            self.partial_resets += int(not reset_mask.all())
        return obs, infos

    def step(self, actions: Any) -> Any:
        assert self.masks is not None
        played = self.masks[np.arange(self.num_envs), actions]
        assert played.all(), (
            f"step {self.steps}: invalid actions {actions[played == 0]} in envs "
            f"{np.flatnonzero(played == 0)}, whose masks have "
            f"{self.masks[played == 0].sum(axis=1)} valid actions"
        )
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        assert infos["_valid"].all() and infos["valid"].all()
        self.masks = infos["action_mask"].copy()
        done = terminated | truncated
        self.steps += 1
        self.episodes += int(done.sum())
        self.empty_final_masks += int((done & ~self.masks.any(axis=1)).sum())
        return obs, rewards, terminated, truncated, infos


def _play(envs: VectorEnv) -> _ValidActionChecker:
    checker = _ValidActionChecker(envs)
    counts = _snippet().play(checker, steps=STEPS, seed=5)
    assert checker.steps == STEPS
    assert counts["episodes"] == checker.episodes
    assert counts["partial resets"] == checker.partial_resets
    # Many episode ends, most of them while other envs played on, and some whose
    # final expression had no valid move (an all-zero row the loop never samples).
    assert checker.episodes > 50
    assert checker.partial_resets > 30
    assert checker.empty_final_masks > 0
    return checker


def test_the_disabled_loop_plays_only_valid_actions_in_sync_vector_envs() -> None:
    envs = SyncVectorEnv([_make_env] * NUM_ENVS, autoreset_mode=AutoresetMode.DISABLED)
    try:
        _play(envs)
    finally:
        envs.close()


def test_the_disabled_loop_plays_only_valid_actions_in_async_vector_envs() -> None:
    envs = AsyncVectorEnv(
        [_make_env] * NUM_ENVS, autoreset_mode=AutoresetMode.DISABLED, context="spawn"
    )
    try:
        _play(envs)
    finally:
        envs.close()
        assert not any(process.is_alive() for process in envs.processes)
