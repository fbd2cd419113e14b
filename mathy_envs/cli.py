"""The `mathy-envs` command line: list environments, show problems, solve them
step by step with the swarm planner, play episodes, write expert trajectories
and benchmark throughput."""

import argparse
import math
import importlib.metadata
import os
import sys
import time
from typing import IO, Any, List, NoReturn, Optional, Sequence

import numpy as np

from .env import MathyEnv
from .envs import ENV_TASKS
from .episodes import random_episode
from .expert import FILE_NAME, check_folder, expert_steps, write_parquet
from .limits import quote, shorten
from .swarm import SwarmConfig, swarm_solve
from .types import MathyEnvDifficulty, MathyEnvProblemArgs

DIFFICULTIES = [d.value for d in MathyEnvDifficulty]


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _env_class(task: str) -> Any:
    try:
        return ENV_TASKS[task]
    except KeyError:
        raise UsageError(
            f"unknown env {quote(task)} (choose from {', '.join(ENV_TASKS)})"
        ) from None


def _seed(value: Optional[int], flag: str = "--seed") -> Optional[int]:
    if value is not None and value < 0:
        raise UsageError(f"{flag} must be a non-negative integer, got {value}")
    return value


def _difficulty(value: str) -> MathyEnvDifficulty:
    try:
        return MathyEnvDifficulty(value)
    except ValueError:
        raise UsageError(
            f"unknown difficulty {quote(value)} (choose from {', '.join(DIFFICULTIES)})"
        ) from None


