"""Measure RLlib's sampling throughput (env steps per second) on
mathy-poly-easy-v0 with the action-masking PPO module of
`snippets/rllib/train_ppo_masked.py`, for 1 and 2 env runners with N envs each.

For every (runners, envs per runner) pair it builds the example's PPO algorithm
(no training), lets every env runner sample `--warmup` steps, then times
`--repeats` rounds in which all env runners sample `--steps` steps each at once
(exploration: the module's forward pass, masked sampling and the env steps) and
reports the best round's steps per second over all runners (wall clock), so
that other load on the machine skews it less. Steps are counted from the returned
episodes. It also reports the env runners' steps per CPU second (their processes'
CPU time while sampling, in the same best round), which other load hardly changes:
it shows what batching several envs into one forward pass saves per step.

    python tools/rllib_throughput.py                      # 1, 2 runners x 1, 4, 8 envs
    python tools/rllib_throughput.py --runners 2 --envs 4 --steps 4000

Needs `pip install torch "ray[rllib]"` besides mathy_envs[gym].
"""

import argparse
import os
import runpy
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXAMPLE = ROOT / "snippets" / "rllib" / "train_ppo_masked.py"


def measure(
    example: Dict[str, Any], runners: int, envs: int, steps: int, warmup: int, repeats: int
) -> Tuple[float, float]:
    """Env steps per wall-clock second over all `runners` and per CPU second of
    the runners, in the fastest of `repeats` rounds."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    config = (
        PPOConfig()
        .environment(example["ENV_ID"], env_config=example["ENV_CONFIG"])
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=envs)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=example["MaskedPPOModule"]))
        .debugging(log_level="ERROR")
    )
    algo = config.build_algo()
    try:
        group = algo.env_runner_group

        def sample(count: int) -> Tuple[int, float]:
            """Steps sampled and CPU seconds used, summed over the runners."""

            def run(runner: Any) -> Tuple[int, float]:
                start = time.process_time()
                episodes = runner.sample(num_timesteps=count, explore=True)
                return sum(len(e) for e in episodes), time.process_time() - start

            done = group.foreach_env_runner(run, local_env_runner=False)
            return sum(n for n, _ in done), sum(cpu for _, cpu in done)

        sample(warmup)
        best = (0.0, 0.0)
        for _ in range(repeats):
            start = time.perf_counter()
            sampled, cpu = sample(steps)
            best = max(best, (sampled / (time.perf_counter() - start), sampled / cpu))
        return best
    finally:
        algo.stop()


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--steps", type=int, default=2000, help="per runner and round")
    parser.add_argument("--warmup", type=int, default=200, help="per runner")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    import ray
    import torch

    torch.set_num_threads(1)
    example = runpy.run_path(str(EXAMPLE), run_name="train_ppo_masked")
    ray.init(include_dashboard=False, logging_level="ERROR")
    print(f"{os.cpu_count()} cores, load average before: {os.getloadavg()[0]:.1f}")
    rows: List[List[Any]] = []
    base = None
    for runners in args.runners:
        for envs in args.envs:
            rate, per_cpu = measure(
                example, runners, envs, args.steps, args.warmup, args.repeats
            )
            base = base or rate
            rows.append(
                [runners, envs, f"{rate:.0f}", f"{rate / base:.1f}x", f"{per_cpu:.0f}"]
            )
            print(f"  {runners} x {envs}: {rate:.0f} steps/s, {per_cpu:.0f}/CPU s", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}\n")
    print("| env runners | envs per runner | env steps/s | vs first row | steps per CPU s |")
    print("|---:|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(str(value) for value in row) + " |")
    ray.shutdown()


if __name__ == "__main__":
    main(sys.argv[1:])
