"""The native core: which core this process uses, and the compiled module.

mathy_envs has two cores that give the same answers. The pure-Python core calls
mathy_core for parsing, printing and rules; it is the reference, and it handles
everything. The native core (`mathy_envs._native`, C++ built from `native/` when
the package is installed with a C++17 compiler) re-implements mathy_core's
tokenizer, parser and printer and the core rules' checks and rewrites for speed;
it refuses anything it does not reproduce exactly, which then goes to the Python
core.

The environment variable `MATHY_ENVS_CORE`, read once at import, chooses:

- unset or `auto`: the native core when it is built, else Python;
- `python`: the pure-Python core only;
- `native`: the native core, and an `ImportError` if it is not built.

`CORE` is the core in use (`"native"` or `"python"`); `mathy-envs --version`
prints it.
"""

import importlib
import logging
import os
from types import ModuleType
from typing import Optional

CORE_VARIABLE = "MATHY_ENVS_CORE"
"""The environment variable that chooses the core."""
CORE_CHOICES = ("auto", "native", "python")
EXTENSION = "mathy_envs._native"
"""The compiled module's name."""


def _load() -> Optional[ModuleType]:
    choice = os.environ.get(CORE_VARIABLE, "auto").strip().lower() or "auto"
    if choice not in CORE_CHOICES:
        raise ValueError(
            f"{CORE_VARIABLE}={os.environ[CORE_VARIABLE][:60]!r} is not one of "
            + ", ".join(CORE_CHOICES)
        )
    if choice == "python":
        return None
    try:
        module = importlib.import_module(EXTENSION)
    except ImportError as error:
        if choice == "native":
            raise ImportError(
                f"{CORE_VARIABLE}=native, but mathy_envs' native core is not built "
                f"({error}); reinstall with a C++17 compiler (`pip install .`)"
            ) from error
        logging.getLogger("mathy_envs").info(
            "mathy_envs' native core is not built; running on the pure-Python core"
        )
        return None
    return module


NATIVE: Optional[ModuleType] = _load()
"""The compiled module when the native core is in use, else None."""
CORE = "native" if NATIVE is not None else "python"
"""The core in use: `"native"` or `"python"`."""


def native_built() -> bool:
    """Whether the native extension is built (whether or not it is in use)."""
    if NATIVE is not None:
        return True
    try:
        importlib.import_module(EXTENSION)
    except ImportError:
        return False
    return True


__all__ = ("CORE", "CORE_CHOICES", "CORE_VARIABLE", "NATIVE", "native_built")
