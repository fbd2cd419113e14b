"""`ENV_TASKS` is the one list of the environments: the docs' tables and navigation
are made from it (`docs/hooks/registry.py`), and each registered environment has
the files of its own (its docs page and its tests)."""

import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from helpers import REPO
from mathy_envs.checker import CONTRACT
from mathy_envs.envs import ENV_TASKS
from mathy_envs.gym import GYM_ENV_IDS

sys.path.insert(0, str(REPO / "docs" / "hooks"))

import registry  # noqa: E402

TASKS = list(ENV_TASKS)


def module_file(task: str) -> str:
    return ENV_TASKS[task].__module__.rsplit(".", 1)[-1]


@pytest.mark.parametrize("task", TASKS)
def test_every_registered_env_has_its_own_page_and_tests(task: str) -> None:
    name = module_file(task)
    page = REPO / "docs" / "envs" / f"{name}.md"
    tests = REPO / "tests" / "envs" / f"test_{name}.py"
    assert page.is_file(), f"{task!r}: write its page, docs/envs/{name}.md"
    assert tests.is_file(), f"{task!r}: write its tests, tests/envs/test_{name}.py"
    assert registry.env_page(ENV_TASKS[task]) == f"envs/{name}.md"


def _rows(table: str) -> List[List[str]]:
    lines = table.splitlines()
    assert lines[1].startswith("|---")
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]
    ]


def test_the_envs_table_has_a_row_per_registered_task() -> None:
    rows = _rows(registry.envs_table("envs/overview.md"))
    assert [row[1] for row in rows] == [f"`{task}`" for task in TASKS]
    for row, (task, env_class) in zip(rows, ENV_TASKS.items()):
        assert row[0] == f"[{env_class.__name__}]({module_file(task)}.md)"
        assert row[2] and row[2].endswith(".")
    budgets = {row[1].strip("`"): row[3] for row in rows}
    assert budgets["poly"] == "complexity × 4"
    assert budgets["complex"] == "complexity × 8"
    assert budgets["poly-combine"] == "2"


def test_the_gym_ids_table_has_every_id() -> None:
    rows = _rows(registry.gym_ids_table("gym.md"))
    assert [row[0] for row in rows] == [f"`{task}`" for task in TASKS]
    listed = [env_id.strip("`") for row in rows for env_id in row[2].split(", ")]
    assert sorted(listed) == sorted(GYM_ENV_IDS)
    assert (
        rows[0][1]
        == f"[{ENV_TASKS[TASKS[0]].__name__}](envs/{module_file(TASKS[0])}.md)"
    )


def test_the_contract_table_is_the_checkers() -> None:
    rows = _rows(registry.contract_table("envs/overview.md"))
    assert [row[0].strip("`") for row in rows] == list(CONTRACT)


def test_the_pages_use_the_generated_tables() -> None:
    overview = (REPO / "docs" / "envs" / "overview.md").read_text()
    gym = (REPO / "docs" / "gym.md").read_text()
    assert "`registry:envs`" in overview and "`registry:contract`" in overview
    assert "`registry:gym-ids`" in gym
    for page, uri in ((overview, "envs/overview.md"), (gym, "gym.md")):
        out, errors = registry.transform(page, uri)
        assert errors == [] and "registry:" not in out


def test_an_unknown_table_is_an_error_and_code_blocks_are_left_alone() -> None:
    page = "`registry:nope`\n\n```text\n`registry:envs`\n```\n"
    out, errors = registry.transform(page, "x.md")
    assert len(errors) == 1 and "unknown table 'nope'" in errors[0]
    assert "```text\n`registry:envs`\n```" in out


def _config(entries: List[Any]) -> Dict[str, Any]:
    return {
        "nav": [{"Home": "index.md"}, {"Environments": entries}],
        "docs_dir": str(REPO / "docs"),
    }


def test_the_nav_lists_every_registered_env_after_the_overview() -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    config = registry.on_config(_config([{"Overview": "envs/overview.md"}]))
    section = config["nav"][1]["Environments"]
    assert section[0] == {"Overview": "envs/overview.md"}
    assert section[1:] == [
        {env_class.__name__: f"envs/{module_file(task)}.md"}
        for task, env_class in ENV_TASKS.items()
    ]
    # a page the nav already names is not listed twice
    first = section[1]
    again = registry.on_config(_config([{"Overview": "envs/overview.md"}, first]))
    assert again["nav"][1]["Environments"].count(first) == 1


def test_a_registered_env_without_a_page_stops_the_build(tmp_path: Path) -> None:
    exceptions = pytest.importorskip(
        "mkdocs.exceptions", reason="the docs extra is not installed"
    )
    (tmp_path / "envs").mkdir()
    config = _config([])
    config["docs_dir"] = str(tmp_path)
    with pytest.raises(
        exceptions.PluginError,
        match=r"the registered task 'poly' \(PolySimplify\) has no page",
    ):
        registry.on_config(config)
