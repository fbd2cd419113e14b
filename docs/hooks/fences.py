"""MkDocs hook: turn the docs' one-line fences into pictures and live output.

A paragraph that is nothing but one inline code span of the form `kind:body` is
replaced (outside fenced code blocks) by what `kind` renders:

- `mathy:<expression>`: an SVG drawing of the expression tree, one `mathy-node`
  group per tree node and one `mathy-edge` line per parent -> child link, placed by
  mathy_core's `TreeLayout`.
- `tokens:<expression>`: a table of the tokenizer's tokens (text and token type).
- `features:<expression>`: the node / value / type rows of a `MathyObservation`
  (nodes in pre-order), read from mathy_envs itself so the table can't drift from
  the library.
- `output:<path>`: runs a snippet (`.py` with this Python, `.sh` with bash; paths
  relative to the repository root) and shows what it prints, so printed examples
  can't go stale. A `.sh` snippet's stderr is shown too, as a terminal would. A
  snippet that needs an optional package (`REQUIRES`) is not run where that package
  is missing: the page says so in place of the output, and the build goes on.

A fence that can't be rendered (an expression that does not parse, a snippet that
fails) becomes a visible error block on the page and a logged warning, so
`mkdocs build --strict` fails while `mkdocs serve` keeps running.

The hook also warns about Python code pasted into a page: examples belong in
`snippets/`, where every file runs as a test, and are pulled in with
`{!./snippets/...!}` includes.
"""

from __future__ import annotations

import html
import importlib.util
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
"""The repository root: snippets and `output:` paths are relative to it."""

log = logging.getLogger("mkdocs.hooks.fences")

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)`(?P<kind>mathy|tokens|features|output):(?P<body>[^`]*)`[ \t]*$"
)
CODE_FENCE = re.compile(r"^[ \t]*(?P<marks>```+|~~~+)(?P<info>.*)$")
INCLUDE = re.compile(r"^\s*\{!\s*(.+?)\s*!\}\s*$")

# Tree drawing geometry, in pixels.
UNIT_X = 44.0
UNIT_Y = 56.0
RADIUS = 17.0
PADDING = 22.0

SNIPPET_TIMEOUT = 120

REQUIRES: Dict[str, str] = {
    "snippets/pyg/gnn_policy.py": "torch_geometric",
    "snippets/cleanrl/masked_ppo.py": "torch",
    "snippets/torchrl/masked_rollout.py": "torchrl",
    "snippets/pufferlib/vector_backends.py": "pufferlib",
    "snippets/expert/behavioural_cloning.py": "torch",
    "snippets/cli/dataset.sh": "pyarrow",
}
"""`output:` snippets that need an optional package -> the module to look for
(tests/test_snippets.py skips the same snippets where it is missing)."""

class FenceError(Exception):
    """A fence whose body can't be rendered."""


# -- rendering ------------------------------------------------------------------


def _node_label(node: Any) -> str:
    name = getattr(node, "name", None)
    return str(name) if name else str(node)


def _node_kind(node: Any) -> str:
    from mathy_core import ConstantExpression, VariableExpression

    if isinstance(node, ConstantExpression):
        return "constant"
    if isinstance(node, VariableExpression):
        return "variable"
    return "operator"


def _parse(expression: str) -> Any:
    from mathy_core import ExpressionParser

    text = expression.strip()
    if not text:
        raise FenceError("the expression is empty")
    try:
        return ExpressionParser().parse(text)
    except Exception as error:  # mathy_core raises several exception types
        raise FenceError(f"{type(error).__name__}: {error}") from error


