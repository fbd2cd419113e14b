"""mathy_core and mathy_envs import on every supported Python.

mathy_core's colr dependency does `from typing.io import IO`, which Python 3.13
removed. The top-level module `_mathy_envs_typing_io` (re-exported as
`mathy_envs._support.typing_io`) registers a `typing.io` module:

- at interpreter start-up on 3.13 and later only, from the two files installing
  mathy_envs puts in site-packages: `mathy_envs_typing_io.pth` (one import line,
  which imports nothing before 3.13) and `mathy_envs_typing_io.start` (its PEP 829
  entry point, which replaces that line from Python 3.15), so that
  `from mathy_core import ...` works first thing in a program;
- on every Python when mathy_envs is imported, before mathy_core is.

Each check runs in a fresh interpreter, since it is about what happens at start-up
and import time.
"""

import importlib.metadata
import site
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

from helpers import REPO, run_python

MODULE = "_mathy_envs_typing_io"
"""The top-level module that holds the shim (imported at start-up, not the package)."""

PTH = "mathy_envs_typing_io.pth"
START = "mathy_envs_typing_io.start"

PTH_LINE = (
    'import sys; sys.version_info < (3, 13) or __import__("_mathy_envs_typing_io")'
    ".register_if_missing()"
)
"""The one import line of the `.pth` file: a comparison and nothing else before
3.13 (`sys` is always loaded already)."""

ENTRY_POINT = "_mathy_envs_typing_io:register_if_missing"
"""The one entry point of the `.start` file (PEP 829: `pkg.mod:callable`)."""

SEED_FIRST_EXAMPLE = """
from typing import List
from mathy_core import ExpressionParser, MathExpression, Token, VariableExpression
problem = "4 + 2x"
parser = ExpressionParser()
tokens: List[Token] = parser.tokenize(problem)
expression: MathExpression = parser.parse(problem)
assert len(expression.find_type(VariableExpression)) == 1
"""
"""The first example of the published observations page, as written: it imports
mathy_core before anything of mathy_envs."""

SAME_AS_TYPING = """
import sys, typing
from mathy_envs._support import typing_io as hook
import _mathy_envs_typing_io
from typing.io import IO, TextIO, BinaryIO
assert hook.TYPING_IO is _mathy_envs_typing_io.TYPING_IO  # one implementation
assert hook.register is _mathy_envs_typing_io.register
assert (IO, TextIO, BinaryIO) == (typing.IO, typing.TextIO, typing.BinaryIO)
assert IO is typing.IO and TextIO is typing.TextIO and BinaryIO is typing.BinaryIO
assert sys.modules["typing.io"] is hook.TYPING_IO
"""
"""Child code: `typing.io` is the shim's module and holds the real typing names."""

REMOVE_TYPING_IO = """
import sys, typing
sys.modules.pop("typing.io", None)
if hasattr(typing, "io"):
    delattr(typing, "io")
try:
    from typing.io import IO
except ImportError:
    pass
else:
    raise AssertionError("typing.io was not removed")
"""
"""Child code: removes `typing.io` as Python 3.13 did, on any Python."""


def _lines(text: str) -> List[str]:
    """The lines of a `.pth` or `.start` file that Python reads (no comments)."""
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def _installed_startup_files() -> Dict[str, Path]:
    """Where the installed distribution put its `.pth` and `.start` files.

    Its record in site-packages is read, not the checkout's `mathy_envs.egg-info`
    (which an editable install leaves there, first on `sys.path` when the tests
    run from the checkout)."""
    site_dirs = [*site.getsitepackages(), site.getusersitepackages()]
    found = list(importlib.metadata.distributions(name="mathy_envs", path=site_dirs))
    assert found, f"mathy_envs is not installed in {site_dirs}"
    return {
        str(f): Path(str(f.locate()))
        for f in found[0].files or []
        if str(f).endswith((".pth", ".start"))
    }


def test_importing_mathy_envs_raises_no_warning() -> None:
    # Every warning is an error: the import itself, and mathy_core's after it.
    result = run_python("-W", "error", "-c", "import mathy_envs\nimport mathy_core")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_the_distribution_ships_the_startup_files() -> None:
    installed = _installed_startup_files()
    # The only other start-up file may be the editable install's own finder.
    others = [name for name in installed if name not in (PTH, START)]
    assert [name for name in others if not name.startswith("__editable__")] == []
    # Both at the top of site-packages (a folder of sys.path), side by side: a
    # matching pair for PEP 829.
    assert PTH in installed and START in installed, sorted(installed)
    assert installed[PTH].parent == installed[START].parent
    assert installed[PTH].parent.resolve() in {Path(p).resolve() for p in sys.path if p}
    pth = installed[PTH].read_text(encoding="utf-8-sig")
    start = installed[START].read_text(encoding="utf-8-sig")
    assert _lines(pth) == [PTH_LINE]
    assert _lines(start) == [ENTRY_POINT]
    # They sort after the editable install's `__editable__*.pth`, whose finder must
    # be in place before they import the shim from the checkout.
    assert all(name > other for name in (PTH, START) for other in others)
    # What is installed is what the checkout holds.
    if (REPO / PTH).exists():
        assert pth == (REPO / PTH).read_text(encoding="utf-8-sig")
        assert start == (REPO / START).read_text(encoding="utf-8-sig")


