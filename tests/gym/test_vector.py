"""`MathyVectorEnv`: every episode plays as a `MathyGymEnv` of its problem plays.

Each episode of a vector env is replayed on a `MathyGymEnv` given its problem text
and move budget: with the same actions, the observations, action masks, rewards
and end flags must be the same, arrays byte for byte, until the episode ends. The
infos are compared with those of a `SyncVectorEnv` of `MathyGymEnv`s playing the
same episodes: key for key, `_key` mask for mask.
"""

from typing import Any, Callable, Dict, List, Tuple

import mathy_envs  # noqa: F401  (first: it lets mathy_core import on Python 3.13)
import gymnasium
import numpy as np
import pytest
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from mathy_core.rules import CommutativeSwapRule

from mathy_envs.envs import BinomialDistribute, ComplexSimplify, PolySimplify
from mathy_envs.gym import MathyGymEnv, MathyVectorEnv, sample_valid_actions
from mathy_envs.observations import observation_types
from mathy_envs.rewards import RewardScheme
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
            for key in ("valid", "oversize", "win"):
                assert infos[f"_{key}"][index] and infos[key][index] == info[key], key
            wins += info["win"]
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
    with pytest.raises(ValueError, match="'graphs'"):
        MathyVectorEnv(PolySimplify, 2, obs_type="graphs")
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
    assert set(infos) == {"action_mask", "_action_mask"}  # as MathyGymEnv.reset's
    rng = np.random.default_rng(2)
    wins = ends = 0
    played = np.ones(8, np.bool_)
    for _ in range(30):
        _, rewards, terminated, truncated, infos = vector.step(
            sample_valid_actions(infos["action_mask"], rng)
        )
        ended = terminated | truncated
        if played.any():
            # Every episode the step played has a `win`; those it reset have none.
            assert (infos["_win"] == played).all()
            assert (infos["win"] == (ended & terminated & (rewards > 0))).all()
            wins += int(infos["win"].sum())
            ends += int(ended.sum())
        else:
            assert "win" not in infos and "_win" not in infos
        played = ~ended
    assert wins >= 3 and ends > wins


OUTGROWS = "2(x + 3) + x"
"""Distributing gives `2x + 2 * 3 + x`, two nodes more: with `max_seq_len` its node
count, that step outgrows the observation (`info["oversize"]`); adding `2 * 3`
brings it back."""


