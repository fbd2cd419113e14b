"""Gymnasium's vector environments over mathy envs: masks at the end of an episode
in every autoreset mode, sampling from batches of masks, masks in the observation,
and the end of the move budget (`terminated` and `truncated` both true).

Expected masks come from each sub-env's wrapped `MathyEnv`.
"""

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Tuple

import mathy_envs  # noqa: F401  (first: it lets mathy_core import on Python 3.13)
import numpy as np
import pytest

import gymnasium
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import mathy_envs.gym  # noqa: F401  (registers the mathy-* ids)
from helpers import REPO
from mathy_envs.envs import PolySimplify
from mathy_envs.gym import MathyGymEnv, sample_valid_actions
from mathy_envs.types import EnvRewards

VECTOR_SNIPPET = REPO / "snippets" / "gym" / "vector_envs.py"
WIN_IN_TWO = "4x + 2x"  # factor, then add: 6x, which has no valid move


def _snippet(path: Path) -> ModuleType:
    """A documentation snippet imported as a module (its `__main__` part does not
    run)."""
    spec = importlib.util.spec_from_file_location(f"snippet_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sub_envs(envs: SyncVectorEnv) -> List[MathyGymEnv]:
    subs = [env.unwrapped for env in envs.envs]
    assert all(isinstance(env, MathyGymEnv) for env in subs)
    return subs  # type: ignore[return-value]


def _rule_action(env: MathyGymEnv, rule_name: str) -> int:
    """The first valid flat action of the named rule in the env's current state."""
    names = [type(rule).__name__ for rule in env.mathy.rules]
    row = names.index(rule_name)
    nodes = np.flatnonzero(env.action_masks().reshape(len(names), -1)[row])
    assert len(nodes), (rule_name, env.state)
    return row * env.mathy.max_seq_len + int(nodes[0])


StepResult = Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]


def _win_in_two(envs: SyncVectorEnv) -> StepResult:
    """Play the two winning moves of `WIN_IN_TWO` in every sub-env; returns the
    winning step."""
    subs = _sub_envs(envs)
    envs.step(np.array([_rule_action(env, "DistributiveFactorOutRule") for env in subs]))
    return envs.step(np.array([_rule_action(env, "ConstantsSimplifyRule") for env in subs]))


def _fixed_budget(problem: str, moves: int) -> Callable[[], gymnasium.Env]:
    return lambda: gymnasium.make(
        "mathy-poly-easy-v0", env_problem=problem, env_max_moves=moves
    )


def _fixed(**kwargs: Any) -> Callable[[], gymnasium.Env]:
    return lambda: gymnasium.make(
        "mathy-poly-easy-v0", env_problem=WIN_IN_TWO, env_max_moves=5, **kwargs
    )


class _EmptyMaskCounter(gymnasium.vector.VectorWrapper):
    """Counts the steps, and the mask rows without a valid action, that a vector
    env returns; checks that each such row's env is reset by the next step."""

    def __init__(self, env: gymnasium.vector.VectorEnv) -> None:
        super().__init__(env)
        self.steps = 0
        self.empty_rows = 0
        self._empty = np.zeros(env.num_envs, bool)

    def step(self, actions: Any) -> Any:
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        self.steps += 1
        # The rows that were empty were reset: reward 0, a live episode again.
        assert not rewards[self._empty].any()
        assert not (terminated | truncated)[self._empty].any()
        assert infos["action_mask"][self._empty].any(axis=1).all()
        self._empty = ~infos["action_mask"].any(axis=1)
        assert (terminated | truncated)[self._empty].all()
        self.empty_rows += int(self._empty.sum())
        return obs, rewards, terminated, truncated, infos


# -- the example ---------------------------------------------------------------------


@pytest.mark.slow
def test_the_vector_example_plays_2000_steps() -> None:
    """The documented loop runs for thousands of steps: rows without a valid
    action (after an episode ends) never stop it."""
    example = _snippet(VECTOR_SNIPPET)
    envs = SyncVectorEnv([lambda: gymnasium.make(example.ENV_ID)] * 4)
    counter = _EmptyMaskCounter(envs)
    try:
        counts = example.play(counter, steps=2000, seed=42)
    finally:
        envs.close()
    assert counts["episodes"] > 100
    assert 0 <= counts["wins"] <= counts["episodes"]
    assert counter.steps == 2000