def render_tree_svg(expression: str) -> str:
    """An SVG drawing of the expression tree of `expression`.

    Raises `FenceError` when the expression does not parse.
    """
    from mathy_core.layout import TreeLayout

    tree = _parse(expression)
    nodes = tree.to_list()
    measure = TreeLayout().layout(tree, 1.0, 1.0)

    def point(node: Any) -> Tuple[float, float]:
        return (
            (float(node.x) - measure.minX) * UNIT_X + PADDING + RADIUS,
            (float(node.y) - measure.minY) * UNIT_Y + PADDING + RADIUS,
        )

    width = measure.width * UNIT_X + 2 * (PADDING + RADIUS)
    height = measure.height * UNIT_Y + 2 * (PADDING + RADIUS)
    edges: List[str] = []
    circles: List[str] = []
    for node in nodes:
        x, y = point(node)
        for child in (node.left, node.right):
            if child is None:
                continue
            cx, cy = point(child)
            edges.append(
                f'<line class="mathy-edge" x1="{x:.1f}" y1="{y:.1f}" '
                f'x2="{cx:.1f}" y2="{cy:.1f}"/>'
            )
        label = _node_label(node)
        size = 15 if len(label) <= 2 else max(9, 15 - 2 * (len(label) - 2))
        circles.append(
            f'<g class="mathy-node mathy-{_node_kind(node)}">'
            f"<title>{html.escape(type(node).__name__)}: {html.escape(str(node))}</title>"
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS:.0f}"/>'
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
            f'text-anchor="middle" dominant-baseline="central">{html.escape(label)}</text>'
            "</g>"
        )
    title = html.escape(f"Expression tree of {expression.strip()}")
    return (
        f'<figure class="mathy-figure">'
        f'<svg class="mathy-tree" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}"><title>{title}</title>'
        + "".join(edges)
        + "".join(circles)
        + f"</svg><figcaption><code>{html.escape(expression.strip())}</code></figcaption>"
        "</figure>"
    )


def _table(rows: List[Tuple[str, List[str]]], css_class: str) -> str:
    body = "".join(
        "<tr><th>"
        + html.escape(header)
        + "</th>"
        + "".join(f"<td>{html.escape(cell)}</td>" for cell in cells)
        + "</tr>"
        for header, cells in rows
    )
    return (
        f'<div class="mathy-table-wrap"><table class="{css_class}">'
        f"<tbody>{body}</tbody></table></div>"
    )


def render_tokens_table(expression: str) -> str:
    """A table of the tokens of `expression`: their text and token type.

    The tokenizer's end-of-input token is left out.
    """
    from mathy_core import ExpressionParser
    from mathy_core.tokenizer import TOKEN_TYPES

    text = expression.strip()
    if not text:
        raise FenceError("the expression is empty")
    _parse(text)  # tokenizing alone accepts text the parser rejects
    names = {
        value: name
        for name, value in vars(TOKEN_TYPES).items()
        if not name.startswith("_") and isinstance(value, int)
    }
    tokens = [t for t in ExpressionParser().tokenize(text) if t.type != TOKEN_TYPES.EOF]
    return _table(
        [
            ("token", [t.value for t in tokens]),
            ("type", [names.get(t.type, str(t.type)) for t in tokens]),
        ],
        "mathy-tokens",
    )


def render_features_table(expression: str) -> str:
    """The node / value / type rows of the `MathyObservation` of `expression`.

    Columns are the tree's nodes in pre-order, as in the observation lists: the
    node's text, its value (0.0 for non-constants) and its node type id.
    """
    from mathy_envs.state import MathyEnvState

    tree = _parse(expression)
    try:
        observation = MathyEnvState(problem=expression.strip()).to_mathy_observation()
    except Exception as error:
        raise FenceError(f"{type(error).__name__}: {error}") from error
    labels = [_node_label(node) for node in tree.to_list()]
    if len(labels) != len(observation.nodes):  # pragma: no cover - library invariant
        raise FenceError("the observation and the tree disagree on the node count")
    return _table(
        [
            ("node", labels),
            ("value", [repr(float(value)) for value in observation.values]),
            ("type", [str(type_id) for type_id in observation.nodes]),
        ],
        "mathy-features",
    )


