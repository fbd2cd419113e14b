"""`mathy_envs/_native.pyi`: the types of the compiled core, checked against it.

stubtest (mypy's) checks that the stub and the built module have the same names,
and the types of the module's values; it cannot read the signatures of pybind11's
functions, so the parameters of each are checked here against the signature
pybind11 writes on the first line of its docstring: the same names, in the same
order, with the same defaults. Both are skipped only where the native core is not
built.
"""

import ast
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Optional, Tuple

import pytest

import mathy_envs
from mathy_envs._engine.native import import_native, native_built

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "native_stubtest.ini"
ALLOWLIST = HERE / "native_stubtest_allowlist.txt"
PACKAGE = Path(mathy_envs.__file__).resolve().parent
"""The folder of the mathy_envs the tests import (the checkout, or an installed wheel)."""
STUB = PACKAGE / "_native.pyi"

Parameters = List[Tuple[str, Optional[str]]]
"""A function's parameters: each name, and its default as source text (or None)."""


def built_native() -> ModuleType:
    if not native_built():
        pytest.skip("the native core is not built")
    module: ModuleType = import_native()  # type: ignore[assignment]
    return module


def test_the_stub_ships_next_to_the_package() -> None:
    # Wheels and the sdist carry it (pyproject.toml's package data, MANIFEST.in).
    assert STUB.is_file()
    assert (PACKAGE / "py.typed").is_file()


@pytest.mark.slow  # about 7 s; CI's fast stage also runs stubtest on its own
def test_stubtest_finds_the_stub_true_to_the_built_module() -> None:
    built_native()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "--mypy-config-file",
            str(CONFIG),
            "--allowlist",
            str(ALLOWLIST),
            "mathy_envs._native",
        ],
        # Where the imported mathy_envs is found first, for both the module and
        # its stub.
        cwd=PACKAGE.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout


def test_the_stubtest_settings_are_the_projects() -> None:
    config = tomllib.loads((HERE.parents[1] / "pyproject.toml").read_text())["tool"]["mypy"]
    lines = CONFIG.read_text().splitlines()
    assert f"python_version = {config['python_version']}" in lines
    assert ("strict = True" in lines) == bool(config.get("strict"))


# -- the parameters of each function: the stub's and pybind11's -----------------------


def stub_parameters(source: str) -> Dict[str, Parameters]:
    """The parameters of each function of a stub's source, by qualified name
    (`key_hash`, `Expression.apply`)."""
    found: Dict[str, Parameters] = {}

    def add(function: ast.FunctionDef, prefix: str) -> None:
        arguments = function.args
        positional = arguments.posonlyargs + arguments.args
        defaults: List[Optional[str]] = [None] * (len(positional) - len(arguments.defaults))
        defaults += [ast.unparse(default) for default in arguments.defaults]
        found[prefix + function.name] = [
            (argument.arg, default) for argument, default in zip(positional, defaults)
        ]

    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            add(node, "")
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef):
                    add(member, node.name + ".")
    return found


def _split_top_level(text: str) -> List[str]:
    """`text` split at the commas outside brackets."""
    parts: List[str] = []
    depth = 0
    start = 0
    for at, character in enumerate(text):
        if character in "[(":
            depth += 1
        elif character in "])":
            depth -= 1
        elif character == "," and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    if text[start:].strip():
        parts.append(text[start:])
    return parts


def doc_parameters(name: str, doc: Optional[str]) -> Parameters:
    """The parameters of pybind11's signature line (the first of `doc`) of the
    function `name`."""
    assert doc, f"{name} has no docstring"
    line = doc.lstrip().splitlines()[0]
    assert line.startswith(name + "(") and ") -> " in line, line
    inside = line[len(name) + 1 : line.rindex(") -> ")]
    parameters: Parameters = []
    for part in _split_top_level(inside):
        head, _, annotated = part.partition(":")
        _, equals, default = annotated.partition(" = ")
        parameters.append((head.strip(), default.strip() if equals else None))
    return parameters


def parameter_differences(stub: Dict[str, Parameters], module: ModuleType) -> List[str]:
    """Each function of `stub` whose parameters are not those of the function of
    `module` it names, or that `module` does not have."""
    differences = []
    for qualified, parameters in sorted(stub.items()):
        owner: object = module
        for part in qualified.split("."):
            owner = getattr(owner, part, None)
        if owner is None:
            differences.append(f"{qualified}: not in the module")
            continue
        name = qualified.rsplit(".", 1)[-1]
        runtime = doc_parameters(name, getattr(owner, "__doc__", None))
        if runtime != parameters:
            differences.append(f"{qualified}: stub {parameters}, module {runtime}")
    return differences


def test_every_stub_function_takes_the_parameters_pybind11_gives_it() -> None:
    module = built_native()
    stub = stub_parameters(STUB.read_text())
    assert "Expression.step_flat" in stub and "key_hash" in stub
    assert parameter_differences(stub, module) == []


def test_the_parameter_check_tells_a_renamed_parameter_and_a_lost_default() -> None:
    module = ModuleType("fake")
    module.apply = lambda: None  # type: ignore[attr-defined]
    module.apply.__doc__ = "apply(self: fake.E, rule: typing.SupportsInt, node: int = 0) -> str\n\nDoc."  # type: ignore[attr-defined]
    same = "def apply(self, rule: int, node: int = 0) -> str: ...\n"
    assert parameter_differences(stub_parameters(same), module) == []
    for wrong in [
        "def apply(self, rule: int, column: int = 0) -> str: ...\n",
        "def apply(self, rule: int, node: int) -> str: ...\n",
        "def apply(self, node: int = 0) -> str: ...\n",
        "def applied(self, rule: int, node: int = 0) -> str: ...\n",
    ]:
        assert parameter_differences(stub_parameters(wrong), module) != [], wrong


def test_pybind11_signatures_split_at_top_level_commas_only() -> None:
    doc = "f(a: tuple[int, str], b: dict[str, list[int]] = {}, c: bool = False) -> None"
    assert doc_parameters("f", doc) == [("a", None), ("b", "{}"), ("c", "False")]
