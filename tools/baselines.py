"""Baselines: the win rates of three agents on fixed, held-out problems of every
built-in environment and difficulty.

Agents:

- `random`: masked random play (`mathy_envs.episodes.random_episode`), uniform
  over the actions the Gymnasium env offers in each state (no move back to a
  more visited expression, `mask_revisits=True`), and, reported beside it,
  uniform over every valid action (the published masks).
- `swarm`: the swarm planner (`mathy_envs.swarm.swarm_solve`) with the default
  `SwarmConfig` (64 walkers, at most 200 iterations) and a budget of
  `--swarm-steps` environment transitions per problem (default 2,048).
- `maskable_ppo`: sb3-contrib's MaskablePPO, trained on each *easy* environment
  and on PolySimplify, ComplexSimplify and BinomialDistribute *normal* through
  their Gymnasium ids (`mathy-{task}-{difficulty}-v0`, flat observations with the
  revisit feature) for `--ppo-steps` environment steps (default 50,000), then
  played with the action masks both greedily (`deterministic=True`) and sampling
  (`deterministic=False`, torch seeded per problem). Needs torch and sb3-contrib.
- `bc`: behavioural cloning on the same cells: the swarm planner solves
  `--bc-problems` training problems (`mathy_envs.expert.expert_steps`, seeded with
  `--seed`), a 256-unit MLP learns their moves by cross-entropy of the masked
  logits for `--bc-epochs` epochs, and plays the evaluation problems through
  the same Gymnasium env, greedily and sampling from its masked softmax (torch
  seeded per problem). Needs torch.

Problems and seeds: problem `i` of a cell (env, difficulty) is
`env.get_initial_state(args, seed=1_000_000 + i)`, for i = 0..N-1 (`-n`, default
100): every agent plays the same N problems. MaskablePPO trains on the problems
of its training env, whose generator is seeded with `--seed` (default 0) at the
first reset, a separate seed from the evaluation range, and behavioural
cloning's expert problems are drawn from the env seeded with `--seed`; how many
of the evaluation problems also came up in training is counted and reported for
both. The
random agent's generator for problem `i` is seeded with `(seed, i)`, the swarm's
`SwarmConfig.seed` is `i`, and MaskablePPO's model seed is `--seed`. The results
depend only on these seeds, never on `--jobs`.

    python tools/baselines.py --jobs 2     # everything; writes tools/data/
    python tools/baselines.py --quick      # tiny budgets, prints the table only
    python tools/baselines.py --quick --envs poly --difficulties easy \\
        --agents random swarm --json out.json
    python tools/baselines.py --render     # rewrite the table from the JSON

The full run writes `tools/data/baselines.json` (every count, budget and
seed, plus timings) and `tools/data/baselines.md` (the table the docs include),
and prints the table.
"""

import argparse
import importlib.util
import json
import multiprocessing
import platform
import re
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mathy_envs.env import MathyEnv  # noqa: E402
from mathy_envs.state import MathyEnvState  # noqa: E402
from mathy_envs.envs import ENV_TASKS  # noqa: E402
from mathy_envs.episodes import random_episode  # noqa: E402
from mathy_envs.swarm import SwarmConfig, swarm_solve  # noqa: E402
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs  # noqa: E402

AGENTS = ("random", "swarm", "maskable_ppo", "bc")
"""The agents, in table order."""

AGENT_TITLES = {
    "random": "random",
    "swarm": "swarm",
    "maskable_ppo": "MaskablePPO",
    "bc": "behavioural cloning",
}

LEARNED = ("maskable_ppo", "bc")
"""The agents that train: on every easy cell and the `LEARNED_NORMAL` ones."""
LEARNED_NORMAL = ("poly", "complex", "binomial")
"""The tasks whose normal difficulty the learned agents also train on."""

EVAL_SEED_BASE = 1_000_000
"""Problem `i` of every cell is generated from seed `EVAL_SEED_BASE + i`."""

DATA = ROOT / "tools" / "data"
DEFAULT_JSON = DATA / "baselines.json"
DEFAULT_MARKDOWN = DATA / "baselines.md"

PPO_HYPERPARAMETERS: Dict[str, Any] = {
    "policy": "MlpPolicy",
    "n_steps": 256,
    "batch_size": 64,
    "n_epochs": 4,
}
"""MaskablePPO's settings (those of the docs' MaskablePPO example); everything
else is sb3-contrib's default."""


