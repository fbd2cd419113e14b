"""Observations that carry their action mask: `MathyGymEnv(mask_in_observation=True)`
and the `ActionMaskObservation` wrapper.

Both give `{"observations": <the normal observation>, "action_mask": <float32 0/1>}`
for every observation type, including one registered from this file. Expected masks
come from the wrapped `MathyEnv` (`least_visited_moves_array`), expected observations from a
plain env played in lockstep.
"""

import warnings
from typing import Any, Callable, Dict, Iterator, List

import mathy_envs  # noqa: F401  (first: it lets mathy_core import on Python 3.13)
import numpy as np
import pytest

import gymnasium
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import FlattenObservation

from mathy_envs.gym import ActionMaskObservation, MathyGymEnv, masked_observation_space
from mathy_envs.envs import PolySimplify
from mathy_envs.observations import (
    FloatArray,
    ObservationInputs,
    ObservationKind,
    register_observation,
    unregister_observation,
)

BUILT_IN = ["flat", "graph", "hierarchical", "message_passing"]
REGISTERED = "preorder_values"
OBS_TYPES = BUILT_IN + [REGISTERED]
KEYS = {"observations", "action_mask"}


class PreorderValuesKind(ObservationKind[FloatArray]):
    """A fifth observation type, defined outside the package: the pre-order node
    values, padded to `max_seq_len` (a plain array, with no mask of its own)."""

    name = REGISTERED

    def build(self, inputs: ObservationInputs) -> FloatArray:
        _, values = inputs.layout.preordered(inputs.normalize)
        padded = np.zeros(inputs.max_seq_len, np.float32)
        padded[: inputs.num_nodes] = values
        return padded

    def space(self, max_seq_len: int, num_rules: int) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (max_seq_len,), np.float32)


@pytest.fixture(autouse=True)
def preorder_values_type() -> Iterator[None]:
    """The fifth type is registered during each test, and only then."""
    register_observation(PreorderValuesKind())
    try:
        yield
    finally:
        unregister_observation(REGISTERED)


def _option(env_id: str, **kwargs: Any) -> gymnasium.Env:
    return gymnasium.make(env_id, mask_in_observation=True, **kwargs)


def _wrapper(env_id: str, **kwargs: Any) -> gymnasium.Env:
    return ActionMaskObservation(gymnasium.make(env_id, **kwargs))


MAKERS: Dict[str, Callable[..., gymnasium.Env]] = {"option": _option, "wrapper": _wrapper}


def _mathy(env: gymnasium.Env) -> MathyGymEnv:
    mathy_env = env.unwrapped
    assert isinstance(mathy_env, MathyGymEnv)
    return mathy_env


def _valid_moves(env: gymnasium.Env) -> np.ndarray:
    """The moves the mathy env offers in the current state (`get_valid_moves`,
    less the moves back to more visited expressions), padded to `max_seq_len`
    nodes and flattened rule by rule."""
    mathy_env = _mathy(env)
    assert mathy_env.state is not None and mathy_env.mask_revisits
    moves = np.asarray(mathy_env.mathy.least_visited_moves_array(mathy_env.state))
    padded = np.zeros((len(mathy_env.mathy.rules), mathy_env.mathy.max_seq_len))
    padded[:, : moves.shape[1]] = moves
    return padded.reshape(-1)


def _assert_same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b)
        for key in a:
            _assert_same(a[key], b[key])
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _assert_carries_mask(env: gymnasium.Env, obs: Any, info: Dict[str, Any]) -> None:
    size = _mathy(env).action_size
    assert isinstance(obs, dict) and set(obs) == KEYS
    mask = obs["action_mask"]
    assert isinstance(mask, np.ndarray)
    assert mask.dtype == np.float32 and mask.shape == (size,)
    assert set(np.unique(mask).tolist()) <= {0.0, 1.0}
    np.testing.assert_array_equal(mask, info["action_mask"])
    assert env.observation_space.contains(obs)