def test_the_seed_example_runs_as_written() -> None:
    # Its first import of anything of ours is mathy_core's, with no mathy_envs
    # import before it: on 3.13 and later the start-up hook made that work.
    result = run_python("-c", SEED_FIRST_EXAMPLE)
    assert result.returncode == 0, result.stderr


def test_mathy_core_imports_first_thing_without_the_package() -> None:
    # The start-up hook registered `typing.io` (3.13+) without importing the
    # mathy_envs package (numpy, mathy_core), and mathy_core does not import it.
    code = textwrap.dedent(
        f"""
        from mathy_core import ExpressionParser
        import sys
        assert "mathy_envs" not in sys.modules
        if sys.version_info >= (3, 13):
            assert sys.modules["typing.io"] is sys.modules[{MODULE!r}].TYPING_IO
        print(ExpressionParser().parse("4x + 2y + 2x"))
        """
    )
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "4x + 2y + 2x"


def test_the_startup_hook_runs_only_where_typing_io_is_missing() -> None:
    # At start-up: before 3.13 the .pth line imported nothing (the shim's module
    # is not loaded); from 3.13 it registered `typing.io`.
    code = textwrap.dedent(
        f"""
        import sys
        if sys.version_info < (3, 13):
            assert {MODULE!r} not in sys.modules, "the hook imported the shim"
        else:
            assert sys.modules["typing.io"] is sys.modules[{MODULE!r}].TYPING_IO
        """
    )
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_the_pth_line_imports_nothing_before_3_13() -> None:
    # The line itself, run as site.py runs it (exec), in a fresh interpreter that
    # skipped the start-up files (-S), so that the hook has not run yet.
    code = textwrap.dedent(
        f"""
        import sys
        before = set(sys.modules)
        exec({PTH_LINE!r})
        added = set(sys.modules) - before
        if sys.version_info < (3, 13):
            assert added == set(), sorted(added)
        else:
            assert sys.modules["typing.io"] is sys.modules[{MODULE!r}].TYPING_IO
        """
    )
    result = run_python("-S", "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_the_start_entry_point_resolves_and_is_idempotent() -> None:
    code = textwrap.dedent(
        f"""
        import pkgutil, sys
        import {MODULE} as hook
        register_if_missing = pkgutil.resolve_name({ENTRY_POINT!r})
        assert register_if_missing is hook.register_if_missing
        before = sys.modules.get("typing.io")
        register_if_missing()
        register_if_missing()
        if sys.version_info < hook.REMOVED_IN:
            # Nothing to do where the standard library has typing.io.
            assert sys.modules.get("typing.io") is before
        else:
            assert sys.modules["typing.io"] is hook.TYPING_IO
        """
    ) + REMOVE_TYPING_IO + textwrap.dedent(
        """
        # Where typing.io is missing (as on 3.13), the entry point registers it,
        # once: a second call keeps what the first registered.
        hook.REMOVED_IN = (3, 0)
        register_if_missing()
        assert sys.modules["typing.io"] is hook.TYPING_IO
        register_if_missing()
        assert sys.modules["typing.io"] is hook.TYPING_IO
        from typing.io import IO
        assert IO is typing.IO
        import mathy_core
        """
    )
    result = run_python("-W", "error::DeprecationWarning", "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_importing_mathy_envs_provides_typing_io_without_warnings() -> None:
    # mathy_envs registers `typing.io` before it imports mathy_core: no
    # ModuleNotFoundError on 3.13+, no DeprecationWarning from colr on 3.11/3.12.
    result = run_python(
        "-W",
        "error::DeprecationWarning",
        "-c",
        "import mathy_envs\nimport mathy_core\n" + SAME_AS_TYPING,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_register_provides_typing_io_where_the_standard_library_has_none() -> None:
    # Removes `typing.io` as Python 3.13 did, on any Python, then registers it.
    code = REMOVE_TYPING_IO + textwrap.dedent(
        f"""
        import {MODULE} as hook
        hook.register()
        hook.register()  # twice is the same as once
        import typing.io
        assert typing.io is hook.TYPING_IO and typing.io.TextIO is typing.TextIO
        namespace = {{}}
        exec("from typing.io import *", namespace)
        assert sorted(set(namespace) - {{"__builtins__"}}) == ["BinaryIO", "IO", "TextIO"]
        try:
            from typing.io import Pattern
        except ImportError as error:
            assert "Pattern" in str(error)
        else:
            raise AssertionError("typing.io has a name it never had")

        import mathy_core
        """
    )
    result = run_python(
        "-W", "error::DeprecationWarning", "-c", code + SAME_AS_TYPING
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