def _table(rows: Sequence[Sequence[str]], out: IO[str]) -> None:
    """Print rows as left-aligned columns (the last column is not padded)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths)]
        print("  ".join(cells + [row[-1]]).rstrip(), file=out)


class Progress:
    """A one-line progress bar on stderr, shown only when stderr is a terminal."""

    def __init__(self, total: int, label: str, stream: IO[str] = sys.stderr) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream
        self.enabled = stream.isatty()
        self.start = time.perf_counter()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / self.total)
        elapsed = time.perf_counter() - self.start
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(
            f"\r{self.label} [{bar}] {done}/{self.total} {elapsed:6.1f}s"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()


# -- commands ---------------------------------------------------------------------


def cmd_list(args: argparse.Namespace, out: IO[str]) -> int:
    rows = [["env", "class", "namespace", "gym ids"]]
    for task, env_class in ENV_TASKS.items():
        ids = ", ".join(f"mathy-{task}-{d}-v0" for d in DIFFICULTIES)
        rows.append([task, env_class.__name__, env_class().get_env_namespace(), ids])
    _table(rows, out)
    return 0


def cmd_problems(args: argparse.Namespace, out: IO[str]) -> int:
    env: MathyEnv = _env_class(args.env)(seed=_seed(args.seed))
    config = MathyEnvProblemArgs(_difficulty(args.difficulty))
    if args.n < 0:
        raise UsageError(f"-n must not be negative, got {args.n}")
    for _ in range(args.n):
        print(env.generate_problem(config).text, file=out)
    return 0


def cmd_solve(args: argparse.Namespace, out: IO[str]) -> int:
    env: MathyEnv = _env_class(args.env)()
    if args.max_moves is not None and args.max_moves < 1:
        raise UsageError(f"--max-moves must be at least 1, got {args.max_moves}")
    if not (math.isfinite(args.max_seconds) and args.max_seconds > 0):
        raise UsageError(
            f"--max-seconds must be a positive number of seconds, got {args.max_seconds}"
        )
    config = SwarmConfig(
        seed=_seed(args.seed), max_moves=args.max_moves, max_seconds=args.max_seconds
    )
    started = time.perf_counter()
    solution = swarm_solve(args.problem, config, env)
    elapsed = time.perf_counter() - started
    rows = [["step", "rule", "node", "expression", "reward"]]
    rows.append(["0", "start", "-", args.problem, ""])
    for index, (action, state) in enumerate(zip(solution.actions, solution.states), 1):
        reward = env.get_state_transition(state).reward
        rows.append(
            [
                str(index),
                env.rules[action[0]].name,
                str(action[1]),
                state.agent.problem,
                f"{reward:+.2f}",
            ]
        )
    _pad_expression_column(rows)
    _table(rows, out)
    verdict = "solved" if solution.solved else "not solved"
    print(
        f"{verdict} in {len(solution.actions)} steps, reward {solution.reward:+.2f}, "
        f"{solution.iterations} swarm iterations, {elapsed:.2f}s",
        file=out,
    )
    return 0 if solution.solved else 1


def _pad_expression_column(rows: List[List[str]]) -> None:
    width = max(len(row[3]) for row in rows)
    for row in rows:
        row[3] = row[3].ljust(width)


def cmd_run(args: argparse.Namespace, out: IO[str]) -> int:
    if args.agent not in ("random", "swarm"):
        raise UsageError(f"unknown agent {quote(args.agent)} (choose from random, swarm)")
    if args.episodes < 1:
        raise UsageError(f"--episodes must be at least 1, got {args.episodes}")
    env: MathyEnv = _env_class(args.env)(seed=_seed(args.seed))
    config = MathyEnvProblemArgs(_difficulty(args.difficulty))
    rng = np.random.default_rng(args.seed)
    wins, total_reward, steps = 0, 0.0, 0
    progress = Progress(args.episodes, f"{args.env} {args.agent}")
    started = time.perf_counter()
    for episode in range(args.episodes):
        state, _ = env.get_initial_state(config, print_problem=False)
        if args.agent == "swarm":
            seed = int(rng.integers(2**31))
            solution = swarm_solve(state, SwarmConfig(seed=seed), env)
            won, reward, taken = solution.solved, solution.reward, len(solution.actions)
        else:
            played = random_episode(env, state, rng)
            won, reward, taken = played.won, played.reward, played.steps
        wins += won
        total_reward += reward
        steps += taken
        progress.update(episode + 1)
    elapsed = time.perf_counter() - started
    progress.close()
    rows = [
        ["env", args.env],
        ["difficulty", args.difficulty],
        ["agent", args.agent],
        ["episodes", str(args.episodes)],
        ["win rate", f"{wins / args.episodes:.3f}"],
        ["mean reward", f"{total_reward / args.episodes:+.3f}"],
        ["steps", str(steps)],
        ["steps/s", f"{steps / elapsed:.0f}" if elapsed > 0 else "inf"],
    ]
    _table(rows, out)
    return 0


def cmd_dataset(args: argparse.Namespace, out: IO[str]) -> int:
    env: MathyEnv = _env_class(args.env)()
    difficulty = _difficulty(args.difficulty)
    if args.n < 1:
        raise UsageError(f"-n must be at least 1, got {args.n}")
    seed = _seed(args.seed)
    assert seed is not None
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise UsageError('mathy-envs dataset needs pyarrow: pip install "mathy_envs[data]"')
    check_folder(args.out)  # before the solving, not after
    progress = Progress(args.n, f"{args.env} {difficulty.value}")
    started = time.perf_counter()
    data = expert_steps(
        env, args.n, seed, MathyEnvProblemArgs(difficulty), progress=progress.update
    )
    progress.close()
    metadata = {
        "env": args.env,
        "env_class": type(env).__name__,
        "difficulty": difficulty.value,
        "seed": seed,
        "max_seq_len": env.max_seq_len,
        "rules": [rule.name for rule in env.rules],
    }
    path = write_parquet(data, args.out, metadata)
    print(
        f"{len(data.steps)} steps of {data.solved} solved problems "
        f"({data.problems} drawn) in {time.perf_counter() - started:.1f}s -> {path}",
        file=out,
    )
    return 0


def cmd_play(args: argparse.Namespace, out: IO[str]) -> int:
    from .text import CHOOSE, REWRITE, TextEpisode
    from .text.drawing import tree_lines
    from .text.replies import answer_line, names_a_move

    env: MathyEnv = _env_class(args.env)()
    difficulty = _difficulty(args.difficulty)
    seed = _seed(args.seed)
    episode = TextEpisode(env, params=MathyEnvProblemArgs(difficulty))
    episode.reset(seed=seed, problem=args.problem)
    total = 0.0
    print("Type the expression one move gives, or a move's number; 'q' quits.", file=out)
    while True:
        state = episode.state
        assert state is not None
        print("", file=out)
        print("\n".join(tree_lines(env, state.agent.problem)), file=out)
        print(episode.prompt(), file=out)
        print("> ", end="", file=out, flush=True)
        line = sys.stdin.readline()
        if not sys.stdin.isatty():
            print(line.rstrip("\n"), file=out)  # a transcript shows the replies
        if not line or line.strip().lower() in ("q", "quit", "exit"):
            print("", file=out)
            print(f"stopped after {len(state.agent.history) - 1} moves, total reward {total:.2f}", file=out)
            return 0
        mode = CHOOSE if names_a_move(answer_line(line)) else REWRITE
        step = episode.step(line, mode)
        total += step.reward
        verdict = step.verdict
        print(f"{verdict.kind}: {verdict.reason} (reward {step.reward:.2f})", file=out)
        if step.done:
            final = episode.state
            assert final is not None
            print("", file=out)
            print("\n".join(tree_lines(env, final.agent.problem)), file=out)
            ending = "won" if step.won else "lost"
            print(
                f"{ending}: {final.agent.problem} after {len(final.agent.history) - 1} moves, "
                f"total reward {total:.2f}",
                file=out,
            )
            return 0


def cmd_bench(args: argparse.Namespace, out: IO[str]) -> int:
    from .bench import run_bench

    progress = None
    if sys.stderr.isatty():
        # On a terminal, say what is running: the full benchmark takes minutes.
        def progress(part: str) -> None:
            print(f"mathy-envs bench: {part}", file=sys.stderr, flush=True)

    return run_bench(as_json=args.json, out=out, quick=args.quick, progress=progress)


# -- entry point --------------------------------------------------------------------


def version_line() -> str:
    """`mathy-envs 1.0.0 (mathy_core 0.9.5, Python 3.11.7, native core)`: the
    versions, and the core in use (`mathy_envs._engine.native`)."""
    from ._engine import CORE, REFUSAL, native_built
    from .version import __version__

    try:
        core = importlib.metadata.version("mathy_core")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        core = "unknown"
    python = ".".join(str(part) for part in sys.version_info[:3])
    if CORE == "native":
        used = "native core"
    elif REFUSAL is not None:
        used = "pure-Python core: the native core's table of core rules is not the library's"
    elif native_built():
        used = "pure-Python core, chosen by MATHY_ENVS_CORE"
    else:
        used = "pure-Python core: the native core is not built"
    return f"mathy-envs {__version__} (mathy_core {core}, Python {python}, {used})"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mathy-envs",
        description="Reinforcement learning environments for step-by-step algebra.",
    )
    parser.add_argument(
        "--version", action="store_true", help="print the versions of mathy_envs, mathy_core and Python, and the core in use"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    listing = commands.add_parser("list", help="every environment, its class, namespace and gym ids")
    listing.set_defaults(run=cmd_list)

    problems = commands.add_parser("problems", help="print generated problems")
    problems.add_argument("env", help=f"one of: {', '.join(ENV_TASKS)}")
    problems.add_argument("--difficulty", "-d", default="easy", help="easy, normal or hard")
    problems.add_argument("-n", type=int, default=10, help="how many (default 10)")
    problems.add_argument("--seed", type=int, default=None, help="seed (same seed, same problems)")
    problems.set_defaults(run=cmd_problems)

    solve = commands.add_parser("solve", help="solve a problem step by step with the swarm planner")
    solve.add_argument("problem", help='the problem text, e.g. "4x + 2y + 2x"')
    solve.add_argument("--env", default="poly", help="the task whose rules and goal to use (default poly)")
    solve.add_argument("--seed", type=int, default=0, help="planner seed (default 0)")
    solve.add_argument("--max-moves", type=int, default=None, help="move budget (default: the env's)")
    solve.add_argument(
        "--max-seconds",
        type=float,
        default=60.0,
        help="give up (not solved, exit 1) after this many seconds (default 60)",
    )
    solve.set_defaults(run=cmd_solve)

    run = commands.add_parser("run", help="play episodes and report win rate, reward and speed")
    run.add_argument("env", help=f"one of: {', '.join(ENV_TASKS)}")
    run.add_argument("--difficulty", "-d", default="easy", help="easy, normal or hard")
    run.add_argument("--agent", default="random", help="random or swarm (default random)")
    run.add_argument("--episodes", type=int, default=100, help="episodes to play (default 100)")
    run.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    run.set_defaults(run=cmd_run)

    dataset = commands.add_parser(
        "dataset", help="write the swarm planner's solutions as expert trajectories (Parquet)"
    )
    dataset.add_argument("env", help=f"one of: {', '.join(ENV_TASKS)}")
    dataset.add_argument("--difficulty", "-d", default="easy", help="easy, normal or hard")
    dataset.add_argument("-n", type=int, default=100, help="problems to solve (default 100)")
    dataset.add_argument("--seed", type=int, default=0, help="seed of the problems (default 0)")
    dataset.add_argument(
        "--out", required=True, help=f"the folder to write {FILE_NAME} into"
    )
    dataset.set_defaults(run=cmd_dataset)

    play = commands.add_parser(
        "play", help="play an episode by typing rewrites or move numbers, as a language model would"
    )
    play.add_argument("env", nargs="?", default="poly", help=f"one of: {', '.join(ENV_TASKS)} (default poly)")
    play.add_argument("--difficulty", "-d", default="easy", help="easy, normal or hard")
    play.add_argument("--seed", type=int, default=None, help="seed of the problem")
    play.add_argument("--problem", default=None, help='a problem text to play instead, e.g. "4x + 2y + 2x"')
    play.set_defaults(run=cmd_play)

    bench = commands.add_parser("bench", help="measure step and observation throughput")
    bench.add_argument("--json", action="store_true", help="print the results as JSON")
    bench.add_argument("--quick", action="store_true", help="a shorter, noisier run")
    bench.set_defaults(run=cmd_bench)
    return parser


def main(argv: Optional[List[str]] = None, out: IO[str] = sys.stdout) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.version:
            print(version_line(), file=out)
            return 0
        if args.command is None:
            parser.print_help(out)
            return 0
        code: int = args.run(args, out)
        return code
    except (UsageError, ValueError) as error:
        # Bad input (and every library ValueError is about input): one line, no
        # traceback.
        # One line, however long or many-lined the message.
        print(f"mathy-envs: error: {shorten(str(error), 400)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mathy-envs: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `mathy-envs problems poly -n 1000 | head`):
        # stop quietly, and keep the interpreter's final flush from failing too.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
