"""The `mathy-envs` command line, run as `python -m mathy_envs`
in a subprocess against the working tree."""

import io
import re
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

import pytest
from mathy_core import ExpressionParser

from mathy_envs.bench import floor_seconds, observation_micros
from mathy_envs.cli import main
from mathy_envs.envs import ENV_TASKS, PolySimplify
from mathy_envs.swarm import SwarmConfig, swarm_solve

from helpers import REPO, python_environment, run_python

TASKS = list(ENV_TASKS)
"""Every registered task: the CLI's env names are `ENV_TASKS`'s keys."""
CLASSES = {task: env_class.__name__ for task, env_class in ENV_TASKS.items()}


def cli(
    *args: str, hash_seed: str = "0", timeout: float = 120
) -> "subprocess.CompletedProcess[str]":
    """`mathy-envs *args`, run as `python -m mathy_envs` in a child interpreter."""
    return run_python("-m", "mathy_envs", *args, hash_seed=hash_seed, timeout=timeout)


def assert_ok(result: "subprocess.CompletedProcess[str]", code: int = 0) -> None:
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr


def parses(text: str) -> bool:
    try:
        ExpressionParser().parse(text)
    except Exception:
        return False
    return True


# -- help -----------------------------------------------------------------------


def test_no_command_prints_help_and_exits_0() -> None:
    result = cli()
    assert_ok(result)
    assert "usage:" in result.stdout
    for command in ("list", "problems", "solve", "run", "bench"):
        assert command in result.stdout
    assert result.stderr == ""


def test_bench_help() -> None:
    result = cli("bench", "--help")
    assert_ok(result)
    assert "--json" in result.stdout and "--quick" in result.stdout


# -- list -----------------------------------------------------------------------


def test_list_shows_every_task_class_namespace_and_gym_ids() -> None:
    result = cli("list")
    assert_ok(result)
    rows = {}
    for line in result.stdout.splitlines():
        first = line.split()[0] if line.split() else ""
        if first in TASKS:
            rows[first] = line
    assert set(rows) == set(TASKS)
    # a header and one row per registered task, nothing else
    assert len(result.stdout.splitlines()) == 1 + len(ENV_TASKS)
    for task, line in rows.items():
        env = ENV_TASKS[task]()
        cells = line.split()
        assert cells[1] == CLASSES[task], line
        assert env.get_env_namespace() in cells, line
        ids = re.findall(r"mathy-[\w-]+-v0", line)
        assert ids == [f"mathy-{task}-{d}-v0" for d in ("easy", "normal", "hard")]


# -- problems -------------------------------------------------------------------


@pytest.mark.parametrize("task", ["poly", "binomial"])
def test_problems_same_seed_same_lines_across_processes(task: str) -> None:
    first = cli("problems", task, "-n", "12", "--seed", "42", hash_seed="0")
    second = cli("problems", task, "-n", "12", "--seed", "42", hash_seed="4321")
    assert_ok(first)
    assert_ok(second)
    lines = first.stdout.splitlines()
    assert len(lines) == 12
    assert all(parses(line) for line in lines), lines
    assert second.stdout.splitlines() == lines


def test_problems_different_seed_different_lines() -> None:
    one = cli("problems", "poly", "-n", "8", "--seed", "1")
    two = cli("problems", "poly", "-n", "8", "--seed", "2")
    assert_ok(one)
    assert_ok(two)
    assert len(one.stdout.splitlines()) == len(two.stdout.splitlines()) == 8
    assert one.stdout != two.stdout


def test_problems_hard_difficulty() -> None:
    hard = cli("problems", "poly", "-d", "hard", "-n", "20", "--seed", "3")
    easy = cli("problems", "poly", "--difficulty", "easy", "-n", "20", "--seed", "3")
    assert_ok(hard)
    assert_ok(easy)
    hard_lines = hard.stdout.splitlines()
    assert len(hard_lines) == 20 and all(parses(line) for line in hard_lines)

    def nodes(lines: List[str]) -> int:
        return sum(len(ExpressionParser().parse(line).to_list()) for line in lines)

    assert nodes(hard_lines) > nodes(easy.stdout.splitlines())


