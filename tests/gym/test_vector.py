"""`MathyVectorEnv`: every episode plays as a `MathyGymEnv` of its problem plays.

Each episode of a vector env is replayed on a `MathyGymEnv` given its problem text
and move budget: with the same actions, the observations, action masks, rewards
and end flags must be the same, arrays byte for byte, until the episode ends.
"""

from typing import Any, List

import mathy_envs  # noqa: F401  (first: it lets mathy_core import on Python 3.13)
import gymnasium
import numpy as np
import pytest

from mathy_envs.envs import ComplexSimplify, PolySimplify
from mathy_envs.gym import MathyGymEnv, MathyVectorEnv, sample_valid_actions
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs


@pytest.mark.parametrize("revisits", [True, False])
@pytest.mark.parametrize("env_class", [PolySimplify, ComplexSimplify])
def test_each_episode_plays_as_a_gym_env_of_its_problem(env_class: Any, revisits: bool) -> None:
    vector = MathyVectorEnv(
        env_class, 4, MathyEnvProblemArgs(MathyEnvDifficulty.normal), revisits=revisits
    )
    observations, infos = vector.reset(seed=3)
    singles: List[MathyGymEnv] = []
    for index, state in enumerate(vector.batch.states):
        single = MathyGymEnv(
            env_class,
            env_problem=state.agent.problem,
            env_max_moves=state.max_moves,
            revisits=revisits,
        )
        observation, info = single.reset(seed=0)
        assert observation.tobytes() == observations[index].tobytes()
        assert info["action_mask"].tobytes() == infos["action_mask"][index].tobytes()
        singles.append(single)
    live = [True] * vector.num_envs
    rng = np.random.default_rng(3)
    compared = wins = 0
    for _ in range(40):
        actions = sample_valid_actions(infos["action_mask"], rng)
        observations, rewards, terminated, truncated, infos = vector.step(actions)
        for index, single in enumerate(singles):
            if not live[index]:
                continue
            observation, reward, ended, cut, info = single.step(int(actions[index]))
            assert observation.tobytes() == observations[index].tobytes(), index
            assert info["action_mask"].tobytes() == infos["action_mask"][index].tobytes()
            assert (reward, ended, cut) == (rewards[index], terminated[index], truncated[index])
            if ended or cut:
                assert infos["_win"][index] and infos["win"][index] == info["win"]
                wins += info["win"]
            else:
                assert "_win" not in infos or not infos["_win"][index]
            compared += 1
            live[index] = not (ended or cut)
    assert compared >= 40


def test_spaces_dtypes_and_next_step_autoreset() -> None:
    vector = MathyVectorEnv.from_id("mathy-poly-easy-v0", 3, max_seq_len=64)
    assert vector.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    observations, infos = vector.reset(seed=1)
    assert observations.dtype == np.float32 and observations.shape == (3, 4 + 2 * 64 + 7 * 64)
    assert vector.observation_space.contains(observations)
    assert infos["action_mask"].shape == (3, 7 * 64) and infos["action_mask"].dtype == np.int8
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(60):
        was_over = vector.batch.terminated | vector.batch.truncated
        observations, rewards, terminated, truncated, infos = vector.step(
            sample_valid_actions(infos["action_mask"], rng)
        )
        assert vector.observation_space.contains(observations)
        assert rewards.dtype == np.float64 and terminated.dtype == np.bool_
        for index in np.flatnonzero(was_over):
            # The step after an episode's end starts a new one, ignoring the action.
            assert rewards[index] == 0 and not terminated[index] and not truncated[index]
            assert len(vector.batch.states[index].agent.history) == 1
        ended += int((terminated | truncated).sum())
    assert ended >= 3


def test_the_same_seed_replays_the_same_episodes() -> None:
    def run(seed: int) -> bytes:
        vector = MathyVectorEnv(PolySimplify, 4)
        observations, infos = vector.reset(seed=seed)
        out = [observations.tobytes()]
        rng = np.random.default_rng(0)
        for _ in range(15):
            observations, rewards, _, _, infos = vector.step(
                sample_valid_actions(infos["action_mask"], rng)
            )
            out += [observations.tobytes(), rewards.tobytes()]
        return b"".join(out)

    assert run(5) == run(5) != run(6)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        MathyVectorEnv(PolySimplify, 2, max_seq_lenn=10)
    with pytest.raises(ValueError, match="no mathy env is registered"):
        MathyVectorEnv.from_id("mathy-nothing-v0", 2)
    with pytest.raises(ValueError, match="env_class must be a MathyEnv subclass"):
        MathyVectorEnv("PolySimplify", 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_envs"):
        MathyVectorEnv(PolySimplify, 0)
    vector = MathyVectorEnv(PolySimplify, 2)
    with pytest.raises(ValueError, match="options"):
        vector.reset(options={"x": 1})
    with pytest.raises(ValueError, match="seed"):
        vector.reset(seed=-1)


def _won_in_one(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
    return MathyEnvProblem("4x + 2x", 1, "mathy.polynomials.simplify")


def test_won_episodes_are_reported_as_gymnasium_stacks_infos() -> None:
    # 4x + 2x is won in two moves (factor, then add); random play wins some.
    vector = MathyVectorEnv(PolySimplify, 8, generator=_won_in_one)
    _, infos = vector.reset(seed=0)
    assert "win" not in infos
    rng = np.random.default_rng(2)
    wins = ends = 0
    for _ in range(30):
        _, rewards, terminated, truncated, infos = vector.step(
            sample_valid_actions(infos["action_mask"], rng)
        )
        ended = terminated | truncated
        if ended.any():
            assert (infos["_win"] == ended).all()
            assert (infos["win"] == (ended & terminated & (rewards > 0))).all()
            wins += int(infos["win"].sum())
            ends += int(ended.sum())
        else:
            assert "win" not in infos
    assert wins >= 3 and ends > wins
