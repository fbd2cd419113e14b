"""The package's import graph: one direction, no loop.

`lint-imports` (CI) checks the layers of pyproject.toml's import-linter contracts;
these tests check what it cannot: every module of the package is in a contract,
and no import loop exists anywhere, including among modules of one layer.
"""

import ast
import re
import sys
from pathlib import Path
from typing import Dict, List, Set

import grimp
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parents[1]


def _graph_edges() -> Dict[str, Set[str]]:
    graph = grimp.build_graph("mathy_envs")
    return {
        module: set(graph.find_modules_directly_imported_by(module))
        for module in graph.modules
    }


def _contract_modules() -> Set[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    listed: Set[str] = set()
    for contract in config["tool"]["importlinter"]["contracts"]:
        for layer in contract.get("layers", []) + contract.get("modules", []):
            listed.update(name.strip() for name in layer.replace(":", "|").split("|"))
    return listed


def _loops(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (iterative
    Tarjan), plus modules that import themselves."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    loops: List[List[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    loops.append(sorted(component))
    return loops


def test_the_import_graph_has_no_loop() -> None:
    assert _loops(_graph_edges()) == []


def test_the_loop_finder_finds_loops() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert sorted(_loops(edges)) == [["a", "b", "c"], ["e"]]
    assert _loops({"a": {"b"}, "b": set()}) == []


def test_every_module_is_in_a_layers_contract() -> None:
    # Packages (`mathy_envs`, `mathy_envs.envs`...) re-export their modules and sit
    # above them, or are a layer as a whole; every other module must be named in a
    # contract (a package's own contract places its modules among each other).
    names = set(_graph_edges())
    packages = {
        name for name in names if (REPO / name.replace(".", "/") / "__init__.py").exists()
    }
    modules = names - packages
    listed = _contract_modules()
    assert sorted(modules - listed) == []
    assert sorted(listed - modules - packages) == []


# -- only the expression engine imports the compiled core -------------------------------


def names_the_native_core(source: str) -> List[str]:
    """The places of `source` (a module of the package outside `mathy_envs._engine`)
    that name the compiled core, `mathy_envs._native`: an import of it or from it,
    or a string that is its name (as `importlib.import_module` and `__import__` take
    it, absolute or relative)."""
    found: List[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_native_name(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if _is_native_name(module):
                found.append(module)
            found += [
                f"{module} import {alias.name}"
                for alias in node.names
                if alias.name == "_native"
                and (node.level > 0 or node.module == "mathy_envs")
            ]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _is_native_name(node.value.strip()):
                found.append(repr(node.value))
    return found


_NATIVE_NAME = re.compile(r"(?:mathy_envs\.|\.+)?_native(?:\.\w+)*")
"""`_native`, `mathy_envs._native`, `.._native` and names inside them."""


def _is_native_name(name: str) -> bool:
    return _NATIVE_NAME.fullmatch(name) is not None


def test_no_module_outside_the_engine_names_the_native_core() -> None:
    # pyproject.toml's "native" contract checks the static imports of the modules
    # it lists; this checks every module, and the names given to importlib too.
    package = REPO / "mathy_envs"
    engine = package / "_engine"
    stand_in = package / "_native.py"
    offenders = {
        str(path.relative_to(REPO)): found
        for path in sorted(package.rglob("*.py"))
        if engine not in path.parents and path != stand_in
        for found in [names_the_native_core(path.read_text(encoding="utf-8"))]
        if found
    }
    assert offenders == {}
    # ... while the engine's bridge does import it, statically.
    assert names_the_native_core((engine / "native.py").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "source",
    [
        "from . import _native",
        "from .. import _native as core",
        "from mathy_envs import _native",
        "import mathy_envs._native",
        "from mathy_envs._native import Expression",
        "from .._native import Expression",
        "import importlib\nimportlib.import_module('mathy_envs._native')",
        "import importlib\ndef f():\n    return importlib.import_module('._native', 'mathy_envs')",
        "__import__('mathy_envs._native')",
    ],
)
def test_each_way_of_naming_the_native_core_is_found(source: str) -> None:
    assert names_the_native_core(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "from ._engine import NativeExpression",
        "from .native import CORE",
        "from mathy_envs._engine.native import native_built",
        "x = 'the _native core is mathy_envs._native'",
        "def _native_step(): pass\nself._native_rows = []",
        "from numpy import _native",
    ],
)
def test_other_names_are_not_the_native_core(source: str) -> None:
    assert names_the_native_core(source) == []
