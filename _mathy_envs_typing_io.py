"""`typing.io` for Pythons that removed it, so that mathy_core imports everywhere.

mathy_core colors its output with colr, and colr does `from typing.io import IO`.
Python 3.13 removed the `typing.io` pseudo-module (3.11 and 3.12 still have it but
warn when it is used), so on 3.13 and later `import mathy_core` would fail with
`ModuleNotFoundError: No module named 'typing.io'`.

`register()` puts `TYPING_IO`, a plain module named `typing.io`, in `sys.modules`.
Its `IO`, `TextIO` and `BinaryIO` are the very objects `typing` defines (looked up
on first use, so registering does not import `typing`). It runs

- at interpreter start on Pythons without `typing.io`, through the one-line
  `mathy_envs_typing_io.pth` that installing mathy_envs puts in site-packages, so
  `import mathy_core` works even before `import mathy_envs`;
- on every Python when `mathy_envs` is imported, before it imports mathy_core, so
  the hook also works where `.pth` files are not processed (`python -S`) and
  colr's import does not raise the deprecation warning of 3.11 and 3.12.

This module is top-level (not inside `mathy_envs`) so that the startup hook runs
only these few lines, not the whole package; it imports nothing but `sys` and
`types`.
"""

import sys
import types

NAME = "typing.io"
"""The module name colr imports."""

EXPORTS = ("IO", "TextIO", "BinaryIO")
"""The names `typing.io` held before Python 3.13."""


def _from_typing(name: str) -> object:
    """`typing.<name>` for the names `typing.io` exports (PEP 562 module getattr)."""
    if name not in EXPORTS:
        raise AttributeError(f"module {NAME!r} has no attribute {name!r}")
    import typing

    if not hasattr(typing, "io"):
        # What the import system does for a real submodule: `typing.io` then
        # works as an attribute too.
        setattr(typing, "io", TYPING_IO)
    return getattr(typing, name)


def _names() -> list[str]:
    return sorted(EXPORTS)


TYPING_IO = types.ModuleType(
    NAME, "Aliases of `typing.IO`, `typing.TextIO` and `typing.BinaryIO`."
)
"""The module registered as `typing.io`."""
TYPING_IO.__all__ = list(EXPORTS)  # type: ignore[attr-defined]
TYPING_IO.__getattr__ = _from_typing  # type: ignore[method-assign]
TYPING_IO.__dir__ = _names  # type: ignore[method-assign]


def register() -> None:
    """Make `import typing.io` give `TYPING_IO` (on any Python; idempotent).

    On 3.10 to 3.12 this replaces the standard library's own `typing.io` entry in
    `sys.modules`, which has the same three names; the `typing.io` attribute of
    `typing` is left as it is there. It imports `typing` first, since importing
    `typing` registers that entry."""
    import typing

    sys.modules[NAME] = TYPING_IO
    if not hasattr(typing, "io"):
        setattr(typing, "io", TYPING_IO)


def _register_lazily() -> None:
    """`register()` without importing `typing` (which takes several milliseconds):
    only right on Pythons whose `typing` does not register `typing.io` itself."""
    sys.modules[NAME] = TYPING_IO


def register_if_missing() -> None:
    """`register()` on Pythons whose standard library has no `typing.io` (3.13
    and later); nothing on older ones. Never raises: it runs at interpreter start
    from `mathy_envs_typing_io.pth`, where an error would be printed for every
    Python process of the environment."""
    try:
        if sys.version_info >= (3, 13) and NAME not in sys.modules:
            _register_lazily()
    except Exception:  # pragma: no cover - defensive, see docstring
        pass