# -- the checker ---------------------------------------------------------------------


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_check_env_passes_with_the_option(obs_type: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make("mathy-poly-normal-v0", obs_type=obs_type, mask_in_observation=True)
        check_env(env.unwrapped)
        # The passive checker gymnasium.make adds is quiet too.
        obs, info = env.reset(seed=3)
        obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        env.close()


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_check_env_passes_with_the_wrapper(obs_type: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The checker always says a wrapped env is not its unwrapped one.
        warnings.filterwarnings("ignore", message=".*different from the unwrapped")
        env = ActionMaskObservation(gymnasium.make("mathy-poly-normal-v0", obs_type=obs_type))
        check_env(env)
        env.close()


# -- spaces --------------------------------------------------------------------------


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_the_space_is_the_plain_space_and_a_mask_box(maker: str, obs_type: str) -> None:
    env = MAKERS[maker]("mathy-poly-easy-v0", obs_type=obs_type, max_seq_len=40)
    plain = gymnasium.make("mathy-poly-easy-v0", obs_type=obs_type, max_seq_len=40)
    space = env.observation_space
    assert isinstance(space, spaces.Dict) and set(space.spaces) == KEYS
    assert space["observations"] == plain.observation_space
    size = len(_mathy(env).mathy.rules) * 40
    assert space["action_mask"] == spaces.Box(0.0, 1.0, (size,), np.float32)
    assert space == masked_observation_space(plain.observation_space, size)


# -- observations, step by step ------------------------------------------------------


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_every_observation_carries_the_current_mask(maker: str, obs_type: str) -> None:
    """Over whole episodes, the mask is `info["action_mask"]` and the mathy env's
    valid moves, and `"observations"` is what the plain env observes."""
    env = MAKERS[maker]("mathy-poly-easy-v0", obs_type=obs_type, max_seq_len=40)
    plain = gymnasium.make("mathy-poly-easy-v0", obs_type=obs_type, max_seq_len=40)
    rng = np.random.default_rng(7)
    ended = 0
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        plain_obs, _ = plain.reset(seed=seed)
        while True:
            _assert_carries_mask(env, obs, info)
            np.testing.assert_array_equal(obs["action_mask"], _valid_moves(env))
            _assert_same(obs["observations"], plain_obs)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(action)
            plain_obs, plain_reward, *_ = plain.step(action)
            assert reward == plain_reward
            if terminated or truncated:
                _assert_carries_mask(env, obs, info)
                _assert_same(obs["observations"], plain_obs)
                ended += 1
                break
    assert ended == 3


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_an_oversize_step_carries_an_empty_mask(maker: str, obs_type: str) -> None:
    # (x + 1)(x + 2) has 7 nodes; distributing the product gives 11 > 8
    env = MAKERS[maker](
        "mathy-poly-easy-v0", env_problem="(x + 1)(x + 2)", max_seq_len=8, obs_type=obs_type
    )
    obs, info = env.reset(seed=0)
    _assert_carries_mask(env, obs, info)
    rules = [type(r).__name__ for r in _mathy(env).mathy.rules]
    distribute = rules.index("DistributiveMultiplyRule")
    nodes = np.flatnonzero(obs["action_mask"].reshape(len(rules), 8)[distribute])
    obs, _, terminated, _, info = env.step(distribute * 8 + int(nodes[0]))
    assert terminated is True and bool(info["oversize"]) is True
    _assert_carries_mask(env, obs, info)
    assert not obs["action_mask"].any()


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("obs_type", BUILT_IN)
def test_mask_as_probabilities_changes_only_the_inner_mask(maker: str, obs_type: str) -> None:
    env = MAKERS[maker]("mathy-poly-normal-v0", obs_type=obs_type, mask_as_probabilities=True)
    obs, info = env.reset(seed=21)
    for _ in range(6):
        _assert_carries_mask(env, obs, info)
        inner = obs["observations"]
        size = _mathy(env).action_size
        probabilities = inner[-size:] if obs_type == "flat" else inner["action_mask"]
        assert probabilities.sum() == pytest.approx(1.0, abs=1e-5)
        np.testing.assert_array_equal(probabilities > 0, obs["action_mask"] == 1)
        assert obs["action_mask"].sum() > 1  # 0/1, not the distribution
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if terminated or truncated:
            break


# -- the wrapper ---------------------------------------------------------------------


def test_the_wrapper_wraps_a_bare_env_and_other_wrappers() -> None:
    """The mask comes from the mathy env underneath, whatever sits in between;
    `"observations"` is what the wrapped env returns."""
    bare = ActionMaskObservation(MathyGymEnv(PolySimplify, obs_type="graph", max_seq_len=32))
    obs, info = bare.reset(seed=2)
    _assert_carries_mask(bare, obs, info)
    flattened = ActionMaskObservation(
        FlattenObservation(gymnasium.make("mathy-poly-easy-v0", obs_type="graph", max_seq_len=32))
    )
    assert isinstance(flattened.observation_space["observations"], spaces.Box)
    obs, info = flattened.reset(seed=2)
    for _ in range(4):
        _assert_carries_mask(flattened, obs, info)
        np.testing.assert_array_equal(obs["action_mask"], _valid_moves(flattened))
        assert obs["observations"].ndim == 1
        obs, *_, info = flattened.step(int(np.flatnonzero(obs["action_mask"])[-1]))


def test_the_wrapper_is_recorded_in_the_spec() -> None:
    env = ActionMaskObservation(gymnasium.make("mathy-poly-easy-v0", obs_type="graph"))
    assert env.spec is not None
    again = gymnasium.make(env.spec)
    assert isinstance(again, ActionMaskObservation)
    assert again.observation_space == env.observation_space
    _assert_same(again.reset(seed=4)[0], env.reset(seed=4)[0])


@pytest.mark.parametrize(
    "env, message",
    [
        (lambda: gymnasium.make("CartPole-v1"), "unwrapped env is CartPoleEnv"),
        (lambda: "mathy-poly-easy-v0", "got str"),
        (
            lambda: gymnasium.make("mathy-poly-easy-v0", mask_in_observation=True),
            "already carry the action mask",
        ),
        (
            lambda: ActionMaskObservation(gymnasium.make("mathy-poly-easy-v0")),
            "already carry the action mask",
        ),
    ],
    ids=["not-mathy", "not-an-env", "already-masked", "already-wrapped"],
)
def test_the_wrapper_rejects_other_envs(env: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ActionMaskObservation(env())


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_mask_in_observation_must_be_a_bool(value: Any) -> None:
    with pytest.raises(ValueError, match="mask_in_observation must be a bool"):
        MathyGymEnv(PolySimplify, mask_in_observation=value)