def test_the_vector_example_survives_masks_without_a_valid_action() -> None:
    """The example's loop on episodes that often end with no valid action (they
    outgrow a small max_seq_len): every such row is sampled and skipped."""
    example = _snippet(VECTOR_SNIPPET)
    envs = SyncVectorEnv(
        [lambda: gymnasium.make("mathy-binomial-hard-v0", max_seq_len=13)] * 2
    )
    counter = _EmptyMaskCounter(envs)
    try:
        counts = example.play(counter, steps=300, seed=4)
    finally:
        envs.close()
    assert counter.empty_rows > 0
    assert counts["episodes"] >= counter.empty_rows


# -- next-step autoreset ignores the action after the end -------------------------------


@pytest.mark.parametrize("action", ["sampled", "valid-before", "last-action"])
def test_next_step_autoreset_ignores_the_action_after_the_end(action: str) -> None:
    """Under the default next-step autoreset, the step after an episode ended
    resets that env whatever the action: `sample_valid_actions`' 0 for an empty
    row is as good as any."""
    reference = SyncVectorEnv([_fixed()])
    envs = SyncVectorEnv([_fixed()])
    for vector in (reference, envs):
        vector.reset(seed=3)
        *_, infos = _win_in_two(vector)
        assert not infos["action_mask"].any()  # 6x: no valid move
    choices = {
        "sampled": sample_valid_actions(infos["action_mask"], np.random.default_rng(0)),
        "valid-before": np.array([3 * 128 + 3]),
        "last-action": np.array([895]),
    }
    assert choices["sampled"].tolist() == [0]
    ref_obs, ref_rewards, ref_term, ref_trunc, ref_infos = reference.step(np.array([0]))
    obs, rewards, terminated, truncated, infos = envs.step(choices[action])
    np.testing.assert_array_equal(obs, ref_obs)
    assert rewards.tolist() == [0.0] and ref_rewards.tolist() == [0.0]
    assert not (terminated | truncated | ref_term | ref_trunc).any()
    assert set(infos) == {"action_mask", "_action_mask"}  # a reset's info, no step's
    (env,) = _sub_envs(envs)
    assert env.state is not None and env.state.agent.problem == WIN_IN_TWO
    assert env.state.agent.moves_remaining == 5  # no move used: nothing was stepped
    np.testing.assert_array_equal(infos["action_mask"][0], env.action_masks())


# -- the terminal mask in every mode -----------------------------------------------------


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=[m.value for m in AutoresetMode])
def test_the_mask_of_the_winning_step_in_each_mode(mode: AutoresetMode) -> None:
    """What the docs say about each mode: next-step and disabled return the final
    state's mask (all zeros for 6x); same-step returns the new episode's and puts
    the final one in `final_info`."""
    envs = SyncVectorEnv([_fixed(), _fixed()], autoreset_mode=mode)
    envs.reset(seed=0)
    obs, rewards, terminated, truncated, infos = _win_in_two(envs)
    assert terminated.all() and not truncated.any()
    masks = infos["action_mask"]
    fresh = MathyGymEnv(PolySimplify, env_problem=WIN_IN_TWO)
    fresh_mask = fresh.reset(seed=0)[1]["action_mask"]
    if mode is AutoresetMode.SAME_STEP:
        np.testing.assert_array_equal(masks, [fresh_mask, fresh_mask])
        assert not infos["final_info"]["action_mask"].any()
    else:
        assert not masks.any()
    if mode is AutoresetMode.DISABLED:
        with pytest.raises(AssertionError):  # SyncVectorEnv insists on a reset
            envs.step(np.zeros(2, np.int64))


def test_disabled_autoreset_infos_hold_only_the_reset_masks() -> None:
    """A partial reset's infos have zero rows for the envs it did not reset; the
    observation's `action_mask` (`mask_in_observation=True`) holds every row."""
    envs = SyncVectorEnv(
        [
            _fixed(mask_in_observation=True),
            lambda: gymnasium.make(
                "mathy-poly-easy-v0", env_problem="4x + 2y + 3x", mask_in_observation=True
            ),
        ],
        autoreset_mode=AutoresetMode.DISABLED,
    )
    envs.reset(seed=0)
    first, second = _sub_envs(envs)
    for rule in ("DistributiveFactorOutRule", "ConstantsSimplifyRule"):
        actions = [_rule_action(first, rule), _rule_action(second, "CommutativeSwapRule")]
        obs, _, terminated, truncated, infos = envs.step(np.array(actions))
    assert (terminated | truncated).tolist() == [True, False]
    obs, infos = envs.reset(options={"reset_mask": terminated | truncated})
    assert infos["_action_mask"].tolist() == [True, False]
    assert not infos["action_mask"][1].any() and second.action_masks().any()
    for row, env in enumerate((first, second)):
        np.testing.assert_array_equal(obs["action_mask"][row], env.action_masks())


