"""`typing.io` for Pythons that removed it, so that mathy_core imports everywhere.

mathy_core colors its output with colr, and colr does `from typing.io import IO`.
Python 3.13 removed the `typing.io` pseudo-module (3.11 and 3.12 still have it but
warn when it is used), so on 3.13 and later `import mathy_core` on its own fails
with `ModuleNotFoundError: No module named 'typing.io'`.

`register()` puts `TYPING_IO`, a plain module named `typing.io`, in `sys.modules`.
Its `IO`, `TextIO` and `BinaryIO` are the very objects `typing` defines (looked up
on first use). `import mathy_envs` runs it before it imports mathy_core, on every
Python: mathy_core then imports on 3.13, and colr's import does not raise the
deprecation warning of 3.11 and 3.12. On 3.13, import mathy_envs (or any of its
modules) before mathy_core.
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
