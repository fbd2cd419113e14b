"""mathy_core and mathy_envs import on every supported Python.

mathy_core's colr dependency does `from typing.io import IO`, which Python 3.13
removed; `_mathy_envs_typing_io` registers a `typing.io` module (at interpreter
start from `mathy_envs_typing_io.pth`, and on `import mathy_envs`). Each check runs
in a fresh interpreter, since it is about what happens at startup and import time.
"""

import os
import subprocess
import sys
import textwrap

from helpers import REPO, python_environment, run_python

HAS_NO_TYPING_IO = sys.version_info >= (3, 13)
"""Pythons whose standard library has no `typing.io`."""

SAME_AS_TYPING = """
import sys, typing
import _mathy_envs_typing_io as hook
from typing.io import IO, TextIO, BinaryIO
assert (IO, TextIO, BinaryIO) == (typing.IO, typing.TextIO, typing.BinaryIO)
assert IO is typing.IO and TextIO is typing.TextIO and BinaryIO is typing.BinaryIO
assert sys.modules["typing.io"] is hook.TYPING_IO
"""
"""Child code: `typing.io` is the hook's module and holds the real typing names."""


def test_the_startup_hook_lets_mathy_core_import_first() -> None:
    # `-S` skips the site-packages .pth files; `site.addsitedir(REPO)` then
    # processes the checkout's own hook exactly as site does at startup, before
    # anything has imported typing, mathy_core or mathy_envs.
    code = textwrap.dedent(
        """
        import site, sys
        site.addsitedir(sys.argv[1])
        import _mathy_envs_typing_io as hook
        registered = sys.modules.get("typing.io") is hook.TYPING_IO
        import mathy_core
        import mathy_envs
        print(registered)
        """
    )
    # On 3.11 and 3.12 colr's own `from typing.io import IO` warns when mathy_core
    # is imported first (the standard library's `typing.io` is left alone there).
    warnings = ["-W", "error::DeprecationWarning"] if HAS_NO_TYPING_IO else []
    env = python_environment()
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, sys.path)])
    result = subprocess.run(
        [sys.executable, "-S", *warnings, "-c", code, str(REPO)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    # site reports a failing .pth line on stderr and carries on.
    assert result.stderr == ""
    # The hook registers `typing.io` only where the standard library lacks it.
    assert result.stdout == f"{HAS_NO_TYPING_IO}\n"


def test_the_startup_hook_file_is_one_import_line() -> None:
    # site executes a .pth line only when it starts with "import".
    lines = (REPO / "mathy_envs_typing_io.pth").read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("import _mathy_envs_typing_io;")


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
    code = textwrap.dedent(
        """
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

        import _mathy_envs_typing_io as hook
        hook.register()
        hook.register()  # twice is the same as once
        import typing.io
        assert typing.io is hook.TYPING_IO and typing.io.TextIO is typing.TextIO
        namespace = {}
        exec("from typing.io import *", namespace)
        assert sorted(set(namespace) - {"__builtins__"}) == ["BinaryIO", "IO", "TextIO"]
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
