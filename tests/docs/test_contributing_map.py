"""CONTRIBUTING's map of the package ("Where things live") against the code.

The table names every module of the package once (a subpackage written `envs/`
stands for all its modules), and its rows, read top to bottom, follow the layers
of the import contracts in pyproject.toml: a row never holds a module of a layer
above a module of the row before it. So a new module, a moved one or a changed
layer shows up here until the map says so.
"""

import re
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

import grimp
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parents[2]
PACKAGE = "mathy_envs"
Rank = Tuple[int, int]


def _map_rows() -> List[Tuple[str, List[str]]]:
    """(layer name, module entries) of each row of the map's table."""
    text = (REPO / "CONTRIBUTING.md").read_text()
    section = text.split("## Where things live", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not line.startswith("|") or set(cells[0]) <= {"-"}:
            continue
        if cells[0] == "Layer":
            continue
        rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1])))
    return rows


def _modules() -> Set[str]:
    """Every module of the package but packages' own `__init__` files."""
    names = set(grimp.build_graph(PACKAGE).modules)
    return {
        name
        for name in names
        if not (REPO / name.replace(".", "/") / "__init__.py").exists()
    }


def _entry_modules(entry: str, modules: Set[str]) -> Set[str]:
    """The modules a map entry names: `x.py` one module, `x/` a subpackage's."""
    if entry.endswith("/"):
        prefix = PACKAGE + "." + entry.rstrip("/").replace("/", ".") + "."
        return {name for name in modules if name.startswith(prefix)}
    assert entry.endswith(".py"), f"a map entry is a module or a folder: {entry!r}"
    return {PACKAGE + "." + entry[: -len(".py")].replace("/", ".")}


def _ranks() -> Dict[str, Rank]:
    """Each layer's rank, top first: (its place in the package's layers, its place
    in its own package's layers), for the layers of the `layers` and `engine`
    contracts."""
    contracts = {
        contract["id"]: contract
        for contract in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"][
            "importlinter"
        ]["contracts"]
    }
    ranks: Dict[str, Rank] = {}
    for outer, layer in enumerate(contracts["layers"]["layers"]):
        for name in layer.split("|"):
            ranks[name.strip()] = (outer, 0)
    engine = ranks[PACKAGE + "._engine"]
    for inner, layer in enumerate(contracts["engine"]["layers"]):
        for name in layer.split("|"):
            ranks[name.strip()] = (engine[0], inner)
    return ranks


def _rank(module: str, ranks: Dict[str, Rank]) -> Rank:
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in ranks:
            return ranks[name]
    raise AssertionError(f"{module} is in no layer of the contracts")


def test_the_map_names_every_module_once() -> None:
    modules = _modules()
    named: List[str] = []
    for _, entries in _map_rows():
        for entry in entries:
            found = _entry_modules(entry, modules)
            assert found, f"CONTRIBUTING's map names {entry!r}, which is no module"
            named.extend(found)
    assert sorted(modules - set(named)) == [], "modules missing from CONTRIBUTING's map"
    assert sorted({name for name in named if named.count(name) > 1}) == []


def test_the_map_follows_the_layers_top_to_bottom() -> None:
    modules = _modules()
    ranks = _ranks()
    previous: Tuple[str, Rank] = ("", (-1, -1))
    for layer, entries in _map_rows():
        row = [
            _rank(module, ranks)
            for entry in entries
            for module in _entry_modules(entry, modules)
        ]
        assert min(row) >= previous[1], (
            f"CONTRIBUTING's row {layer!r} holds a module above one of row {previous[0]!r}"
        )
        previous = (layer, max(row))


def test_the_map_checks_catch_a_misplaced_row(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _map_rows()
    assert len(rows) > 2
    swapped = [rows[1], rows[0]] + rows[2:]
    monkeypatch.setattr(sys.modules[__name__], "_map_rows", lambda: swapped)
    with pytest.raises(AssertionError, match="holds a module above"):
        test_the_map_follows_the_layers_top_to_bottom()
    monkeypatch.setattr(sys.modules[__name__], "_map_rows", lambda: rows[1:])
    with pytest.raises(AssertionError, match="missing"):
        test_the_map_names_every_module_once()
