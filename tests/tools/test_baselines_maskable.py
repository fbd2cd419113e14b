"""`tools/baselines.py` with MaskablePPO: trained on an easy env, evaluated
greedily and sampling on the held-out problems. Needs torch and sb3-contrib."""

import json
from pathlib import Path
from typing import Any, Dict

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from . import load_tool  # noqa: E402

baselines = load_tool("baselines")


def maskable_quick_run(tmp_path: Path, name: str) -> Dict[str, Any]:
    """A `--quick` run of MaskablePPO alone on PolyCommuteLikeTerms easy."""
    out = tmp_path / f"{name}.json"
    argv = ["--quick", "--envs", "poly-commute", "--difficulties", "easy"]
    code = baselines.main([*argv, "--agents", "maskable_ppo", "--json", str(out)])
    assert code == 0
    report: Dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.mark.slow
def test_maskable_ppo_quick_run_is_reproducible(tmp_path: Path) -> None:
    """MaskablePPO trains for the quick budget and its greedy win rate on the
    held-out problems is a rate in [0, 1], the same for the same seed, with the
    overlap between training and evaluation problems counted."""
    first = maskable_quick_run(tmp_path, "first")
    [row] = first["rows"]
    assert (row["env"], row["difficulty"]) == ("poly-commute", "easy")
    assert row["random"] is None and row["swarm"] is None
    ppo = row["maskable_ppo"]
    assert 0 <= ppo["wins"] <= row["problems"] == baselines.QUICK.problems
    assert 0.0 <= ppo["rate"] <= 1.0
    assert ppo["rate"] == ppo["wins"] / row["problems"]
    # Played twice: greedily and sampling.
    assert 0 <= ppo["sampled_wins"] <= row["problems"]
    assert ppo["sampled_rate"] == ppo["sampled_wins"] / row["problems"]
    assert set(ppo["sampled_won"]) <= set(range(row["problems"]))
    assert ppo["train_steps"] >= baselines.QUICK.ppo_steps
    assert ppo["train_problems"] >= 1
    assert 0 <= ppo["eval_problems_seen_in_training"] <= row["problems"]
    assert "MaskablePPO" in baselines.markdown(first)

    second = maskable_quick_run(tmp_path, "second")
    [again] = second["rows"]
    for key in (
        "wins",
        "sampled_wins",
        "train_steps",
        "train_problems",
        "eval_problems_seen_in_training",
    ):
        assert again["maskable_ppo"][key] == ppo[key]

