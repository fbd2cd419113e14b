"""Measure how well `swarm_solve` with the default `SwarmConfig` solves the
generated problems of every built-in environment.

For each env and difficulty, N problems are generated from one seeded generator
(`--problem-seed`, default 2026, different from the seeds the tests use) and each
is solved with `swarm_solve(state, SwarmConfig(seed=index), env)`, where `index`
is the problem's position (0..N-1). Every claimed solution is replayed with
`env.get_next_state` (outside the timing) to check that it really ends in a win.

Prints a markdown table: solve rate, median / 90th percentile / max wall-clock
seconds per problem, median CPU seconds (less sensitive to a busy machine), mean
swarm iterations and solution lengths, and whether the targets are met (easy: at least
95% solved, normal: at least 90%, median under 2 s; hard is informational). Then
lists a few failing problems per row.

    python tools/swarm_solve_rates.py            # N=100, easy and normal
    python tools/swarm_solve_rates.py -n 20 -d easy normal hard
    python tools/swarm_solve_rates.py --envs poly complex --json rates.json

Timings are wall clock in one process; run it on an otherwise idle machine.
"""

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mathy_envs.env import MathyEnv  # noqa: E402
from mathy_envs.envs import ENV_TASKS  # noqa: E402
from mathy_envs.state import MathyEnvState  # noqa: E402
from mathy_envs.swarm import SwarmConfig, SwarmSolution, swarm_solve  # noqa: E402
from mathy_envs.time_step import is_terminal_transition  # noqa: E402
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs  # noqa: E402

TARGET_RATE: Dict[str, Optional[float]] = {"easy": 0.95, "normal": 0.90, "hard": None}
TARGET_MEDIAN_SECONDS = 2.0


@dataclass
class Failure:
    index: int
    problem: str
    max_moves: int
    iterations: int
    best_path: List[str]
    reason: str


@dataclass
class Row:
    env: str
    difficulty: str
    n: int
    solved: int = 0
    seconds: List[float] = field(default_factory=list)
    cpu_seconds: List[float] = field(default_factory=list)
    iterations: List[int] = field(default_factory=list)
    steps: List[int] = field(default_factory=list)
    failures: List[Failure] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.solved / self.n if self.n else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.seconds) if self.seconds else 0.0

    @property
    def p90(self) -> float:
        if not self.seconds:
            return 0.0
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]

    def meets_target(self) -> Optional[bool]:
        target = TARGET_RATE.get(self.difficulty)
        if target is None:
            return None
        return self.rate >= target and self.median < TARGET_MEDIAN_SECONDS


def replay_is_win(env: MathyEnv, start: MathyEnvState, solution: SwarmSolution) -> str:
    """'' when the solution replays to a win, else what is wrong with it."""
    state = start
    if not solution.actions:
        step = env.get_state_transition(start)
        return "" if is_terminal_transition(step) and step.reward > 0 else "no actions"
    for i, action in enumerate(solution.actions):
        state, step, _ = env.get_next_state(state, action)
        if state != solution.states[i]:
            return f"state {i} differs on replay"
        last = i == len(solution.actions) - 1
        if is_terminal_transition(step) and not last:
            return f"episode ends at step {i}, before the last action"
        if last and not (is_terminal_transition(step) and step.reward > 0):
            return "the last step is not a win"
    return ""


def measure(task: str, difficulty: str, n: int, problem_seed: int, keep: int) -> Row:
    env = ENV_TASKS[task]()
    env.seed(problem_seed)
    args = MathyEnvProblemArgs(MathyEnvDifficulty(difficulty))
    row = Row(env=task, difficulty=difficulty, n=n)
    for index in range(n):
        start, problem = env.get_initial_state(args, print_problem=False)
        started, cpu_started = time.perf_counter(), time.process_time()
        solution = swarm_solve(start, SwarmConfig(seed=index), env)
        row.seconds.append(time.perf_counter() - started)
        row.cpu_seconds.append(time.process_time() - cpu_started)
        row.iterations.append(solution.iterations)
        reason = replay_is_win(env, start, solution) if solution.solved else "not solved"
        if not reason:
            row.solved += 1
            row.steps.append(len(solution.actions))
        elif len(row.failures) < keep:
            row.failures.append(
                Failure(
                    index=index,
                    problem=problem.text,
                    max_moves=start.max_moves,
                    iterations=solution.iterations,
                    best_path=[s.agent.problem for s in solution.states],
                    reason=reason,
                )
            )
    return row


def markdown(rows: Sequence[Row]) -> str:
    lines = [
        "| env | difficulty | solved | rate | median s | p90 s | max s "
        "| median cpu s | mean iters | mean steps | target |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        verdict = row.meets_target()
        mark = "info" if verdict is None else ("yes" if verdict else "**NO**")
        mean_iters = statistics.fmean(row.iterations) if row.iterations else 0.0
        mean_steps = statistics.fmean(row.steps) if row.steps else 0.0
        cpu = statistics.median(row.cpu_seconds) if row.cpu_seconds else 0.0
        lines.append(
            f"| {row.env} | {row.difficulty} | {row.solved}/{row.n} "
            f"| {row.rate:.0%} | {row.median:.2f} | {row.p90:.2f} "
            f"| {max(row.seconds, default=0.0):.2f} | {cpu:.2f} | {mean_iters:.1f} "
            f"| {mean_steps:.1f} | {mark} |"
        )
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100, help="problems per row (default 100)")
    parser.add_argument(
        "-d",
        "--difficulties",
        nargs="+",
        default=["easy", "normal"],
        choices=[d.value for d in MathyEnvDifficulty],
    )
    parser.add_argument("--envs", nargs="+", default=list(ENV_TASKS), choices=list(ENV_TASKS))
    parser.add_argument("--problem-seed", type=int, default=2026)
    parser.add_argument("--failures", type=int, default=3, help="failing problems shown per row")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw results here")
    args = parser.parse_args(argv)

    rows: List[Row] = []
    total_started = time.perf_counter()
    for task in args.envs:
        for difficulty in args.difficulties:
            started = time.perf_counter()
            row = measure(task, difficulty, args.n, args.problem_seed, args.failures)
            rows.append(row)
            print(
                f"{task:26} {difficulty:7} {row.solved:4}/{row.n} solved, "
                f"median {row.median:.2f}s, {time.perf_counter() - started:.0f}s total",
                file=sys.stderr,
                flush=True,
            )
    print(markdown(rows))
    print()
    print(
        f"N={args.n} problems per row, problem seed {args.problem_seed}, planner seed = "
        f"problem index, default SwarmConfig; {time.perf_counter() - total_started:.0f}s"
    )
    missed = [row for row in rows if row.meets_target() is False]
    for row in rows:
        if not row.failures:
            continue
        print(f"\nfailures, {row.env} {row.difficulty}:")
        for failure in row.failures:
            print(
                f"  #{failure.index} {failure.problem!r} (max_moves {failure.max_moves}, "
                f"{failure.iterations} iterations): {failure.reason}; best path ends at "
                f"{failure.best_path[-1] if failure.best_path else failure.problem!r}"
            )
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(row) for row in rows], indent=1))
    if missed:
        names = ", ".join(f"{row.env} {row.difficulty}" for row in missed)
        print(f"\ntargets missed: {names}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
