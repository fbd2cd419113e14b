"""mathy_core and mathy_envs import on every supported Python.

mathy_core's colr dependency does `from typing.io import IO`, which Python 3.13
removed; `mathy_envs._typing_io` registers a `typing.io` module when mathy_envs is
imported, before mathy_core is. Nothing runs at interpreter start-up (no `.pth`
hook). Each check runs in a fresh interpreter, since it is about what happens at
import time.
"""

import importlib.metadata
import textwrap

from helpers import run_python

LOAD_HOOK = """
import importlib.util, os, sys
# The hook module on its own, without importing the mathy_envs package.
location = importlib.util.find_spec("mathy_envs").submodule_search_locations[0]
spec = importlib.util.spec_from_file_location(
    "typing_io_hook", os.path.join(location, "_typing_io.py")
)
hook = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hook)
"""
"""Child code: `hook` is `mathy_envs/_typing_io.py`, loaded without the package."""

SAME_AS_TYPING = """
import sys, typing
from mathy_envs import _typing_io as hook
from typing.io import IO, TextIO, BinaryIO
assert (IO, TextIO, BinaryIO) == (typing.IO, typing.TextIO, typing.BinaryIO)
assert IO is typing.IO and TextIO is typing.TextIO and BinaryIO is typing.BinaryIO
assert sys.modules["typing.io"] is hook.TYPING_IO
"""
"""Child code: `typing.io` is the hook's module and holds the real typing names."""


def test_importing_mathy_envs_raises_no_warning() -> None:
    # Every warning is an error: the import itself, and mathy_core's after it.
    result = run_python("-W", "error", "-c", "import mathy_envs\nimport mathy_core")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_no_startup_hook_is_installed() -> None:
    # Only the editable install's own finder may be a .pth file; mathy_envs ships
    # none, so nothing of it runs when an unrelated Python program starts.
    files = importlib.metadata.files("mathy_envs") or []
    hooks = [str(f) for f in files if str(f).endswith(".pth")]
    assert [h for h in hooks if not h.startswith("__editable__")] == []


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

        """
    ) + LOAD_HOOK + textwrap.dedent(
        """
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
