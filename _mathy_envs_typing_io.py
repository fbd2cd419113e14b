"""`typing.io` for Pythons that removed it, so that mathy_core imports everywhere.

mathy_core colors its output with colr, and colr does `from typing.io import IO`.
Python 3.13 removed the `typing.io` pseudo-module (3.11 and 3.12 still have it but
warn when it is used), so on 3.13 and later `import mathy_core` on its own fails
with `ModuleNotFoundError: No module named 'typing.io'`.

`register()` puts `TYPING_IO`, a plain module named `typing.io`, in `sys.modules`.
Its `IO`, `TextIO` and `BinaryIO` are the very objects `typing` defines (looked up
on first use). It runs

- at interpreter start-up, on Pythons without `typing.io` only (3.13 and later),
  through `register_if_missing()`: installing mathy_envs puts two files next to
  this module in site-packages, `mathy_envs_typing_io.start` (the PEP 829 entry
  point `_mathy_envs_typing_io:register_if_missing`, read by Python 3.15 and later)
  and `mathy_envs_typing_io.pth`, whose one import line calls the same function on
  3.13 and 3.14 and imports nothing before 3.13 (from 3.15 the matching `.start`
  file turns that line off). So `import mathy_core` works first thing in a program;
- on every Python when `mathy_envs` is imported, before it imports mathy_core
  (`mathy_envs._support.typing_io` is this module under the package's name): it also
  covers interpreters that skip start-up files (`python -S`), and keeps colr's
  import from raising the deprecation warning of 3.11 and 3.12.

This module lives outside the `mathy_envs` package so that start-up imports only
these lines (and `typing`, whose `io` attribute it sets), not the package with
numpy and mathy_core.
"""

import sys
import types

NAME = "typing.io"
"""The module name colr imports."""

EXPORTS = ("IO", "TextIO", "BinaryIO")
"""The names `typing.io` held before Python 3.13."""

REMOVED_IN = (3, 13)
"""The first Python whose standard library has no `typing.io`."""


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


def register_if_missing() -> None:
    """`register()` where the standard library has no `typing.io` (3.13 and
    later) and nothing registered one yet; nothing at all on older Pythons.

    The start-up hook: idempotent, imports nothing before 3.13."""
    if sys.version_info < REMOVED_IN or NAME in sys.modules:
        return
    register()
