"""`mathy_envs.bench`: the batched runs say how many of their steps the native
kernel took, and why not all (the rest of the benchmark: tests/test_cli.py)."""

from mathy_envs import MathyEnvState
from mathy_envs._engine import kernel_unavailable
from mathy_envs._engine.native import CORE
from mathy_envs.bench import (
    derivation_millis,
    Coverage,
    WorkloadResult,
    coverage_lines,
    native_coverage,
    native_lines,
    play_batched,
)
from mathy_envs.envs import MATHY_BUILTIN_ENVS, PolySimplify
from mathy_envs.types import MathyEnvDifficulty


class _Scored(PolySimplify):
    def get_win_signal(self, env_state: MathyEnvState) -> float:
        return 3.0


def test_a_batched_run_reports_the_native_share_and_reason() -> None:
    run = play_batched(PolySimplify, 640)
    assert run.steps_per_second > 0
    assert run.native_reason == kernel_unavailable()
    if CORE == "native":
        assert 0.5 < run.native_fraction <= 1.0
    else:
        assert run.native_fraction == 0.0
    threaded = play_batched(PolySimplify, 640, num_threads=2)
    assert threaded.steps_per_second > 0 and threaded.native_fraction == run.native_fraction
    users = play_batched(_Scored, 128)
    assert users.native_fraction == 0.0
    assert users.native_reason == "_Scored overrides get_win_signal"


def test_the_native_lines_give_each_share_and_the_reasons() -> None:
    workloads = [
        WorkloadResult("All", 1, batched_native_fraction=1.0),
        WorkloadResult("Most", 1, batched_native_fraction=0.875),
        WorkloadResult("None", 1, batched_native_fraction=0.0, batched_native_reason="a reason"),
    ]
    lines = native_lines(workloads)
    assert lines[0] == "batched steps taken by the native kernel: All 100.0%, Most 87.5%, None 0.0%"
    assert lines[1].startswith("  Most: the other steps' expressions needed the Python path")
    assert lines[2] == "  None: no native steps: a reason"
    assert len(lines) == 3


def test_the_native_coverage_covers_every_built_in_env_and_difficulty() -> None:
    runs = native_coverage(1)
    assert [(run.env, run.difficulty) for run in runs] == [
        (env_class.__name__, difficulty.value)
        for env_class in MATHY_BUILTIN_ENVS
        for difficulty in MathyEnvDifficulty
    ]
    for run in runs:
        assert 0.0 <= run.steps <= 1.0 and 0.0 <= run.starts <= 1.0
        if run.reason is not None:
            assert run.steps == run.starts == 0.0
    simplify = [run for run in runs if run.env == "PolySimplify"]
    if CORE == "native":
        assert all(run.reason is None and run.starts == 1.0 for run in simplify)
        # Every built-in generator's problems are drawn natively.
        assert all(run.problems == 1.0 for run in runs)
    else:
        assert all(run.reason == kernel_unavailable() for run in simplify)
        assert all(run.problems == 0.0 for run in runs)


def test_the_coverage_table_has_a_row_per_env_and_a_column_per_difficulty() -> None:
    runs = [
        Coverage("A", "easy", 1.0, 1.0, None),
        Coverage("A", "hard", 0.5, 0.25, None),
        Coverage("B", "easy", 0.0, 0.0, "a reason"),
        Coverage("B", "hard", 0.0, 0.0, "a reason"),
    ]
    lines = coverage_lines(runs)
    assert lines[0].split() == ["env", "easy", "hard"]
    assert lines[1].split() == ["A", "100.0%", "/", "100.0%", "50.0%", "/", "25.0%"]
    assert lines[2].split() == ["B", "0.0%", "/", "0.0%", "0.0%", "/", "0.0%"]
    assert lines[3:] == ["  no native steps: a reason"]


def test_the_coverage_table_shows_the_problems_drawn_natively_where_known() -> None:
    runs = [
        Coverage("A", "easy", 1.0, 1.0, None, 0.75),
        Coverage("A", "hard", 1.0, 0.5, None, None),
    ]
    lines = coverage_lines(runs)
    assert lines[1].split() == ["A", "100.0%", "/", "100.0%", "/", "75.0%", "100.0%", "/", "50.0%"]


def test_derivations_are_timed_at_each_grain() -> None:
    millis = derivation_millis(1)
    assert set(millis) == {"1", "3", "None"}
    assert all(0.0 < value < 60_000.0 for value in millis.values()), millis