BC_HIDDEN = 256
"""Hidden units of the behavioural cloning MLP."""
BC_BATCH = 64
BC_LEARNING_RATE = 1e-3


@dataclass(frozen=True)
class Budgets:
    """The sizes of a run."""

    problems: int
    swarm_steps: int
    ppo_steps: int
    bc_problems: int = 500
    bc_epochs: int = 30


FULL = Budgets(problems=100, swarm_steps=2_048, ppo_steps=50_000, bc_problems=500, bc_epochs=30)
QUICK = Budgets(problems=8, swarm_steps=512, ppo_steps=1_024, bc_problems=16, bc_epochs=3)

SWARM_CHUNK = 25
"""Swarm problems per unit of work (so `--jobs` can share a cell)."""


# -- the held-out problems -----------------------------------------------------------


def eval_problems(task: str, difficulty: str, n: int) -> List[Tuple[str, int]]:
    """The first `n` evaluation problems of a cell, as (text, max_moves)."""
    env = ENV_TASKS[task]()
    args = MathyEnvProblemArgs(MathyEnvDifficulty(difficulty))
    problems = []
    for index in range(n):
        state, problem = env.get_initial_state(
            args, print_problem=False, seed=EVAL_SEED_BASE + index
        )
        problems.append((problem.text, state.max_moves))
    return problems


# -- units of work -------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """One piece of work: an agent on problems `start..stop-1` of a cell."""

    agent: str
    task: str
    difficulty: str
    start: int
    stop: int
    seed: int
    budgets: Budgets


def wins(
    unit: Unit, solves: Callable[[MathyEnv, MathyEnvState, int], bool]
) -> Dict[str, Any]:
    """The problems of `unit` that `solves(env, start_state, index)` wins."""
    env = ENV_TASKS[unit.task]()
    problems = eval_problems(unit.task, unit.difficulty, unit.stop)
    won = [
        index
        for index in range(unit.start, unit.stop)
        if solves(env, env.state_from_text(*problems[index]), index)
    ]
    return {"wins": len(won), "won": won}


def random_wins(unit: Unit) -> Dict[str, Any]:
    """Masked uniform random play, one episode per problem, over the offered
    moves (`wins`) and over every valid move (`valid_wins`)."""

    def play(mask_revisits: bool) -> Callable[[MathyEnv, MathyEnvState, int], bool]:
        def solves(env: MathyEnv, state: MathyEnvState, index: int) -> bool:
            rng = np.random.default_rng([unit.seed, index])
            return random_episode(env, state, rng, mask_revisits=mask_revisits).won

        return solves

    result = wins(unit, play(True))
    valid = wins(unit, play(False))
    result["valid_wins"], result["valid_won"] = valid["wins"], valid["won"]
    return result


def swarm_wins(unit: Unit) -> Dict[str, Any]:
    """The swarm planner with the default config and a transition budget."""

    def solves(env: MathyEnv, state: MathyEnvState, index: int) -> bool:
        config = SwarmConfig(seed=index, max_steps=unit.budgets.swarm_steps)
        return swarm_solve(state, config, env).solved

    return wins(unit, solves)


def maskable_ppo_wins(unit: Unit) -> Dict[str, Any]:
    """Train MaskablePPO on the cell's env, then play its problems greedily and
    sampling."""
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO

    import mathy_envs.gym  # noqa: F401  (registers the mathy-* ids)

    torch.set_num_threads(1)  # a small MLP: extra threads only contend for the CPU
    train_env = _RecordProblems(
        gymnasium.make(f"mathy-{unit.task}-{unit.difficulty}-v0")
    )
    train_env.reset(seed=unit.seed)  # seeds the training problems' generator
    model = MaskablePPO(
        env=train_env,
        seed=unit.seed,
        device="cpu",
        verbose=0,
        **PPO_HYPERPARAMETERS,
    )
    started, cpu_started = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=unit.budgets.ppo_steps)
    train_seconds = time.perf_counter() - started
    train_cpu_seconds = time.process_time() - cpu_started

    def choose(env: Any, obs: Any, info: Any, greedy: bool) -> int:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=greedy)
        return int(action)

    return {
        **learned_play(unit, train_env.problems, choose),
        "train_steps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "train_cpu_seconds": round(train_cpu_seconds, 1),
        "train_problems": len(train_env.problems),
    }


