"""The RLlib example (`snippets/rllib/train_ppo_masked.py`, docs/rllib.md): its
action-masking module, and a training run with two env runners that samples no
invalid action.

Needs ray[rllib] and torch, which no extra of mathy_envs installs (Ray pins its
own Gymnasium version), so this file is skipped without them and CI runs it in a
virtual environment of its own.
"""

import importlib.util
import re
import subprocess
from types import ModuleType
from typing import Any, Dict, List

import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

import gymnasium  # noqa: E402  (after the skips)
import numpy as np  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.default_model_config import (  # noqa: E402
    DefaultModelConfig,
)
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec  # noqa: E402

from helpers import RLLIB_PPO_SNIPPET  # noqa: E402


@pytest.fixture(scope="module")
def example() -> ModuleType:
    """The example's file imported as a module (its training runs only as a
    script)."""
    spec = importlib.util.spec_from_file_location("train_ppo_masked", RLLIB_PPO_SNIPPET)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def env(example: ModuleType) -> gymnasium.Env[Any, Any]:
    """The example's environment, with the action mask in its observations."""
    return gymnasium.make(example.ENV_ID, **example.ENV_CONFIG)


def build(example: ModuleType, env: gymnasium.Env[Any, Any], **kwargs: Any) -> RLModule:
    """The example's module for `env`'s spaces, as RLlib builds it from a spec
    (`kwargs`: more spec fields), with seeded weights."""
    torch.manual_seed(0)
    return RLModuleSpec(
        module_class=example.MaskedPPOModule,
        observation_space=env.observation_space,
        action_space=env.action_space,
        model_config=DefaultModelConfig(),
        **kwargs,
    ).build()


@pytest.fixture(scope="module")
def batch(env: gymnasium.Env[Any, Any]) -> Dict[str, Any]:
    """A training-style batch of the observations an agent acts on (terminal ones
    left out), from masked random play of several problems."""
    rng = np.random.default_rng(7)
    observations: List[Dict[str, np.ndarray]] = []
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            observations.append(obs)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    return {
        Columns.OBS: {
            key: torch.from_numpy(np.stack([obs[key] for obs in observations]))
            for key in ("observations", "action_mask")
        }
    }


def test_module_reads_the_dict_observation_space(
    example: ModuleType, env: gymnasium.Env[Any, Any]
) -> None:
    """The module takes the env's Dict space (and keeps it, so RLlib rebuilds it
    from its constructor arguments); any other space is a ValueError."""
    module = build(example, env)
    assert module.observation_space == env.observation_space
    args, kwargs = module.get_ctor_args_and_kwargs()
    assert type(module)(*args, **kwargs).observation_space == env.observation_space
    with pytest.raises(ValueError, match="'observations' and 'action_mask'"):
        build(example, gymnasium.make(example.ENV_ID))  # observations without a mask


def test_exploration_samples_only_valid_actions(
    example: ModuleType, env: gymnasium.Env[Any, Any], batch: Dict[str, Any]
) -> None:
    """Actions sampled from the exploration distribution, as the env runners do,
    are always valid, in every state of the batch."""
    module = build(example, env, inference_only=True)
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    distribution = module.get_exploration_action_dist_cls().from_logits(logits)
    mask = batch[Columns.OBS]["action_mask"]
    for _ in range(50):
        actions = distribution.sample()
        assert mask.gather(1, actions[:, None]).min() == 1.0
    # Invalid actions get no probability at all; valid ones keep theirs.
    probabilities = torch.softmax(logits, dim=-1)
    assert float(probabilities[mask == 0].max()) == 0.0
    assert torch.allclose(probabilities.sum(dim=-1), torch.ones(len(logits)))


def test_a_mask_without_valid_action_gives_finite_probabilities(
    example: ModuleType, env: gymnasium.Env[Any, Any], batch: Dict[str, Any]
) -> None:
    """An all-zero mask (the last observation of some episodes, whose action the
    env discards when it resets) gives equal logits, a distribution without NaN
    that can still be sampled."""
    module = build(example, env, inference_only=True)
    observations = batch[Columns.OBS]["observations"][:3]
    no_action = torch.zeros(3, env.action_space.n)
    empty = {Columns.OBS: {"observations": observations, "action_mask": no_action}}
    logits = module.forward_exploration(empty)[Columns.ACTION_DIST_INPUTS]
    probabilities = torch.softmax(logits, dim=-1)
    assert torch.isfinite(probabilities).all()
    uniform = torch.full_like(probabilities, 1 / env.action_space.n)
    assert torch.allclose(probabilities, uniform)
    module.get_exploration_action_dist_cls().from_logits(logits).sample()


def test_inference_picks_a_valid_action(
    example: ModuleType, env: gymnasium.Env[Any, Any], batch: Dict[str, Any]
) -> None:
    """The greedy (inference) action is the most likely valid one, even for an
    untrained module whose raw favourite may be invalid."""
    module = build(example, env, inference_only=True)
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    distribution = module.get_inference_action_dist_cls().from_logits(logits)
    greedy = distribution.to_deterministic().sample()
    mask = batch[Columns.OBS]["action_mask"]
    assert mask.gather(1, greedy[:, None]).min() == 1.0


def test_training_sees_the_sampling_distribution_and_values_ignore_the_mask(
    example: ModuleType, env: gymnasium.Env[Any, Any], batch: Dict[str, Any]
) -> None:
    """The training forward pass masks the logits exactly as exploration does (so
    PPO's ratios compare the distribution actions were sampled from), values are
    computed from the observations alone, and neither call changes the batch
    RLlib passes on to the other."""
    module = build(example, env)
    observations = batch[Columns.OBS]["observations"]
    train = module.forward_train(batch)
    assert batch[Columns.OBS]["observations"] is observations
    explore = module.forward_exploration(batch)
    assert torch.allclose(
        train[Columns.ACTION_DIST_INPUTS], explore[Columns.ACTION_DIST_INPUTS]
    )

    values = module.compute_values(batch)
    assert values.shape == (len(observations),)
    assert torch.isfinite(values).all()
    assert batch[Columns.OBS]["observations"] is observations
    mask = batch[Columns.OBS]["action_mask"]
    flipped = {Columns.OBS: {"observations": observations, "action_mask": 1 - mask}}
    assert torch.equal(module.compute_values(flipped), values)


@pytest.mark.slow
def test_training_with_two_env_runners_samples_no_invalid_action(
    rllib_ppo_run: "subprocess.CompletedProcess[str]",
) -> None:
    """A training iteration of the example (two env runners, four envs each)
    samples only actions the env accepts as valid (`info["valid"]`, counted by
    the example's callback in every env runner), then reports both win rates
    (the run is shared with `tests/test_snippets.py`, see
    `conftest.rllib_ppo_run`)."""
    result = rllib_ppo_run
    assert result.returncode == 0, result.stderr
    counted = re.search(r"invalid actions sampled: (\d+) of (\d+)", result.stdout)
    assert counted, result.stdout
    invalid, checked = int(counted.group(1)), int(counted.group(2))
    assert checked > 0 and invalid == 0, result.stdout
    for agent in ("PPO \\(greedy, masked\\)", "masked random"):
        rate = re.search(agent + r" win rate: ([0-9.]+)", result.stdout)
        assert rate, result.stdout
        assert 0.0 <= float(rate.group(1)) <= 1.0
