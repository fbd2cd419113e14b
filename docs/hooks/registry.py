"""MkDocs hook: the docs' lists of environments, generated from `ENV_TASKS`.

`mathy_envs.envs.ENV_TASKS` is the one list of the built-in environments; the
documentation reads it instead of repeating it:

- the "Environments" section of the nav lists, after the pages `mkdocs.yml`
  names there (the overview), the page of every registered environment,
  `envs/<file>.md` for `mathy_envs/envs/<file>.py`, titled with its class name.
  A registered environment without its page stops the build;
- a paragraph that is nothing but the code span `registry:envs` becomes the
  table of environments: class (linked to its page), task name, goal (the first
  paragraph of the class docstring) and move budget (read off `max_moves_fn`);
- `registry:gym-ids` becomes the table of Gymnasium ids: task, environment and
  its three ids;
- `registry:contract` becomes the table of the rules `check_mathy_env` checks
  (`mathy_envs.checker.CONTRACT`);
- `registry:expert-columns` becomes the table of the columns of expert
  trajectories (`mathy_envs.expert.COLUMNS`).

A table that can't be made (an env that can't be built, say) is logged as a
warning, which fails `mkdocs build --strict`.
"""

from __future__ import annotations

import inspect
import logging
import posixpath
import re
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
"""The repository root, put on `sys.path` so the checkout's mathy_envs is read."""

SECTION = "Environments"
"""The nav section that lists the environment pages."""

log = logging.getLogger("mkdocs.hooks.registry")

FENCE = re.compile(r"^[ \t]*`registry:(?P<body>[a-z-]+)`[ \t]*$")
CODE_FENCE = re.compile(r"^[ \t]*(```+|~~~+)")


def _registry() -> Dict[str, Any]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from mathy_envs.envs import ENV_TASKS

    return dict(ENV_TASKS)


def env_page(env_class: type) -> str:
    """The docs page of an environment class, relative to the docs folder."""
    return f"envs/{env_class.__module__.rsplit('.', 1)[-1]}.md"


def _link(target: str, page_uri: str) -> str:
    """`target` (relative to the docs folder) relative to the page at `page_uri`."""
    return posixpath.relpath(target, posixpath.dirname(page_uri) or ".")


def goal(env_class: type) -> str:
    """The first paragraph of the class docstring, on one line."""
    doc = inspect.getdoc(env_class) or ""
    first = doc.split("\n\n", 1)[0]
    return " ".join(first.split()).replace("|", "\\|")


def move_budget(env_class: type) -> str:
    """The move budget of the env's problems, read off its `max_moves_fn`:
    `complexity × k`, or a constant."""
    from mathy_envs.types import MathyEnvProblem, MathyEnvProblemArgs

    env = env_class()
    namespace = env.get_env_namespace()
    budgets = [
        env.max_moves_fn(
            MathyEnvProblem("x", complexity, namespace), MathyEnvProblemArgs()
        )
        for complexity in range(1, 7)
    ]
    if len(set(budgets)) == 1:
        return str(budgets[0])
    factor = budgets[0]
    if all(
        budget == factor * complexity for complexity, budget in enumerate(budgets, 1)
    ):
        return "complexity" if factor == 1 else f"complexity × {factor}"
    return "see its page"


def envs_table(page_uri: str) -> str:
    rows = [
        "| Environment | Task | Goal | Move budget |",
        "|---|---|---|---|",
    ]
    for task, env_class in _registry().items():
        link = _link(env_page(env_class), page_uri)
        rows.append(
            f"| [{env_class.__name__}]({link}) | `{task}` | {goal(env_class)} | "
            f"{move_budget(env_class)} |"
        )
    return "\n".join(rows)


def gym_ids_table(page_uri: str) -> str:
    from mathy_envs.gym import GYM_ENV_IDS, gym_id
    from mathy_envs.types import MathyEnvDifficulty

    rows = ["| Task | Environment | Gymnasium ids |", "|---|---|---|"]
    for task, env_class in _registry().items():
        ids = [gym_id(task, difficulty) for difficulty in MathyEnvDifficulty]
        missing = [env_id for env_id in ids if env_id not in GYM_ENV_IDS]
        if missing:
            raise ValueError(f"not registered with Gymnasium: {', '.join(missing)}")
        link = _link(env_page(env_class), page_uri)
        rows.append(
            f"| `{task}` | [{env_class.__name__}]({link}) | "
            + ", ".join(f"`{env_id}`" for env_id in ids)
            + " |"
        )
    return "\n".join(rows)


def contract_table(page_uri: str) -> str:
    from mathy_envs.checker import CONTRACT

    rows = ["| Rule | What it requires |", "|---|---|"]
    for rule, text in CONTRACT.items():
        rows.append(f"| `{rule}` | {text.replace('|', chr(92) + '|')} |")
    return "\n".join(rows)


def expert_columns_table(page_uri: str) -> str:
    from mathy_envs.expert import COLUMNS

    rows = ["| Column | Type | Meaning |", "|---|---|---|"]
    for name, kind, meaning in COLUMNS:
        rows.append(f"| `{name}` | `{kind}` | {meaning.replace('|', chr(92) + '|')} |")
    return "\n".join(rows)


TABLES: Dict[str, Callable[[str], str]] = {
    "envs": envs_table,
    "gym-ids": gym_ids_table,
    "contract": contract_table,
    "expert-columns": expert_columns_table,
}


def transform(markdown: str, page_uri: str) -> tuple[str, List[str]]:
    """Replace every `registry:` paragraph of a page (outside code blocks);
    returns the new markdown and the errors."""
    lines = markdown.split("\n")
    errors: List[str] = []
    fence: Optional[str] = None
    for number, line in enumerate(lines):
        code = CODE_FENCE.match(line)
        if code:
            marks = code.group(1)
            if fence is None:
                fence = marks
            elif marks.startswith(fence):
                fence = None
            continue
        match = FENCE.match(line) if fence is None else None
        if match is None:
            continue
        body = match.group("body")
        make = TABLES.get(body)
        try:
            if make is None:
                raise ValueError(f"unknown table {body!r} (known: {', '.join(TABLES)})")
            lines[number] = f"\n{make(page_uri)}\n"
        except Exception as error:  # any failure is a warning: --strict stops
            errors.append(f"{page_uri}:{number + 1}: `registry:{body}`: {error}")
    return "\n".join(lines), errors


# -- MkDocs events ----------------------------------------------------------------


def on_config(config: Any, **kwargs: Any) -> Any:
    """Add every registered environment's page to the nav's `SECTION`."""
    from mkdocs.exceptions import PluginError

    nav = config.get("nav")
    section: Optional[List[Any]] = None
    for item in nav or []:
        if isinstance(item, dict) and SECTION in item:
            section = item[SECTION]
    if section is None:
        raise PluginError(f"registry hook: mkdocs.yml has no nav section {SECTION!r}")
    listed = {
        page
        for entry in section
        for page in (entry.values() if isinstance(entry, dict) else [entry])
    }
    docs = Path(config["docs_dir"])
    for task, env_class in _registry().items():
        page = env_page(env_class)
        if not (docs / page).is_file():
            raise PluginError(
                f"registry hook: the registered task {task!r} ({env_class.__name__}) "
                f"has no page: write docs/{page}"
            )
        if page not in listed:
            section.append({env_class.__name__: page})
    return config


def on_page_markdown(
    markdown: str, page: Any, config: Any, files: Any, **kwargs: Any
) -> str:
    result, errors = transform(markdown, page.file.src_uri)
    for error in errors:
        log.warning("registry table %s", error)
    return result