class SnippetRun(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def _shim_dir() -> Optional[str]:
    """A directory with a `mathy-envs` launcher, when the command isn't installed."""
    if shutil.which("mathy-envs"):
        return None
    directory = tempfile.mkdtemp(prefix="mathy-envs-docs-")
    launcher = Path(directory) / "mathy-envs"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mathy_envs "$@"\n')
    launcher.chmod(0o755)
    return directory


def run_snippet(path: str, root: Path = ROOT) -> SnippetRun:
    """Run a snippet from `root` the way the snippet tests do (its own folder as
    the working directory) with the checkout importable."""
    file = (root / path).resolve()
    if not file.is_file():
        return SnippetRun(127, "", f"no such snippet: {path}")
    if file.suffix == ".py":
        command = [sys.executable, str(file)]
    elif file.suffix == ".sh":
        command = ["bash", "-euo", "pipefail", str(file)]
    else:
        return SnippetRun(2, "", f"cannot run {path}: only .py and .sh snippets run")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(root), env.get("PYTHONPATH", "")) if p
    )
    env.setdefault("COLUMNS", "88")
    shim = _shim_dir() if file.suffix == ".sh" else None
    if shim:
        env["PATH"] = shim + os.pathsep + env.get("PATH", "")
    shell = file.suffix == ".sh"
    try:
        result = subprocess.run(
            command,
            cwd=file.parent,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if shell else subprocess.PIPE,
            text=True,
            timeout=SNIPPET_TIMEOUT,
        )
        stderr = result.stdout if shell else result.stderr
        return SnippetRun(result.returncode, result.stdout, stderr)
    except subprocess.TimeoutExpired:
        return SnippetRun(124, "", f"{path} ran longer than {SNIPPET_TIMEOUT}s")
    finally:
        if shim:
            shutil.rmtree(shim, ignore_errors=True)


def missing_requirement(path: str) -> Optional[str]:
    """The optional module the snippet at `path` needs and this Python lacks."""
    module = REQUIRES.get(path.strip())
    if module is not None and importlib.util.find_spec(module) is None:
        return module
    return None


def render_output(path: str, run: Optional[SnippetRun] = None) -> str:
    """What the snippet at `path` prints, as a code block (a note instead when it
    needs an optional package that is not installed)."""
    path = path.strip()
    missing = missing_requirement(path)
    if missing is not None:
        log.info("%s: output not shown, %s is not installed", path, missing)
        return (
            '<div class="admonition note mathy-output-missing">'
            '<p class="admonition-title">Output</p>'
            f"<p>This example needs <code>{html.escape(missing)}</code>; its output "
            "is shown where the documentation is built with it installed.</p></div>"
        )
    result = run if run is not None else run_snippet(path)
    if result.returncode != 0:
        detail = result.stderr.strip().splitlines()[-5:]
        raise FenceError(
            f"{path} exited with status {result.returncode}: " + " / ".join(detail)
        )
    text = result.stdout.rstrip("\n") or "(no output)"
    return (
        '<div class="mathy-output"><p class="mathy-output-title">Output</p>'
        f'<pre><code class="language-text">{html.escape(text)}</code></pre></div>'
    )


RENDERERS: Dict[str, Callable[[str], str]] = {
    "mathy": render_tree_svg,
    "tokens": render_tokens_table,
    "features": render_features_table,
    "output": render_output,
}


def error_block(kind: str, body: str, message: str) -> str:
    """A visible error admonition for a fence that could not be rendered."""
    return (
        '<div class="admonition failure mathy-fence-error">'
        f'<p class="admonition-title">Cannot render <code>{html.escape(kind)}:'
        f"{html.escape(body)}</code></p>"
        f"<p>{html.escape(message)}</p></div>"
    )


def render_fence(
    kind: str, body: str, runs: Optional[Dict[str, SnippetRun]] = None
) -> Tuple[str, Optional[str]]:
    """Render one fence. Returns the HTML and an error message (None on success);
    never raises for bad input, so one broken fence can't crash the build."""
    try:
        if kind == "output" and runs is not None and body.strip() in runs:
            return render_output(body, runs[body.strip()]), None
        renderer = RENDERERS.get(kind)
        if renderer is None:
            raise FenceError(f"unknown fence kind {kind!r}")
        return renderer(body), None
    except Exception as error:  # any failure becomes a visible block
        message = str(error) or type(error).__name__
        return error_block(kind, body, message), message