@pytest.mark.parametrize("task", TASKS)
def test_problems_of_every_task_in_process(task: str) -> None:
    out = io.StringIO()
    assert main(["problems", task, "-n", "3", "--seed", "9", "-d", "normal"], out) == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and all(parses(line) for line in lines), lines
    again = io.StringIO()
    assert main(["problems", task, "-n", "3", "--seed", "9", "-d", "normal"], again) == 0
    assert again.getvalue() == out.getvalue()


def test_problems_zero() -> None:
    out = io.StringIO()
    assert main(["problems", "poly", "-n", "0"], out) == 0
    assert out.getvalue() == ""


# -- solve ----------------------------------------------------------------------


STEP_LINE = re.compile(r"^\s*(\d+)\s+(.+?)\s{2,}(\d+)\s{2,}(.+?)\s{2,}([+-]\d+\.\d+)\s*$")


def test_solve_prints_one_line_per_step() -> None:
    problem = "4x + 2y + 2x"
    result = cli("solve", problem, "--seed", "0")
    assert_ok(result)
    env = PolySimplify()
    expected = swarm_solve(problem, SwarmConfig(seed=0), env)
    assert expected.solved
    lines = result.stdout.splitlines()
    steps = [m for m in map(STEP_LINE.match, lines) if m]
    assert len(steps) == len(expected.actions)
    rule_names = {rule.name for rule in env.rules}
    for number, (match, action, state) in enumerate(
        zip(steps, expected.actions, expected.states), 1
    ):
        assert int(match.group(1)) == number
        assert match.group(2) in rule_names
        assert match.group(2) == env.rules[action[0]].name
        assert int(match.group(3)) == action[1]
        assert match.group(4) == state.agent.problem
        step_reward = env.get_state_transition(state).reward
        assert float(match.group(5)) == pytest.approx(step_reward, abs=0.006)
    assert any(problem in line for line in lines[:3])  # the start
    assert "solved" in lines[-1] and "not solved" not in lines[-1]


def test_solve_with_another_env() -> None:
    result = cli("solve", "(x + 2)(x + 3)", "--env", "binomial", "--seed", "1")
    assert_ok(result)
    assert "not solved" not in result.stdout


def test_solve_unsolvable_exits_1() -> None:
    # 4x and 2x are apart: no single move simplifies the expression.
    result = cli("solve", "4x + 2y + 2x", "--max-moves", "1")
    assert_ok(result, code=1)
    assert "not solved" in result.stdout


# A hard poly problem the default swarm (seed 0) needs about 20 iterations for.
HARD_PROBLEM = "(6x + x + 6x^3 + 6x^3 + 8x^3) + x + 7x^3 + 11x^2 + 12p"
VERDICT = re.compile(
    r"^(solved|not solved) in (\d+) steps, reward [+-]\d+\.\d+, "
    r"(\d+) swarm iterations, (\d+\.\d+)s$"
)


@pytest.mark.slow
def test_solve_gives_up_when_max_seconds_runs_out() -> None:
    unbounded = swarm_solve(HARD_PROBLEM, SwarmConfig(seed=0), PolySimplify())
    assert unbounded.solved and unbounded.iterations > 5
    out = io.StringIO()
    began = time.perf_counter()
    code = main(["solve", HARD_PROBLEM, "--seed", "0", "--max-seconds", "0.05"], out)
    assert time.perf_counter() - began < 5  # generous: catches an ignored budget
    assert code == 1
    lines = out.getvalue().splitlines()
    verdict = VERDICT.match(lines[-1])
    assert verdict, lines[-1]
    assert verdict.group(1) == "not solved"
    assert 1 <= int(verdict.group(3)) < unbounded.iterations
    # The best path so far is printed step by step, as for any unsolved problem.
    steps = [m for m in map(STEP_LINE.match, lines) if m]
    assert len(steps) == int(verdict.group(2))


