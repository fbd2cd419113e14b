"""Tests of the maintainers' tools in `tools/` (run as scripts, not installed)."""

import importlib.util
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).resolve().parents[2] / "tools"
"""The checkout's `tools/` folder."""


def load_tool(name: str) -> ModuleType:
    """`tools/{name}.py` imported as a module (named `{name}_tool`), to call its
    functions and its `main(argv)`."""
    path = TOOLS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_tool", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
