"""The README is the PyPI page: its example and the output it shows are real, and it
points nowhere outside the repository."""

import re
from typing import List

from helpers import REPO, run_python

README = (REPO / "README.md").read_text()
FIRST_EXAMPLE = REPO / "snippets" / "home" / "first_example.py"


def _blocks(language: str) -> List[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_the_quickstart_commands_come_first() -> None:
    first = _blocks("bash")[0].strip().splitlines()
    assert first == [
        'pip install . && mathy-envs solve "4x + 2y + 2x"',
        'pip install -e ".[dev]" && python -m pytest -n 2 && python -m pytest -n 2 -m slow',
    ]
    assert README.index("## Quickstart") < README.index("```")


def test_the_first_example_is_the_tested_snippet_and_prints_what_is_shown() -> None:
    (code,) = _blocks("python")
    assert code == FIRST_EXAMPLE.read_text()
    shown = _blocks("text")[0]
    result = run_python(str(FIRST_EXAMPLE), hash_seed="random", timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown


def test_the_solve_output_shown_is_what_the_cli_prints() -> None:
    shown = _blocks("text")[1].splitlines()
    result = run_python("-m", "mathy_envs", "solve", "4x + 2y + 2x", timeout=300)
    assert result.returncode == 0, result.stderr
    printed = result.stdout.splitlines()
    assert printed[:-1] == shown[:-1]
    timing = re.compile(r"solved in 3 steps, reward \+1\.67, 3 swarm iterations, \d+\.\d\ds")
    assert timing.fullmatch(printed[-1]) and timing.fullmatch(shown[-1])


def test_the_readme_cites_nothing_outside_the_repository() -> None:
    assert "../" not in README
    assert "SPEC" not in README