def test_solve_max_seconds_in_a_subprocess() -> None:
    result = cli("solve", HARD_PROBLEM, "--max-seconds", "0.05")
    assert_ok(result, code=1)
    verdict = VERDICT.match(result.stdout.splitlines()[-1])
    assert verdict and verdict.group(1) == "not solved", result.stdout


def test_solve_max_seconds_defaults_to_a_minute() -> None:
    result = cli("solve", "--help")
    assert_ok(result)
    assert "--max-seconds" in result.stdout
    assert "default 60" in " ".join(result.stdout.split())
    # A budget that does not run out changes nothing.
    out = io.StringIO()
    assert main(["solve", "4x + 2y + 2x", "--max-seconds", "600"], out) == 0
    default = io.StringIO()
    assert main(["solve", "4x + 2y + 2x"], default) == 0
    strip_time = re.compile(r", \d+\.\d+s$", re.M)
    assert strip_time.sub("", out.getvalue()) == strip_time.sub("", default.getvalue())


def test_solve_an_already_simplified_problem() -> None:
    out = io.StringIO()
    assert main(["solve", "6x + 2y"], out) == 0
    assert "solved in 0 steps" in out.getvalue()


# -- run ------------------------------------------------------------------------


def run_summary(stdout: str) -> Dict[str, str]:
    summary = {}
    for line in stdout.splitlines():
        key, _, value = line.rpartition("  ")
        summary[key.strip()] = value.strip()
    return summary


def check_summary(summary: Dict[str, str], episodes: int) -> None:
    assert summary["episodes"] == str(episodes)
    assert 0.0 <= float(summary["win rate"]) <= 1.0
    assert -10.0 <= float(summary["mean reward"]) <= 10.0
    assert int(summary["steps"]) >= 0
    assert float(summary["steps/s"]) > 0


def test_run_random_agent_is_seeded() -> None:
    args = ["run", "poly", "--agent", "random", "--episodes", "5", "--seed", "4"]
    first, second = cli(*args), cli(*args, hash_seed="99")
    assert_ok(first)
    assert_ok(second)
    one, two = run_summary(first.stdout), run_summary(second.stdout)
    check_summary(one, 5)
    assert one["agent"] == "random"
    assert int(one["steps"]) >= 5  # every episode takes at least one step
    for key in ("win rate", "mean reward", "steps"):
        assert one[key] == two[key]


def test_run_swarm_agent_wins_easy_episodes() -> None:
    result = cli("run", "complex", "--agent", "swarm", "--episodes", "3", "--seed", "2")
    assert_ok(result)
    summary = run_summary(result.stdout)
    check_summary(summary, 3)
    assert summary["agent"] == "swarm"
    assert summary["difficulty"] == "easy"
    assert float(summary["win rate"]) == 1.0
    assert float(summary["mean reward"]) > 0


def test_run_normal_difficulty_in_process() -> None:
    out = io.StringIO()
    args = ["run", "binomial", "-d", "normal", "--episodes", "4", "--seed", "1"]
    assert main(args, out) == 0
    summary = run_summary(out.getvalue())
    check_summary(summary, 4)
    assert summary["difficulty"] == "normal"


# -- bench ----------------------------------------------------------------------


def test_bench_pieces_return_positive_numbers() -> None:
    micros = observation_micros(5)
    assert set(micros) == {"flat", "graph", "hierarchical", "message_passing"}
    assert all(value > 0 for value in micros.values())
    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 2x", max_moves=5)
    mask = env.get_valid_moves(state)
    steps = [
        (state.agent.problem, (rule, node))
        for rule, row in enumerate(mask)
        for node, ok in enumerate(row)
        if ok
    ]
    assert steps
    assert floor_seconds(env, steps) > 0


