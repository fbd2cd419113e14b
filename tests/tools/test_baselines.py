"""`tools/baselines.py`: the win rates of the random agent and the swarm planner
on seeded held-out problems, its results file and the table the Baselines page
includes. (The MaskablePPO part is in `test_baselines_maskable.py`.)"""

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
from helpers import REPO, run_python

from mathy_envs.envs import ENV_TASKS
from mathy_envs.types import MathyEnvDifficulty

from . import load_tool

baselines = load_tool("baselines")

DIFFICULTIES = [d.value for d in MathyEnvDifficulty]
QUICK_CELLS = ["--envs", "poly-commute", "--difficulties", "easy", "normal"]


def quick_run(tmp_path: Path, name: str, *extra: str) -> Dict[str, Any]:
    """The results of a `--quick` run of random play and the swarm on
    `QUICK_CELLS`, written to `tmp_path/name.json`."""
    out = tmp_path / f"{name}.json"
    code = baselines.main(
        ["--quick", *QUICK_CELLS, "--agents", "random", "swarm", "--json", str(out), *extra]
    )
    assert code == 0
    report: Dict[str, Any] = json.loads(out.read_text())
    return report


def win_counts(report: Dict[str, Any]) -> List[Any]:
    return [
        (row["env"], row["difficulty"], row["random"]["wins"], row["swarm"]["wins"])
        for row in report["rows"]
    ]


def check_rates(report: Dict[str, Any]) -> None:
    """Every agent entry is None or wins out of the row's problems, with its rate
    in [0, 1]."""
    for row in report["rows"]:
        for agent in baselines.AGENTS:
            entry = row[agent]
            if entry is None:
                continue
            assert 0 <= entry["wins"] <= row["problems"]
            assert 0.0 <= entry["rate"] <= 1.0
            assert entry["rate"] == entry["wins"] / row["problems"]


@pytest.mark.slow
def test_quick_run_reports_every_cell_with_rates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A quick run has one row per requested env and difficulty, with the random
    agent's and the swarm's win rates over the same number of problems, the
    settings it used, and prints the table it renders from them."""
    report = quick_run(tmp_path, "run")
    printed = capsys.readouterr().out
    settings = report["settings"]
    assert settings["quick"] is True
    assert settings["problems"] == baselines.QUICK.problems
    assert settings["eval_seeds"] == [
        baselines.EVAL_SEED_BASE,
        baselines.EVAL_SEED_BASE + baselines.QUICK.problems - 1,
    ]
    assert settings["agents"] == ["random", "swarm"]
    assert [(row["env"], row["difficulty"]) for row in report["rows"]] == [
        ("poly-commute", "easy"),
        ("poly-commute", "normal"),
    ]
    for row in report["rows"]:
        assert row["problems"] == baselines.QUICK.problems
        assert row["maskable_ppo"] is None and row["bc"] is None
        assert row["random"] is not None and row["swarm"] is not None
    check_rates(report)
    assert printed == baselines.markdown(report)
    assert "| poly-commute | easy |" in printed


@pytest.mark.slow
def test_same_seed_gives_the_same_win_rates(tmp_path: Path) -> None:
    """Two runs with the same seed give the same wins for both agents, and so
    does a run split over two worker processes."""
    first = quick_run(tmp_path, "first")
    second = quick_run(tmp_path, "second")
    assert win_counts(first) == win_counts(second)
    out = tmp_path / "jobs.json"
    result = run_python(
        str(baselines.__file__),
        "--quick",
        *QUICK_CELLS,
        "--agents",
        "random",
        "swarm",
        "--jobs",
        "2",
        "--json",
        str(out),
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert win_counts(json.loads(out.read_text())) == win_counts(first)


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    """Units an interrupted run recorded in its partial file are not run again by
    `--resume`, and the resumed run reports what an uninterrupted one does; the
    partial file is removed once the results are written."""
    argv = ["--quick", *QUICK_CELLS, "--agents", "random"]
    whole = tmp_path / "whole.json"
    assert baselines.main([*argv, "--json", str(whole)]) == 0
    assert not whole.with_suffix(".partial.jsonl").exists()

    resumed = tmp_path / "resumed.json"
    partial = resumed.with_suffix(".partial.jsonl")
    units = baselines.plan(
        ["poly-commute"], ["easy", "normal"], ["random"], 0, baselines.QUICK
    )
    baselines.run(units[:1], 1, partial)  # stopped after its first unit
    assert len(partial.read_text().splitlines()) == 1
    assert baselines.main([*argv, "--json", str(resumed), "--resume"]) == 0
    report = json.loads(resumed.read_text())
    assert report["run"]["resumed_units"] == 1
    expected = json.loads(whole.read_text())
    assert [(row["random"]["wins"], row["random"]["won"]) for row in report["rows"]] == [
        (row["random"]["wins"], row["random"]["won"]) for row in expected["rows"]
    ]
    assert not partial.exists()


def test_the_eval_problems_are_fixed_and_come_from_their_own_seeds() -> None:
    """Problem i of a cell is the problem its env generates from seed
    EVAL_SEED_BASE + i, every time."""
    env = ENV_TASKS["poly"]()
    problems = baselines.eval_problems("poly", "normal", 3)
    assert problems == baselines.eval_problems("poly", "normal", 3)
    for index, (text, max_moves) in enumerate(problems):
        state, problem = env.get_initial_state(
            baselines.MathyEnvProblemArgs(MathyEnvDifficulty.normal),
            print_problem=False,
            seed=baselines.EVAL_SEED_BASE + index,
        )
        assert (text, max_moves) == (problem.text, state.max_moves)
    assert len(set(problems)) > 1


def test_learned_agents_are_planned_on_every_easy_cell_and_three_normal_ones() -> None:
    """The plan trains MaskablePPO and behavioural cloning once per easy env, and
    on the normal difficulty of poly, complex and binomial only."""
    units = baselines.plan(
        ["poly", "poly-commute", "complex"],
        ["easy", "normal", "hard"],
        ["maskable_ppo", "bc"],
        0,
        baselines.QUICK,
    )
    cells = [
        ("poly", "easy"),
        ("poly-commute", "easy"),
        ("complex", "easy"),
        ("poly", "normal"),
        ("complex", "normal"),
    ]
    assert [(u.agent, u.task, u.difficulty) for u in units] == [
        (agent, task, difficulty) for agent in ("maskable_ppo", "bc") for task, difficulty in cells
    ]
    hard_only = baselines.plan(["poly"], ["hard"], ["maskable_ppo", "bc"], 0, baselines.QUICK)
    assert hard_only == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--jobs", "0"],
        ["-n", "0"],
        ["--swarm-steps", "-5"],
        ["--seed", "-1"],
        ["--bc-problems", "0"],
        ["--bc-epochs", "0"],
    ],
)
def test_bad_budgets_are_refused(
    argv: List[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A non-positive budget or a negative seed stops the script with a usage
    error naming the option."""
    with pytest.raises(SystemExit) as exit_info:
        baselines.main(["--quick", "--agents", "random", *argv])
    assert exit_info.value.code == 2
    assert argv[0] in capsys.readouterr().err


