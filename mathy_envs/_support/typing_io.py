"""`typing.io` for Pythons that removed it, so that mathy_core imports everywhere.

The implementation is the top-level module `_mathy_envs_typing_io`, shipped with
mathy_envs, which the interpreter's start-up hook imports without this package
(see its docstring). This module gives the same objects under the package's name:
`import mathy_envs` calls `register()` before it imports mathy_core.
"""

from _mathy_envs_typing_io import (
    EXPORTS,
    NAME,
    REMOVED_IN,
    TYPING_IO,
    register,
    register_if_missing,
)

__all__ = ["EXPORTS", "NAME", "REMOVED_IN", "TYPING_IO", "register", "register_if_missing"]
