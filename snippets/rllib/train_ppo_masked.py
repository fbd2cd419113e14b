"""Train RLlib's PPO with action masking on mathy-poly-easy-v0, then compare its
greedy win rate on held-out problems with a masked random agent's.

Needs `pip install torch "ray[rllib]" "mathy_envs[gym]"`. Run it as a script:
`--iterations 1 --problems 20` makes a quick smoke run.
"""

import argparse
import time
from typing import Any, Callable, Dict, Optional, Tuple

import gymnasium
import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec

# "module:id": gymnasium imports mathy_envs.gym (which registers the mathy-* ids)
# before it makes the env, in every env runner process.
ENV_ID = "mathy_envs.gym:mathy-poly-easy-v0"
ENV_CONFIG = {"mask_in_observation": True}  # keywords for gymnasium.make
HELD_OUT_SEEDS = range(100_000, 100_200)  # training's envs are seeded at random


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO's default torch module for observations `{"observations": ...,
    "action_mask": ...}`.

    Its networks (policy, value function) are built for and read only
    `obs["observations"]`; the logits of every action whose mask is 0 are then set
    to the lowest float, so exploration samples, greedy inference and the training
    loss all give invalid actions zero probability.
    """

    def __init__(self, *, observation_space: gymnasium.Space, **kwargs: Any) -> None:
        if not isinstance(observation_space, gymnasium.spaces.Dict) or set(
            observation_space.spaces
        ) != {"observations", "action_mask"}:
            raise ValueError(
                "MaskedPPOModule needs a Dict observation space with the keys "
                f"'observations' and 'action_mask', got {observation_space}"
            )
        # The default PPO networks are built for the observations alone ...
        super().__init__(observation_space=observation_space["observations"], **kwargs)
        # ... while the module reads (and is rebuilt from) the whole dict.
        self.observation_space = observation_space

    @staticmethod
    def _split(batch: Dict[str, Any]) -> Tuple[Dict[str, Any], torch.Tensor]:
        """The batch with `obs["observations"]` as its observations, and the mask.
        The input batch is left unchanged: RLlib passes the same one to
        `compute_values` and `forward_train`."""
        obs = batch[Columns.OBS]
        return {**batch, Columns.OBS: obs["observations"]}, obs["action_mask"]

    @staticmethod
    def _mask(output: Dict[str, Any], mask: torch.Tensor) -> Dict[str, Any]:
        logits = output[Columns.ACTION_DIST_INPUTS]
        lowest = torch.finfo(logits.dtype).min
        output[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0.5, logits, lowest)
        return output

    def _forward(self, batch: Dict[str, Any], **kwargs: Any) -> Dict[str, Any]:
        """Exploration and inference (RLlib's default for both)."""
        inner, mask = self._split(batch)
        return self._mask(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: Dict[str, Any], **kwargs: Any) -> Dict[str, Any]:
        inner, mask = self._split(batch)
        return self._mask(super()._forward_train(inner, **kwargs), mask)

    def compute_values(
        self, batch: Dict[str, Any], embeddings: Optional[Any] = None
    ) -> torch.Tensor:
        inner, _ = self._split(batch)
        return super().compute_values(inner, embeddings)


class CountInvalidActions(RLlibCallback):
    """Counts, in every env runner, the steps the env judged invalid
    (`info["valid"]` is False) and the steps checked."""

    def on_episode_step(
        self, *, episode: Any, metrics_logger: Any, **kwargs: Any
    ) -> None:
        valid = episode.get_infos(-1)["valid"]
        metrics_logger.log_value("actions_checked", 1, reduce="lifetime_sum")
        metrics_logger.log_value(
            "invalid_actions", int(not valid), reduce="lifetime_sum"
        )


def greedy_action(module: RLModule, obs: Dict[str, np.ndarray]) -> int:
    """The module's most likely (masked) action for one observation."""
    batch = {Columns.OBS: {key: torch.from_numpy(obs[key])[None] for key in obs}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return int(logits[0].argmax())


def random_action(obs: Dict[str, np.ndarray], rng: np.random.Generator) -> int:
    """A uniformly random valid action."""
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def win_rate(
    choose: Callable[[Dict[str, np.ndarray]], int], seeds: range
) -> float:
    """The share of the problems of `seeds` that `choose(obs)` wins."""
    env = gymnasium.make(ENV_ID, **ENV_CONFIG)
    wins = 0
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(choose(obs))
            done = terminated or truncated
        wins += int(info["win"])
    return wins / len(seeds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--problems", type=int, default=len(HELD_OUT_SEEDS))
    args = parser.parse_args()
    if args.iterations < 1 or args.problems < 1:
        parser.error("--iterations and --problems must be at least 1")

    torch.set_num_threads(1)  # a small MLP: extra threads only contend for the CPU
    ray.init(include_dashboard=False, logging_level="ERROR")
    config = (
        PPOConfig()
        .environment(ENV_ID, env_config=ENV_CONFIG)
        # sample_timeout_s: on a busy machine the env runners may take longer
        # than RLlib's default minute to start and sample; their samples are
        # waited for, not dropped (an iteration without them reports no
        # env runner results).
        .env_runners(num_env_runners=2, num_envs_per_env_runner=4, sample_timeout_s=600.0)
        .training(
            train_batch_size_per_learner=2000,
            minibatch_size=250,
            num_epochs=8,
            lr=3e-4,
            entropy_coeff=0.01,
        )
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOModule))
        .callbacks(CountInvalidActions)
        .debugging(log_level="ERROR")
    )
    algo = config.build_algo()
    start = time.perf_counter()
    for _ in range(args.iterations):
        result = algo.train()
    runners = result["env_runners"]
    steps = int(runners["num_env_steps_sampled_lifetime"])
    seconds = time.perf_counter() - start
    print(f"trained {args.iterations} iterations, {steps} env steps in {seconds:.0f} s")
    invalid, checked = int(runners["invalid_actions"]), int(runners["actions_checked"])
    print(f"invalid actions sampled: {invalid} of {checked}")

    module = algo.get_module()  # the trained weights, in this process
    seeds = HELD_OUT_SEEDS[: args.problems]
    ppo = win_rate(lambda obs: greedy_action(module, obs), seeds)
    rng = np.random.default_rng(0)
    masked_random = win_rate(lambda obs: random_action(obs, rng), seeds)
    print(f"held-out problems: {len(seeds)}")
    print(f"PPO (greedy, masked) win rate: {ppo:.2f}")
    print(f"masked random win rate: {masked_random:.2f}")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
