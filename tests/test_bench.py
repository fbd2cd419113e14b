"""`mathy_envs.bench`: the batched runs say how many of their steps the native
kernel took, and why not all (the rest of the benchmark: tests/test_cli.py)."""

from mathy_envs import MathyEnvState
from mathy_envs._engine import kernel_unavailable
from mathy_envs._engine.native import CORE
from mathy_envs.bench import WorkloadResult, native_lines, play_batched
from mathy_envs.envs import PolySimplify


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