class _RecordProblems:
    """A thin Gymnasium wrapper that remembers every problem text it was reset to
    (built lazily, so the module imports without gymnasium)."""

    def __new__(cls, env: Any) -> Any:
        import gymnasium

        class RecordProblems(gymnasium.Wrapper):  # type: ignore[type-arg]
            def __init__(self, inner: Any) -> None:
                super().__init__(inner)
                self.problems: set = set()  # type: ignore[type-arg]

            def reset(self, **kwargs: Any) -> Any:
                result = self.env.reset(**kwargs)
                self.problems.add(self.env.unwrapped.state.agent.problem)
                return result

            def action_masks(self) -> Any:
                return self.env.unwrapped.action_masks()

        return RecordProblems(env)


def bc_wins(unit: Unit) -> Dict[str, Any]:
    """Clone the swarm planner's moves on training problems of the cell, then
    play its evaluation problems greedily and sampling from the policy."""
    import torch
    from torch import nn

    from mathy_envs.expert import expert_steps

    torch.set_num_threads(1)
    torch.manual_seed(unit.seed)
    env_class = ENV_TASKS[unit.task]
    env = env_class()
    args = MathyEnvProblemArgs(MathyEnvDifficulty(unit.difficulty))
    started, cpu_started = time.perf_counter(), time.process_time()
    data = expert_steps(env, unit.budgets.bc_problems, seed=unit.seed, params=args)
    inputs, masks, targets = [], [], []
    state: Optional[MathyEnvState] = None
    for row in data.steps:
        if row.step == 0:
            state = env.state_from_text(row.problem, row.max_moves)
        assert state is not None and state.agent.problem == row.expression
        inputs.append(expert_observation(env, state))
        masks.append(row.mask.astype(bool))
        targets.append(row.action)
        state, _, _ = env.get_next_state(state, (row.rule_index, row.node))
    x = torch.tensor(np.array(inputs))
    m = torch.tensor(np.array(masks))
    y = torch.tensor(targets)
    policy = nn.Sequential(
        nn.Linear(x.shape[1], BC_HIDDEN), nn.ReLU(), nn.Linear(BC_HIDDEN, m.shape[1])
    )
    optimizer = torch.optim.Adam(policy.parameters(), lr=BC_LEARNING_RATE)
    generator = torch.Generator().manual_seed(unit.seed)
    for _ in range(unit.budgets.bc_epochs):
        for batch in torch.randperm(len(y), generator=generator).split(BC_BATCH):
            logits = policy(x[batch]).masked_fill(~m[batch], -1e9)
            loss = nn.functional.cross_entropy(logits, y[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    train_seconds = time.perf_counter() - started
    train_cpu_seconds = time.process_time() - cpu_started

    def choose(env: Any, obs: Any, info: Any, greedy: bool) -> int:
        with torch.no_grad():
            logits = policy(torch.tensor(obs)).masked_fill(
                ~torch.tensor(info["action_mask"].astype(bool)), -1e9
            )
        if greedy:
            return int(logits.argmax())
        return int(torch.distributions.Categorical(logits=logits).sample())

    trained_on = {row.problem for row in data.steps}
    return {
        **learned_play(unit, trained_on, choose),
        "train_steps": len(data.steps),
        "expert_problems": data.problems,
        "expert_solved": data.solved,
        "train_problems": len(trained_on),
        "train_seconds": round(train_seconds, 1),
        "train_cpu_seconds": round(train_cpu_seconds, 1),
    }


def learned_play(
    unit: Unit, trained_on: Any, choose: Callable[[Any, Any, Any, bool], int]
) -> Dict[str, Any]:
    """Play every evaluation problem of `unit` through its Gymnasium env twice,
    greedily and sampling: `choose(env, obs, info, greedy)` gives each action,
    with torch seeded per problem. Returns the wins of both, and how many of
    the problems are in `trained_on` (the texts the agent trained on)."""
    import torch

    from mathy_envs.gym import MathyGymEnv

    env_class = ENV_TASKS[unit.task]
    problems = eval_problems(unit.task, unit.difficulty, unit.stop)
    won: List[int] = []
    sampled: List[int] = []
    seen = 0
    for index in range(unit.start, unit.stop):
        text, max_moves = problems[index]
        seen += int(text in trained_on)
        env = MathyGymEnv(env_class, env_problem=text, env_max_moves=max_moves)
        for greedy, wins_of in ((True, won), (False, sampled)):
            torch.manual_seed(unit.seed * 1_000_003 + index)
            obs, info = env.reset()
            while True:
                obs, _, terminated, truncated, info = env.step(choose(env, obs, info, greedy))
                if terminated or truncated:
                    if info["win"]:
                        wins_of.append(index)
                    break
    return {
        "wins": len(won),
        "won": won,
        "sampled_wins": len(sampled),
        "sampled_won": sampled,
        "eval_problems_seen_in_training": seen,
    }


def expert_observation(env: MathyEnv, state: MathyEnvState) -> Any:
    """The flat observation `MathyGymEnv` gives for `state` (normalized, with
    the revisit feature and the moves it offers), without a Gymnasium env."""
    return state.to_observation(
        move_mask=env.least_visited_moves_array(state),
        parser=env.parser,
        normalize=True,
        max_seq_len=env.max_seq_len,
        obs_type="flat",
        revisits=True,
    )


RUNNERS: Dict[str, Callable[[Unit], Dict[str, Any]]] = {
    "random": random_wins,
    "swarm": swarm_wins,
    "maskable_ppo": maskable_ppo_wins,
    "bc": bc_wins,
}


def run_unit(unit: Unit) -> Tuple[Unit, Dict[str, Any], float]:
    """Run one unit: (the unit, its result, wall-clock seconds). The result also
    holds the CPU seconds the unit took (`cpu_seconds`)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    result = RUNNERS[unit.agent](unit)
    result["cpu_seconds"] = time.process_time() - cpu_started
    return unit, result, time.perf_counter() - started


def plan(
    tasks: Sequence[str],
    difficulties: Sequence[str],
    agents: Sequence[str],
    seed: int,
    budgets: Budgets,
) -> List[Unit]:
    """The units of a run, longest first (MaskablePPO and behavioural cloning,
    then the swarm from hard to easy, then random play) so that parallel workers
    finish close together."""
    n = budgets.problems
    units: List[Unit] = []
    for agent in LEARNED:
        if agent in agents:
            units += [
                Unit(agent, task, difficulty, 0, n, seed, budgets)
                for difficulty, task in learned_cells(tasks, difficulties)
            ]
    if "swarm" in agents:
        for difficulty in sorted(difficulties, key=_hardest_first):
            for task in tasks:
                for start in range(0, n, SWARM_CHUNK):
                    stop = min(n, start + SWARM_CHUNK)
                    units.append(Unit("swarm", task, difficulty, start, stop, seed, budgets))
    if "random" in agents:
        for difficulty in difficulties:
            units += [Unit("random", task, difficulty, 0, n, seed, budgets) for task in tasks]
    return units


def learned_cells(tasks: Sequence[str], difficulties: Sequence[str]) -> List[Tuple[str, str]]:
    """The `(difficulty, task)` cells the learned agents train on: every easy
    one, then the normal ones of `LEARNED_NORMAL`."""
    cells = [("easy", task) for task in tasks] if "easy" in difficulties else []
    if "normal" in difficulties:
        cells += [("normal", task) for task in tasks if task in LEARNED_NORMAL]
    return cells


def _hardest_first(difficulty: str) -> int:
    return -[d.value for d in MathyEnvDifficulty].index(difficulty)


def _unit_key(unit: Unit) -> str:
    return json.dumps(asdict(unit), sort_keys=True)


def load_partial(path: Optional[Path]) -> Dict[str, Tuple[Dict[str, Any], float]]:
    """The finished units recorded in a partial-results file (unit key -> result,
    seconds); empty when there is none."""
    if path is None or not path.exists():
        return {}
    finished = {}
    for line in path.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            finished[json.dumps(record["unit"], sort_keys=True)] = (
                record["result"],
                record["seconds"],
            )
    return finished


def run(
    units: Sequence[Unit], jobs: int, partial: Optional[Path] = None, resume: bool = False
) -> List[Tuple[Unit, Dict[str, Any], float]]:
    """Run every unit, in `jobs` processes when more than one, printing progress.

    Each finished unit is appended to `partial` (one JSON line) as it ends; with
    `resume`, the units already recorded there are not run again."""
    done: List[Tuple[Unit, Dict[str, Any], float]] = []
    finished = load_partial(partial) if resume else {}
    if partial is not None and not resume:
        partial.write_text("")
    todo = []
    for unit in units:
        if _unit_key(unit) in finished:
            result, seconds = finished[_unit_key(unit)]
            done.append((unit, result, seconds))
        else:
            todo.append(unit)
    if done:
        print(f"resuming: {len(done)} of {len(units)} units already done", file=sys.stderr)

    def report(item: Tuple[Unit, Dict[str, Any], float]) -> None:
        done.append(item)
        unit, result, seconds = item
        if partial is not None:
            record = {"unit": asdict(unit), "result": result, "seconds": seconds}
            with partial.open("a") as out:
                out.write(json.dumps(record) + "\n")
        print(
            f"[{len(done)}/{len(units)}] {unit.agent:12} {unit.task:24} "
            f"{unit.difficulty:6} problems {unit.start}-{unit.stop - 1}: "
            f"{result['wins']} wins, {seconds:.0f}s",
            file=sys.stderr,
            flush=True,
        )

    if jobs == 1:
        for unit in todo:
            report(run_unit(unit))
        return done
    context = multiprocessing.get_context("spawn")  # torch and fork do not mix
    with context.Pool(jobs, maxtasksperchild=1) as pool:
        for item in pool.imap_unordered(run_unit, todo, chunksize=1):
            report(item)
    return done


# -- results -------------------------------------------------------------------------


def collect(
    done: Sequence[Tuple[Unit, Dict[str, Any], float]],
    tasks: Sequence[str],
    difficulties: Sequence[str],
    agents: Sequence[str],
    budgets: Budgets,
) -> List[Dict[str, Any]]:
    """One row per (env, difficulty) in `ENV_TASKS` x difficulty order: for each
    agent its wins and rate over the cell's problems (None where it did not run)."""
    rows = []
    for task in tasks:
        for difficulty in difficulties:
            row: Dict[str, Any] = {
                "env": task,
                "difficulty": difficulty,
                "problems": budgets.problems,
            }
            for agent in AGENTS:
                parts = [
                    (unit, result, seconds)
                    for unit, result, seconds in done
                    if (unit.agent, unit.task, unit.difficulty) == (agent, task, difficulty)
                ]
                if agent not in agents or not parts:
                    row[agent] = None
                    continue
                wins = sum(result["wins"] for _, result, _ in parts)
                entry: Dict[str, Any] = {
                    "wins": wins,
                    "rate": wins / budgets.problems,
                    "seconds": round(sum(seconds for _, _, seconds in parts), 1),
                    "cpu_seconds": round(sum(r["cpu_seconds"] for _, r, _ in parts), 1),
                }
                for _, result, _ in parts:
                    entry.update(
                        {k: v for k, v in result.items() if k not in ENTRY_TOTALS}
                    )
                entry["won"] = sorted(i for _, result, _ in parts for i in result["won"])
                for key in ("sampled_wins", "valid_wins"):
                    if key in entry:
                        entry[key] = sum(result[key] for _, result, _ in parts)
                        entry[key.replace("wins", "rate")] = entry[key] / budgets.problems
                for key in ("sampled_won", "valid_won"):
                    if key in entry:
                        entry[key] = sorted(i for _, result, _ in parts for i in result[key])
                row[agent] = entry
            rows.append(row)
    return rows


ENTRY_TOTALS = ("wins", "won", "cpu_seconds")
"""Result keys summed over a cell's units; the others are copied."""


def _cell(entry: Optional[Dict[str, Any]], key: str = "wins") -> str:
    """`rate (wins)` of an agent's entry (`key` "sampled_wins": its sampled
    play), "-" where it did not run."""
    if entry is None or key not in entry:
        return "-"
    rate = entry[key.replace("wins", "rate")]
    return f"{rate:.1%} ({entry[key]})"


def markdown(report: Dict[str, Any]) -> str:
    """The results as Markdown: the win-rate table, then the learned agents'
    training details."""
    settings = report["settings"]
    lines = [
        "| env | difficulty | random | random, every valid move | swarm "
        "| MaskablePPO greedy | MaskablePPO sampling | BC greedy | BC sampling |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["rows"]:
        ppo, bc = row["maskable_ppo"], row.get("bc")
        lines.append(
            f"| {row['env']} | {row['difficulty']} | {_cell(row['random'])} "
            f"| {_cell(row['random'], 'valid_wins')} | {_cell(row['swarm'])} "
            f"| {_cell(ppo)} | {_cell(ppo, 'sampled_wins')} "
            f"| {_cell(bc)} | {_cell(bc, 'sampled_wins')} |"
        )
    bc_problems = settings.get("bc_problems")
    lines += [
        "",
        f"Win rate (wins) on {settings['problems']} problems per row, seeds "
        f"{settings['eval_seeds'][0]:,}-{settings['eval_seeds'][1]:,}; swarm budget "
        f"{settings['swarm_steps']:,} transitions per problem; MaskablePPO trained "
        f"for {settings['ppo_steps']:,} steps"
        + (
            f", behavioural cloning (BC) on the swarm's solutions of {bc_problems:,} "
            f"training problems ({settings['bc_epochs']} epochs)"
            if bc_problems is not None
            else ""
        )
        + ", on each easy env and on poly, complex and binomial normal (\"-\": not run).",
    ]
    learned = [
        row for row in report["rows"] if row["maskable_ppo"] is not None or row.get("bc")
    ]
    if learned:
        lines += [
            "",
            "| cell | PPO training steps | PPO distinct training problems | eval problems "
            "seen by PPO | PPO training s (CPU s) | BC expert moves (problems solved) "
            "| eval problems seen by BC | BC data + training s (CPU s) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in learned:
            ppo, bc = row["maskable_ppo"], row.get("bc")
            cells = ["-"] * 4 if ppo is None else [
                f"{ppo['train_steps']:,}",
                f"{ppo['train_problems']:,}",
                f"{ppo['eval_problems_seen_in_training']}/{row['problems']}",
                f"{ppo['train_seconds']:.0f} ({ppo['train_cpu_seconds']:.0f})",
            ]
            cells += ["-"] * 3 if bc is None else [
                f"{bc['train_steps']:,} ({bc['expert_solved']:,}/{bc['expert_problems']:,})",
                f"{bc['eval_problems_seen_in_training']}/{row['problems']}",
                f"{bc['train_seconds']:.0f} ({bc['train_cpu_seconds']:.0f})",
            ]
            lines.append(f"| {row['env']} {row['difficulty']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def dump_json(report: Dict[str, Any]) -> str:
    """The results as indented JSON, each list of problem indices on one line."""
    text = json.dumps(report, indent=1)
    return re.sub(
        r"\[\s*(\d+(?:,\s*\d+)*)\s*\]",
        lambda m: "[" + ", ".join(re.split(r",\s*", m.group(1))) + "]",
        text,
    ) + "\n"


def _versions() -> Dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in ("mathy_envs", "mathy_core", "numpy", "gymnasium", "torch", "sb3-contrib", "pyarrow"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


# -- command line --------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join((__doc__ or "").split("\n\n")[1:]),
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"tiny budgets for testing ({QUICK.problems} problems, swarm "
        f"{QUICK.swarm_steps} transitions, MaskablePPO {QUICK.ppo_steps} steps); "
        "writes files only where --json / --markdown say",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--envs", nargs="+", default=list(ENV_TASKS), choices=list(ENV_TASKS))
    parser.add_argument(
        "--difficulties",
        nargs="+",
        default=[d.value for d in MathyEnvDifficulty],
        choices=[d.value for d in MathyEnvDifficulty],
    )
    parser.add_argument("--agents", nargs="+", default=list(AGENTS), choices=AGENTS)
    parser.add_argument("-n", "--problems", type=int, default=None, help="problems per cell")
    parser.add_argument("--swarm-steps", type=int, default=None, help="swarm transitions per problem")
    parser.add_argument("--ppo-steps", type=int, default=None, help="MaskablePPO training steps")
    parser.add_argument(
        "--bc-problems", type=int, default=None, help="behavioural cloning's training problems"
    )
    parser.add_argument("--bc-epochs", type=int, default=None, help="behavioural cloning's epochs")
    parser.add_argument("--seed", type=int, default=0, help="training and agent seed (default 0)")
    parser.add_argument("--json", type=Path, default=None, help="where to write the results")
    parser.add_argument("--markdown", type=Path, default=None, help="where to write the table")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="reuse the units an interrupted run recorded next to --json "
        "(its .partial.jsonl file) instead of running them again",
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="only rewrite the Markdown table from the JSON results",
    )
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    json_path = args.json if args.json or args.quick else DEFAULT_JSON
    markdown_path = args.markdown if args.markdown or args.quick else DEFAULT_MARKDOWN

    if args.render:
        if json_path is None:
            parser.error("--render needs --json with --quick")
        table = markdown(json.loads(json_path.read_text()))
        if markdown_path is not None:
            markdown_path.write_text(table)
        print(table, end="")
        return 0

    base = QUICK if args.quick else FULL
    budgets = Budgets(
        problems=base.problems if args.problems is None else args.problems,
        swarm_steps=base.swarm_steps if args.swarm_steps is None else args.swarm_steps,
        ppo_steps=base.ppo_steps if args.ppo_steps is None else args.ppo_steps,
        bc_problems=base.bc_problems if args.bc_problems is None else args.bc_problems,
        bc_epochs=base.bc_epochs if args.bc_epochs is None else args.bc_epochs,
    )
    for name, value in (
        ("--jobs", args.jobs),
        ("-n", budgets.problems),
        ("--swarm-steps", budgets.swarm_steps),
        ("--ppo-steps", budgets.ppo_steps),
        ("--bc-problems", budgets.bc_problems),
        ("--bc-epochs", budgets.bc_epochs),
    ):
        if value < 1:
            parser.error(f"{name} must be at least 1, got {value}")
    if args.seed < 0:
        parser.error(f"--seed must not be negative, got {args.seed}")
    if budgets.problems > EVAL_SEED_BASE:
        parser.error(f"-n must be at most {EVAL_SEED_BASE:,}")
    agents = [agent for agent in AGENTS if agent in args.agents]
    for agent, modules in (("maskable_ppo", ("torch", "sb3_contrib")), ("bc", ("torch",))):
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
        if agent in agents and missing:
            parser.error(
                f"the {agent} agent needs {' and '.join(missing)}: "
                f"pip install {' '.join(m.replace('_', '-') for m in missing)}, "
                "or pass --agents random swarm"
            )
    tasks = [task for task in ENV_TASKS if task in args.envs]
    difficulties = [d.value for d in MathyEnvDifficulty if d.value in args.difficulties]

    started = time.perf_counter()
    units = plan(tasks, difficulties, agents, args.seed, budgets)
    partial = None if json_path is None else json_path.with_suffix(".partial.jsonl")
    if args.resume and partial is None:
        parser.error("--resume needs --json with --quick")
    resumed = len(load_partial(partial)) if args.resume else 0
    done = run(units, args.jobs, partial, args.resume)
    seconds = time.perf_counter() - started
    report = {
        "settings": {
            "problems": budgets.problems,
            "eval_seeds": [EVAL_SEED_BASE, EVAL_SEED_BASE + budgets.problems - 1],
            "seed": args.seed,
            "agents": agents,
            "swarm_steps": budgets.swarm_steps,
            "swarm_config": {
                "n_walkers": SwarmConfig.n_walkers,
                "max_iters": SwarmConfig.max_iters,
                "seed": "problem index",
            },
            "ppo_steps": budgets.ppo_steps,
            "ppo_hyperparameters": PPO_HYPERPARAMETERS,
            "learned_cells": [f"{task} {difficulty}" for difficulty, task in learned_cells(tasks, difficulties)],
            "bc_problems": budgets.bc_problems,
            "bc_epochs": budgets.bc_epochs,
            "bc_model": {"hidden": BC_HIDDEN, "batch": BC_BATCH, "learning_rate": BC_LEARNING_RATE},
            "quick": args.quick,
        },
        "rows": collect(done, tasks, difficulties, agents, budgets),
        "run": {
            "jobs": args.jobs,
            "resumed_units": resumed,
            "seconds": round(seconds, 1),
            "cpu_seconds": round(sum(r["cpu_seconds"] for _, r, _ in done), 1),
            "cpus": multiprocessing.cpu_count(),
            "versions": _versions(),
        },
    }
    table = markdown(report)
    if json_path is not None:
        json_path.write_text(dump_json(report))
    if markdown_path is not None:
        markdown_path.write_text(table)
    if partial is not None:
        partial.unlink()
    print(table, end="")
    print(f"\n{len(units)} units in {seconds:.0f}s with --jobs {args.jobs}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