# -- page processing --------------------------------------------------------------


def iter_fences(markdown: str) -> Iterator[Tuple[int, "re.Match[str]"]]:
    """(line number, match) of every fence outside fenced code blocks."""
    fence: Optional[str] = None
    for number, line in enumerate(markdown.split("\n")):
        code = CODE_FENCE.match(line)
        if code:
            marks = code.group("marks")
            if fence is None:
                fence = marks
            elif marks.startswith(fence) and not code.group("info").strip():
                fence = None
            continue
        if fence is None:
            match = FENCE.match(line)
            if match:
                yield number, match


def pasted_code(markdown: str) -> List[int]:
    """Line numbers of python code blocks that hold anything but include lines."""
    bad: List[int] = []
    lines = markdown.split("\n")
    fence: Optional[str] = None
    start = 0
    language = ""
    body: List[str] = []
    for number, line in enumerate(lines):
        code = CODE_FENCE.match(line)
        if code and fence is None:
            fence, start, body = code.group("marks"), number, []
            language = code.group("info").strip().split(" ")[0].lstrip("{.").lower()
            continue
        closing = (
            code is not None
            and fence is not None
            and code.group("marks").startswith(fence)
            and not code.group("info").strip()
        )
        if closing:
            if language in ("python", "py", "pycon") and any(
                text.strip() and not INCLUDE.match(text) for text in body
            ):
                bad.append(start + 1)
            fence = None
            continue
        if fence is not None:
            body.append(line)
    return bad


def transform(
    markdown: str, source: str = "<page>", runs: Optional[Dict[str, SnippetRun]] = None
) -> Tuple[str, List[str]]:
    """Replace every fence of a page; returns the new markdown and the errors."""
    lines = markdown.split("\n")
    errors: List[str] = []
    for number, match in list(iter_fences(markdown)):
        kind, body = match.group("kind"), match.group("body")
        indent = match.group("indent")
        rendered, error = render_fence(kind, body, runs)
        if error is not None:
            errors.append(f"{source}:{number + 1}: `{kind}:{body}`: {error}")
        # Raw HTML must be a block of its own: blank lines around it, no blank
        # lines inside.
        lines[number] = f"\n{indent}{rendered}\n"
    return "\n".join(lines), errors


def collect_outputs(docs_dir: Path) -> List[str]:
    """Every `output:` path used by the pages under `docs_dir`."""
    paths: List[str] = []
    for page in sorted(docs_dir.rglob("*.md")):
        for _, match in iter_fences(page.read_text(encoding="utf-8")):
            if match.group("kind") == "output":
                body = match.group("body").strip()
                if body not in paths:
                    paths.append(body)
    return paths


# -- MkDocs events ----------------------------------------------------------------

_runs: Dict[str, SnippetRun] = {}


def on_pre_build(config: Any, **kwargs: Any) -> None:
    """Run every `output:` snippet of the site in parallel, once per build."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # `features:` reads mathy_envs from the checkout
    _runs.clear()
    paths = [
        path
        for path in collect_outputs(Path(config["docs_dir"]))
        if missing_requirement(path) is None
    ]
    workers = max(1, min(len(paths), os.cpu_count() or 2))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for path, result in zip(paths, pool.map(run_snippet, paths)):
            _runs[path] = result


def on_page_markdown(
    markdown: str, page: Any, config: Any, files: Any, **kwargs: Any
) -> str:
    source = page.file.src_uri
    for line in pasted_code(markdown):
        log.warning(
            "%s:%d: python code pasted into a page; put it in snippets/ (where it "
            "runs as a test) and include it with {!./snippets/...!}",
            source,
            line,
        )
    result, errors = transform(markdown, source, _runs)
    for error in errors:
        log.warning("fence %s", error)
    return result
