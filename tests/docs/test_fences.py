"""The docs' fence renderer (docs/hooks/fences.py) and the pages that use it."""

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import List, Set, Tuple

import pytest
from mathy_core import ExpressionParser

from mathy_envs import MathyEnvState

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "hooks"))

import fences  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
EXPRESSIONS = [
    "4",
    "x",
    "-x",
    "-3 * (4 + 7)",
    "4x + 2y + 2x",
    "(x + 2)(x + 3)",
    "4x^2 - 2y / z + 100.5",
    "3a * a^2 * 5b * 7c^3 * 2d * 9e * f",
]
BAD = ["4x +", "(x + 2", "4 ** * 2", "", "   "]


def svg_of(html: str) -> ET.Element:
    start, end = html.index("<svg"), html.index("</svg>") + len("</svg>")
    return ET.fromstring(html[start:end])


def has_class(element: ET.Element, name: str) -> bool:
    return name in element.get("class", "").split()


# -- mathy: trees -------------------------------------------------------------------


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_tree_svg_has_a_node_per_tree_node_and_an_edge_per_link(expression: str) -> None:
    tree = ExpressionParser().parse(expression)
    svg = svg_of(fences.render_tree_svg(expression))
    nodes = [g for g in svg.iter(f"{SVG}g") if has_class(g, "mathy-node")]
    edges = [line for line in svg.iter(f"{SVG}line") if has_class(line, "mathy-edge")]
    assert len(nodes) == len(tree.to_list())
    assert len(edges) == len(tree.to_list()) - 1


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_tree_svg_edges_join_each_parent_to_its_children(expression: str) -> None:
    tree = ExpressionParser().parse(expression)
    svg = svg_of(fences.render_tree_svg(expression))
    centers: List[Tuple[float, float]] = []
    labels: List[str] = []
    for group in svg.iter(f"{SVG}g"):
        if has_class(group, "mathy-node"):
            circle = group.find(f"{SVG}circle")
            text = group.find(f"{SVG}text")
            assert circle is not None and text is not None
            centers.append((float(circle.get("cx", "")), float(circle.get("cy", ""))))
            labels.append(text.text or "")
    assert len(set(centers)) == len(centers), "two nodes drawn at the same place"

    # Nodes are drawn in pre-order: map each tree node to its drawn center.
    nodes = tree.to_list()
    where = {id(node): center for node, center in zip(nodes, centers)}
    expected: Set[Tuple[Tuple[float, float], Tuple[float, float]]] = {
        (where[id(node)], where[id(child)])
        for node in nodes
        for child in (node.left, node.right)
        if child is not None
    }
    drawn = {
        (
            (float(line.get("x1", "")), float(line.get("y1", ""))),
            (float(line.get("x2", "")), float(line.get("y2", ""))),
        )
        for line in svg.iter(f"{SVG}line")
    }
    assert drawn == expected
    # Children are drawn below their parent.
    assert all(child[1] > parent[1] for parent, child in drawn)
    assert labels == [str(getattr(n, "name", n)) for n in nodes]


def test_tree_svg_fits_its_view_box() -> None:
    svg = svg_of(fences.render_tree_svg("4x^2 - 2y / z + 100.5"))
    _, _, width, height = (float(v) for v in svg.get("viewBox", "").split())
    for circle in svg.iter(f"{SVG}circle"):
        x, y, r = (float(circle.get(k, "")) for k in ("cx", "cy", "r"))
        assert r <= x <= width - r and r <= y <= height - r


# -- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["mathy", "tokens", "features"])
@pytest.mark.parametrize("expression", BAD)
def test_bad_expression_gives_a_visible_error_block(kind: str, expression: str) -> None:
    html, error = fences.render_fence(kind, expression)
    assert error is not None
    assert "mathy-fence-error" in html and "admonition failure" in html
    assert f"{kind}:{expression}" in html
    assert "<svg" not in html


def test_error_block_escapes_the_expression() -> None:
    html, error = fences.render_fence("mathy", "<script>alert(1)</script>")
    assert error is not None
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_a_page_with_a_bad_fence_still_renders() -> None:
    page = "# Title\n\n`mathy:4x +`\n\nText after.\n\n`mathy:4x + 2`\n"
    result, errors = fences.transform(page, "page.md")
    assert len(errors) == 1 and "page.md:3" in errors[0] and "4x +" in errors[0]
    assert "mathy-fence-error" in result
    assert result.count('class="mathy-node') == 5  # the good fence still renders
    assert "Text after." in result