def test_published_results_cover_every_env_and_difficulty() -> None:
    """The committed full-run results hold every built-in env at every difficulty
    for the random agent and the swarm, and MaskablePPO (greedy and sampling)
    and behavioural cloning on every easy env and on poly, complex and binomial
    normal, with the full budgets; their rates are win counts over the problems."""
    report = json.loads(baselines.DEFAULT_JSON.read_text())
    settings = report["settings"]
    assert settings["quick"] is False
    assert settings["problems"] == baselines.FULL.problems
    assert settings["swarm_steps"] == baselines.FULL.swarm_steps
    assert settings["ppo_steps"] == baselines.FULL.ppo_steps
    assert settings["bc_problems"] == baselines.FULL.bc_problems
    assert settings["bc_epochs"] == baselines.FULL.bc_epochs
    cells = [(row["env"], row["difficulty"]) for row in report["rows"]]
    assert cells == [(task, d) for task in ENV_TASKS for d in DIFFICULTIES]
    learned = {
        (task, difficulty) for difficulty, task in baselines.learned_cells(list(ENV_TASKS), DIFFICULTIES)
    }
    assert len(learned) == len(ENV_TASKS) + 3
    for row in report["rows"]:
        assert row["random"] is not None and row["swarm"] is not None
        trained = (row["env"], row["difficulty"]) in learned
        assert (row["maskable_ppo"] is not None) == trained
        assert (row["bc"] is not None) == trained
        if trained:
            ppo, bc = row["maskable_ppo"], row["bc"]
            assert ppo["train_steps"] >= baselines.FULL.ppo_steps
            assert 0 <= ppo["sampled_wins"] <= row["problems"]
            assert ppo["sampled_rate"] == ppo["sampled_wins"] / row["problems"]
            assert bc["expert_problems"] == baselines.FULL.bc_problems
            assert 0 <= bc["sampled_wins"] <= row["problems"]
            assert 0 < bc["expert_solved"] <= bc["expert_problems"]
            assert 0 <= bc["eval_problems_seen_in_training"] <= row["problems"]
    check_rates(report)


def test_docs_table_is_the_rendering_of_the_published_results() -> None:
    """The table the Baselines page includes is the one the script renders from
    the committed results, and the page includes it."""
    report = json.loads(baselines.DEFAULT_JSON.read_text())
    assert baselines.DEFAULT_MARKDOWN.read_text() == baselines.markdown(report)
    page = (REPO / "docs" / "baselines.md").read_text()
    relative = baselines.DEFAULT_MARKDOWN.relative_to(REPO).as_posix()
    assert f"{{!./{relative}!}}" in page