def test_bench_times_every_hostile_reply_in_every_way() -> None:
    from mathy_envs.bench import WORST_REPLIES, worst_reply_millis

    millis, what = worst_reply_millis()
    assert millis > 0
    name, kind = what.rsplit(", ", 1)
    assert name in WORST_REPLIES and kind in {"rewrite", "choose", "derivation"}


# -- bad input ------------------------------------------------------------------


BAD_INPUT = [
    (["problems", "nope"], "nope"),
    (["run", "nope", "--episodes", "1"], "nope"),
    (["solve", "4x + 2x", "--env", "nope"], "nope"),
    (["problems", "poly", "-d", "impossible"], "impossible"),
    (["run", "poly", "--difficulty", "impossible"], "impossible"),
    (["solve", "4x + (2y"], "4x + (2y"),
    (["solve", ""], None),
    (["solve", "x = 2"], "x = 2"),
    (["solve", "1" + "0" * 310 + " + x"], "MAX_CONSTANT"),
    (["solve", "0." + "0" * 329 + "1 + x"], "MIN_CONSTANT"),
    (["solve", "4x + 2x", "--max-moves", "0"], "max-moves"),
    (["problems"], "env"),
    (["solve"], "problem"),
    (["run"], "env"),
    (["problems", "poly", "-n", "many"], "many"),
    (["problems", "poly", "-n", "-1"], None),
    (["run", "poly", "--agent", "oracle"], "oracle"),
    (["run", "poly", "--episodes", "0"], None),
    (["teleport"], "teleport"),
    (["solve", "4x + 2x", "--max-seconds", "0"], "--max-seconds must be a positive"),
    (["solve", "4x + 2x", "--max-seconds", "-1"], "--max-seconds must be a positive"),
    (["solve", "4x + 2x", "--max-seconds", "nan"], "--max-seconds must be a positive"),
    (["solve", "4x + 2x", "--max-seconds", "inf"], "--max-seconds must be a positive"),
    (["solve", "4x + 2x", "--max-seconds", "soon"], "soon"),
]


def check_bad_input(code: int, stdout: str, stderr: str, needle: Optional[str]) -> None:
    assert code == 2, (stdout, stderr)
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("mathy-envs: error: ")
    if needle is not None:
        assert needle in lines[0]
    assert stdout == ""


# The subprocess runs cover each kind of bad input; every case runs in-process.
BAD_INPUT_SUBPROCESS = [BAD_INPUT[i] for i in (0, 1, 2, 3, 5, 7, 8, 11, 12, 18)]


@pytest.mark.parametrize(
    "args, needle",
    BAD_INPUT_SUBPROCESS,
    ids=[" ".join(args) for args, _ in BAD_INPUT_SUBPROCESS],
)
def test_bad_input_in_a_subprocess(args: List[str], needle: Optional[str]) -> None:
    result = cli(*args)
    check_bad_input(result.returncode, result.stdout, result.stderr, needle)