def _outgrows(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
    return MathyEnvProblem(OUTGROWS, 2, "mathy.polynomials.simplify")


class _PlaysOnPastTheLimit(RewardScheme):
    """A scheme of a user's own that does not end an episode whose expression
    outgrew `max_seq_len`: the episode goes on, its mask showing no move."""

    def oversize(self, env: Any, state: Any, features: Any) -> None:
        return None


def _flip_commute(step: int, envs: List[Any]) -> None:
    """Replace commutative swap (the documented way to change its setting) in
    every env, between steps: validity changes under the episodes in play."""
    for mathy in envs:
        mathy.rules[1] = CommutativeSwapRule(preferred=step % 2 == 0)


SideBySide = Tuple[MathyVectorEnv, SyncVectorEnv, List[MathyGymEnv], Dict[str, Any]]


def _side_by_side(env_class: Any, kwargs: Dict[str, Any], count: int, seed: int) -> SideBySide:
    """A `MathyVectorEnv` and a `SyncVectorEnv` of `MathyGymEnv`s (next-step
    autoreset, as the vector env's) of `env_class`, reset to the same episodes:
    both, their sub-envs and the reset's infos (checked to be the same).

    `MathyVectorEnv` draws every episode's problem from one generator, slot after
    slot; the sub-envs are given one generator, seeded alike, so they draw the
    same problems in the same order (Gymnasium resets them in index order)."""
    args = MathyEnvProblemArgs(MathyEnvDifficulty.normal)
    vector = MathyVectorEnv(env_class, count, args, **kwargs)
    make: Callable[[], MathyGymEnv] = lambda: MathyGymEnv(env_class, args, **kwargs)
    sync = SyncVectorEnv([make] * count, autoreset_mode=AutoresetMode.NEXT_STEP)
    assert vector.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"]
    vector.mathy.np_random = seeding.np_random(seed)[0]
    shared = seeding.np_random(seed)[0]
    singles: List[MathyGymEnv] = [env.unwrapped for env in sync.envs]  # type: ignore[misc]
    for single in singles:
        single.np_random = shared
    observations, infos = vector.reset()
    expected, expected_infos = sync.reset()
    _assert_same_observations(observations, expected, "reset")
    _assert_same_infos(infos, expected_infos, "reset")
    return vector, sync, singles, infos


def _assert_same_step(vector: MathyVectorEnv, sync: SyncVectorEnv, actions: Any, where: str) -> Dict[str, Any]:
    """Step both with `actions`: the same results and infos; returns the infos."""
    *results, infos = vector.step(actions)
    *expected, expected_infos = sync.step(actions)
    _assert_same_observations(results[0], expected[0], where)
    names = ("rewards", "terminated", "truncated")
    for name, mine, theirs in zip(names, results[1:], expected[1:]):
        np.testing.assert_array_equal(mine, theirs, err_msg=f"{where}: {name}")
    _assert_same_infos(infos, expected_infos, where)
    return infos


def _assert_same_observations(mine: Any, theirs: Any, where: str) -> None:
    """Stacked observations alike: one array, or dicts of the same keys in the
    same order, each the same dtype, shape and bytes."""
    if isinstance(theirs, dict):
        assert isinstance(mine, dict) and list(mine) == list(theirs), (where, list(theirs))
        for key, value in theirs.items():
            _assert_same_observations(mine[key], value, f"{where}: {key}")
        return
    assert isinstance(mine, np.ndarray), where
    assert (mine.dtype, mine.shape) == (theirs.dtype, theirs.shape), where
    assert mine.tobytes() == theirs.tobytes(), where


def _assert_same_infos(mine: Dict[str, Any], theirs: Dict[str, Any], where: str) -> None:
    """The same keys in the same order, and equal arrays of one dtype and shape."""
    assert list(mine) == list(theirs), (where, list(mine), list(theirs))
    for key, value in theirs.items():
        assert isinstance(mine[key], np.ndarray), (where, key)
        assert (mine[key].dtype, mine[key].shape) == (value.dtype, value.shape), (where, key)
        np.testing.assert_array_equal(mine[key], value, err_msg=f"{where}: {key}")


# name -> (env class, keywords, share of masked actions, hook called before each step)
INFO_CASES: Dict[str, Tuple[Any, Dict[str, Any], float, Any]] = {
    "poly": (PolySimplify, {}, 0.9, None),
    "complex, published masks": (ComplexSimplify, {"mask_revisits": False}, 0.9, None),
    "binomial, half unmasked": (BinomialDistribute, {"max_seq_len": 24}, 0.5, None),
    "outgrowing max_seq_len": (
        PolySimplify,
        {"generator": _outgrows, "max_seq_len": PolySimplify().node_count(OUTGROWS)},
        0.9,
        None,
    ),
    "rules changed between steps": (
        PolySimplify,
        {"preferred_term_commute": True, "revisits": False},
        0.7,
        _flip_commute,
    ),
}


@pytest.mark.parametrize("case", list(INFO_CASES))
def test_infos_are_those_of_a_sync_vector_env_of_gym_envs(case: str) -> None:
    """A `SyncVectorEnv` of `MathyGymEnv`s playing the same episodes with the same
    actions (masked random ones, and some unmasked: invalid ones) gives the same
    infos at every reset and step, key for key and `_key` mask for mask, on the
    steps where some episodes are reset too."""
    env_class, kwargs, masked, before_step = INFO_CASES[case]
    count, seed = 6, 4
    vector, sync, singles, infos = _side_by_side(env_class, kwargs, count, seed)
    rng = np.random.default_rng(seed)
    seen = {"invalid": 0, "reset": 0, "oversize": 0}
    for step in range(120):
        if before_step is not None:
            before_step(step, [vector.mathy] + [single.mathy for single in singles])
        actions = sample_valid_actions(infos["action_mask"], rng)
        unmasked = rng.random(count) >= masked
        actions[unmasked] = rng.integers(0, vector.mathy.action_size, int(unmasked.sum()))
        infos = _assert_same_step(vector, sync, actions, f"step {step}")
        if "valid" in infos:
            seen["invalid"] += int((infos["_valid"] & ~infos["valid"]).sum())
            seen["reset"] += int((~infos["_valid"]).sum())
            seen["oversize"] += int(infos["oversize"].sum())
    # The run met what the infos tell apart.
    assert seen["invalid"] > 0 and seen["reset"] > 0, seen
    if case == "outgrowing max_seq_len":
        assert seen["oversize"] > 0, seen


def test_a_move_back_within_max_seq_len_is_valid_although_no_mask_shows_it() -> None:
    """With a reward scheme that lets an oversize episode go on, its mask shows
    no move, but the env still takes one back within `max_seq_len`:
    `info["valid"]` says so, as `MathyGymEnv`'s does."""
    kwargs = {
        "generator": _outgrows,
        "max_seq_len": PolySimplify().node_count(OUTGROWS),
        "reward_scheme": _PlaysOnPastTheLimit(),
    }
    vector, sync, singles, infos = _side_by_side(PolySimplify, kwargs, 2, 0)
    mathy, length = singles[0].mathy, vector.mathy.max_seq_len
    names = [type(rule).__name__ for rule in mathy.rules]

    def action(rule: str) -> int:
        """The first valid move of the named rule in sub-env 0's state."""
        row = names.index(rule)
        assert singles[0].state is not None
        moves = mathy.valid_moves_array(singles[0].state)[row]
        return row * length + int(np.flatnonzero(moves[:length])[0])

    first = np.array([action("DistributiveMultiplyRule"), 0])
    infos = _assert_same_step(vector, sync, first, "outgrowing")
    assert infos["oversize"][0] and not infos["action_mask"][0].any()
    back = np.array([action("ConstantsSimplifyRule"), 0])
    infos = _assert_same_step(vector, sync, back, "back within the limit")
    assert infos["valid"][0] and not infos["oversize"][0]
    assert infos["action_mask"][0].any()


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copied_vector_env_steps_on_as_the_original(how: str) -> None:
    import copy
    import pickle

    envs = MathyVectorEnv(BinomialDistribute, 4, invalid_action_response="penalize")
    envs.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(5):
        envs.step(sample_valid_actions(envs.batch.masks, rng))
    copied = pickle.loads(pickle.dumps(envs)) if how == "pickle" else copy.deepcopy(envs)
    for _ in range(40):
        actions = sample_valid_actions(envs.batch.masks, rng)
        actions[1] = 0  # an invalid move now and then (penalized)
        ours, theirs = envs.step(actions), copied.step(actions)
        for mine, other in zip(ours[:4], theirs[:4]):
            np.testing.assert_array_equal(mine, other)
        assert ours[4].keys() == theirs[4].keys()
        for key in ours[4]:
            np.testing.assert_array_equal(ours[4][key], theirs[4][key], err_msg=key)


def test_the_fast_path_is_shown_on_the_vector_env() -> None:
    vector = MathyVectorEnv(PolySimplify, 8)
    vector.reset(seed=0)
    assert vector.native_fraction == 0.0
    rng = np.random.default_rng(0)
    for _ in range(10):
        vector.step(sample_valid_actions(vector.batch.masks, rng))
    assert vector.native_fraction == vector.batch.native_fraction
    assert vector.native_start_fraction == vector.batch.native_start_fraction
    assert vector.native_reason == vector.batch.native_reason
    assert (vector.native_reason is None) == (vector.native_fraction > 0)
    assert (vector.native_reason is None) == (vector.native_start_fraction > 0)
    vector.mathy.get_win_signal = lambda env_state: 3.0  # type: ignore[method-assign]
    assert vector.native_reason == "the env has its own get_win_signal (set on the instance)"


OBSERVATION_CASES: Dict[str, Tuple[Any, Dict[str, Any]]] = {
    "poly": (PolySimplify, {}),
    "binomial, no revisit feature": (BinomialDistribute, {"revisits": False}),
    "outgrowing max_seq_len": (
        PolySimplify,
        {"generator": _outgrows, "max_seq_len": PolySimplify().node_count(OUTGROWS)},
    ),
}


@pytest.mark.parametrize("obs_type", observation_types())
@pytest.mark.parametrize("case", list(OBSERVATION_CASES))
def test_every_observation_type_is_stacked_as_a_sync_vector_env_stacks_it(
    case: str, obs_type: str
) -> None:
    """`MathyVectorEnv(obs_type=...)` gives, at every reset and step, the
    observations of a `SyncVectorEnv` of `MathyGymEnv`s of that type playing the
    same episodes (each array of the same dtype, shape and bytes), whatever the
    revisit feature, through episodes reset along the way and steps that outgrow
    `max_seq_len` (which show the last state that fit, with no valid move)."""
    env_class, kwargs = OBSERVATION_CASES[case]
    count, seed = 4, 5
    vector, sync, _, infos = _side_by_side(env_class, {**kwargs, "obs_type": obs_type}, count, seed)
    assert vector.observation_space == sync.observation_space
    assert vector.single_observation_space == sync.single_observation_space
    rng = np.random.default_rng(seed)
    resets = oversize = 0
    for step in range(40):
        actions = sample_valid_actions(infos["action_mask"], rng)
        infos = _assert_same_step(vector, sync, actions, f"{obs_type}, step {step}")
        if "valid" in infos:
            resets += int((~infos["_valid"]).sum())
            oversize += int(infos["oversize"].sum())
    assert resets > 0
    if case == "outgrowing max_seq_len":
        assert oversize > 0


def test_an_observation_type_is_given_read_only_masks() -> None:
    """A registered type's code gets the mask read-only, as from `MathyGymEnv`:
    writing into it raises and changes none of the vector env's masks."""
    from mathy_envs.observations import register_observation, unregister_observation
    from mathy_envs.observations.registry import get_observation_kind

    flat = get_observation_kind("flat")

    class Scribbling(type(flat)):  # type: ignore[misc]
        name = "scribbling"

        def build(self, inputs: Any) -> Any:
            inputs.move_mask[...] = 0
            return super().build(inputs)

    register_observation(Scribbling())
    try:
        vector = MathyVectorEnv(PolySimplify, 2, obs_type="scribbling")
        with pytest.raises(ValueError, match="read-only"):
            vector.reset(seed=0)
        single = MathyGymEnv(PolySimplify, obs_type="scribbling")
        with pytest.raises(ValueError, match="read-only"):
            single.reset(seed=0)
    finally:
        unregister_observation("scribbling")


def test_a_vector_env_on_threads_gives_what_one_thread_gives() -> None:
    one = MathyVectorEnv.from_id("mathy-poly-normal-v0", 9)
    two = MathyVectorEnv.from_id("mathy-poly-normal-v0", 9, num_threads=2)
    assert two.batch.num_threads == 2
    observations = [env.reset(seed=4)[0] for env in (one, two)]
    assert observations[0].tobytes() == observations[1].tobytes()
    rng = np.random.default_rng(4)
    for _ in range(25):
        mask = one.batch.masks
        actions = sample_valid_actions(mask, rng)
        stepped = [env.step(actions) for env in (one, two)]
        for made, other in zip(stepped[0][:4], stepped[1][:4]):
            assert np.asarray(made).tobytes() == np.asarray(other).tobytes()
        assert stepped[0][4]["action_mask"].tobytes() == stepped[1][4]["action_mask"].tobytes()