# -- tokens: and features: -----------------------------------------------------------


def test_tokens_table_lists_every_token_but_the_end_marker() -> None:
    html = fences.render_tokens_table("-3 * (4 + 7)")
    rows = re.findall(r"<tr>(.*?)</tr>", html)
    assert len(rows) == 2
    cells = [re.findall(r"<td>(.*?)</td>", row) for row in rows]
    assert cells[0] == ["-", "3", "*", "(", "4", "+", "7", ")"]
    assert cells[1] == [
        "Minus", "Constant", "Multiply", "OpenParen", "Constant", "Plus", "Constant",
        "CloseParen",
    ]


@pytest.mark.parametrize("expression", ["-3 * (4 + 7)", "4x + 2y^2"])
def test_features_table_matches_the_observation(expression: str) -> None:
    html = fences.render_features_table(expression)
    rows = [
        re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", html)
    ]
    observation = MathyEnvState(problem=expression).to_mathy_observation()
    nodes = ExpressionParser().parse(expression).to_list()
    assert rows[0] == [str(node.name) for node in nodes]
    assert rows[1] == [repr(float(v)) for v in observation.values]
    assert rows[2] == [str(t) for t in observation.nodes]


# -- page processing ---------------------------------------------------------------


def test_fences_inside_code_blocks_are_left_alone() -> None:
    page = "```text\n`mathy:4x`\n```\n\n`mathy:4x`\n\nSome `mathy:4x` inline.\n"
    result, errors = fences.transform(page)
    assert not errors
    assert result.startswith("```text\n`mathy:4x`\n```")
    assert result.count("<svg") == 1  # only the paragraph that is just a fence
    assert "Some `mathy:4x` inline." in result


def test_pasted_python_is_reported_but_includes_are_not() -> None:
    page = (
        "```python\n{!./snippets/envs/text_to_tree.py!}\n```\n\n"
        "```bash\npip install mathy_envs\n```\n\n"
        "```python\nprint('pasted')\n```\n"
    )
    assert fences.pasted_code(page) == [9]


def test_output_fence_runs_the_snippet(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("print('1 < 2')\n")
    (tmp_path / "fails.py").write_text("raise SystemExit('boom')\n")
    html = fences.render_output("ok.py", fences.run_snippet("ok.py", root=tmp_path))
    assert "1 &lt; 2" in html
    html, error = fences.render_fence(
        "output", "fails.py", {"fails.py": fences.run_snippet("fails.py", root=tmp_path)}
    )
    assert error is not None and "boom" in error and "mathy-fence-error" in html


def test_output_fence_of_a_snippet_missing_its_package_shows_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Not run at all (the file does not even exist): the page says what is missing.
    monkeypatch.setitem(fences.REQUIRES, "needs.py", "no_such_package_for_docs")
    html, error = fences.render_fence("output", "needs.py")
    assert error is None
    assert "no_such_package_for_docs" in html and "mathy-fence-error" not in html
    monkeypatch.setitem(fences.REQUIRES, "needs.py", "json")  # installed: it runs
    _, error = fences.render_fence("output", "needs.py")
    assert error is not None and "no such snippet" in error


# -- the pages themselves ----------------------------------------------------------

PAGES = sorted(DOCS.rglob("*.md"))
INCLUDE = re.compile(r"\{!\s*(.+?)\s*!\}")


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_includes_exist_and_no_code_is_pasted(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for include in INCLUDE.findall(text):
        assert (ROOT / include).is_file(), f"{page.name} includes missing {include}"
    for _, match in fences.iter_fences(text):
        if match.group("kind") == "output":
            assert (ROOT / match.group("body").strip()).is_file()
    assert fences.pasted_code(text) == [], "python belongs in snippets/"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_picture_fences_render(page: Path) -> None:
    for _, match in fences.iter_fences(page.read_text(encoding="utf-8")):
        if match.group("kind") != "output":
            _, error = fences.render_fence(match.group("kind"), match.group("body"))
            assert error is None, error