@pytest.mark.parametrize(
    "args, needle", BAD_INPUT, ids=[" ".join(args) for args, _ in BAD_INPUT]
)
def test_bad_input_in_process(
    args: List[str], needle: Optional[str], capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.StringIO()
    code = main(args, out)
    captured = capsys.readouterr()
    check_bad_input(code, out.getvalue() + captured.out, captured.err, needle)


def test_a_closed_pipe_ends_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "mathy_envs", "problems", "poly", "-n", "200000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=python_environment(),
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    assert parses(first.decode().strip())
    process.stdout.close()
    stderr = process.stderr.read().decode()
    code = process.wait(timeout=120)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert code != 0


def _fast_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replace the measured pieces of the benchmark with instant fakes, so the
    tests below check its plumbing, not the machine."""
    import mathy_envs.bench as bench_module

    monkeypatch.setattr(bench_module, "play", lambda env_class, obs_type, steps: (0.5, [("x", (0, 0))]))
    monkeypatch.setattr(bench_module, "floor_seconds", lambda env, taken: 0.25)
    monkeypatch.setattr(bench_module, "observation_micros", lambda repeats: {"flat": 1.0})
    monkeypatch.setattr(bench_module, "memory_mb", lambda count: 2.0)
    monkeypatch.setattr(bench_module, "vector_scaling", lambda seconds, repeats, seed: None)
    text = {"step": 10.0, "prompt": 30.0, "verdict_accepted": 5.0, "verdict_refused": 20.0}
    monkeypatch.setattr(bench_module, "text_micros", lambda steps: text)
    monkeypatch.setattr(bench_module, "worst_reply_millis", lambda: (12.5, "spaces after 'answer', rewrite"))
    coverage = [bench_module.Coverage("PolySimplify", "easy", 1.0, 0.5, None)]
    monkeypatch.setattr(bench_module, "native_coverage", lambda calls: coverage)


def test_bench_reports_each_part_as_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    from mathy_envs.bench import WORKLOADS, bench

    _fast_bench(monkeypatch)
    parts: List[str] = []
    result = bench(quick=True, progress=parts.append)
    total = len(WORKLOADS) + 5
    assert len(parts) == total
    assert [part.split("]")[0] for part in parts] == [f"[{i}/{total}" for i in range(1, total + 1)]
    assert [w.env for w in result.workloads] == [c.__name__ for c in WORKLOADS]
    assert all(env_class.__name__ in part for env_class, part in zip(WORKLOADS, parts))


@pytest.mark.parametrize("terminal", [True, False])
def test_cli_bench_shows_progress_only_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], terminal: bool
) -> None:
    _fast_bench(monkeypatch)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal)
    out = io.StringIO()
    assert main(["bench", "--quick"], out) == 0
    progress = [line for line in capsys.readouterr().err.splitlines() if line.startswith("mathy-envs bench: [")]
    from mathy_envs.bench import WORKLOADS

    assert len(progress) == (len(WORKLOADS) + 5 if terminal else 0)
    assert "steps/s" in out.getvalue()
    assert re.search(r"prompt with its numbered moves +30\.0 us \(3\.0 steps\)", out.getvalue())
    assert re.search(r"^PolySimplify +100\.0% / 50\.0%$", out.getvalue(), re.M)
    assert (
        "slowest verdict on a hostile 100,000-character reply: 12.5 ms "
        "(spaces after 'answer', rewrite)" in out.getvalue()
    )


# -- play ----------------------------------------------------------------------------


def _play(argv: List[str], typed: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    out = io.StringIO()
    assert main(["play", *argv], out) == 0
    return out.getvalue()


def test_play_takes_rewrites_and_move_numbers_to_a_win(monkeypatch: pytest.MonkeyPatch) -> None:
    typed = "2y + 4x + 3x\nbanana\n3\n2y + 7x\n"
    shown = _play(["--problem", "4x + 2y + 3x"], typed, monkeypatch)
    verdicts = re.findall(r"^(\w+): .* \(reward (-?[\d.]+)\)$", shown, re.M)
    assert [kind for kind, _ in verdicts] == ["accepted", "malformed", "accepted", "accepted"]
    assert "Commutative Swap at node 3 (4x + 2y) -> 2y + 4x + 3x" in shown
    assert "+ [3]" in shown and "└── x [10]" in shown  # the tree, with node indices
    assert shown.rstrip().splitlines()[-1].startswith("won: 2y + 7x after 4 moves")


def test_play_stops_at_q_or_the_end_of_input(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "stopped after 1 moves" in _play(["--problem", "4x + 2y + 3x"], "1\nq\n", monkeypatch)
    assert "stopped after 0 moves" in _play(["complex", "--seed", "3"], "", monkeypatch)


def test_play_a_bad_problem_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    out = io.StringIO()
    assert main(["play", "--problem", "4x + (("], out) == 2