# -- masks in the observation ---------------------------------------------------------


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=[m.value for m in AutoresetMode])
@pytest.mark.parametrize("obs_type", ["flat", "graph"])
def test_batched_observations_carry_every_current_mask(
    mode: AutoresetMode, obs_type: str
) -> None:
    """With `mask_in_observation=True` the stacked observation holds a batched
    float32 "action_mask", each row that of its env's observation, in every
    autoreset mode."""
    envs = SyncVectorEnv(
        [
            lambda: gymnasium.make(
                "mathy-binomial-hard-v0",
                max_seq_len=13,
                obs_type=obs_type,
                mask_in_observation=True,
            )
        ]
        * 3,
        autoreset_mode=mode,
    )
    subs = _sub_envs(envs)
    size = subs[0].action_size
    obs, infos = envs.reset(seed=8)
    rng = np.random.default_rng(8)
    ended = 0
    try:
        for _ in range(100):
            assert envs.observation_space.contains(obs)
            assert obs["action_mask"].dtype == np.float32
            assert obs["action_mask"].shape == (3, size)
            for row, env in enumerate(subs):
                np.testing.assert_array_equal(obs["action_mask"][row], env.action_masks())
            if mode is AutoresetMode.SAME_STEP:  # always a live episode's mask
                assert obs["action_mask"].any(axis=1).all()
            obs, _, terminated, truncated, infos = envs.step(
                sample_valid_actions(obs["action_mask"], rng)
            )
            done = terminated | truncated
            ended += int(done.sum())
            if mode is AutoresetMode.DISABLED and done.any():
                obs, infos = envs.reset(options={"reset_mask": done})
    finally:
        envs.close()
    assert ended > 5


def test_async_vector_env_stacks_the_observation_masks() -> None:
    envs = gymnasium.vector.AsyncVectorEnv(
        [
            lambda: gymnasium.make(
                "mathy_envs.gym:mathy-poly-easy-v0",
                obs_type="message_passing",
                mask_in_observation=True,
            )
        ]
        * 2,
        context="spawn",
    )
    try:
        obs, infos = envs.reset(seed=1)
        rng = np.random.default_rng(1)
        for _ in range(30):
            assert envs.observation_space.contains(obs)
            np.testing.assert_array_equal(obs["action_mask"], infos["action_mask"])
            assert set(obs) == {"observations", "action_mask"}
            obs, *_, infos = envs.step(sample_valid_actions(obs["action_mask"], rng))
    finally:
        envs.close()


# -- the end of the move budget ----------------------------------------------------------


def test_running_out_of_moves_is_terminated_and_truncated() -> None:
    """Every step that uses the last move ends the episode with a verdict, so
    `truncated` always comes with `terminated`: a loss, or a win with the last
    move. `truncated` alone never happens."""
    envs = SyncVectorEnv(
        [
            _fixed_budget("4x + 2x", 2),
            _fixed_budget("4x + 2x + 3y", 3),
            _fixed_budget("4x + 2y + 2x + y", 4),
        ]
    )
    subs = _sub_envs(envs)
    envs.reset(seed=11)
    rng = np.random.default_rng(11)
    masks = np.stack([env.action_masks() for env in subs])
    outcomes = {"lost": 0, "won": 0}
    try:
        for _ in range(400):
            budgets = [env.state.agent.moves_remaining if env.state else 0 for env in subs]
            obs, rewards, terminated, truncated, infos = envs.step(
                sample_valid_actions(masks, rng)
            )
            masks = infos["action_mask"]
            assert not (truncated & ~terminated).any()
            for row in np.flatnonzero(infos.get("_valid", np.zeros(3, bool))):
                assert truncated[row] == (budgets[row] == 1)
                if truncated[row]:
                    won = bool(infos["win"][row])
                    outcomes["won" if won else "lost"] += 1
                    if not won:
                        assert rewards[row] == pytest.approx(EnvRewards.LOSE)
    finally:
        envs.close()
    assert outcomes["lost"] > 0 and outcomes["won"] > 0, outcomes
