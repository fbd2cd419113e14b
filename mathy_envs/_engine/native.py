"""The native core: which core this process uses, and the compiled module.

mathy_envs has two cores that give the same answers. The pure-Python core calls
mathy_core for parsing, printing and rules; it is the reference, and it handles
everything. The native core (`mathy_envs._native`, C++ built from `native/` when
the package is installed with a C++17 compiler) re-implements mathy_core's
tokenizer, parser and printer and the core rules' checks and rewrites for speed;
it refuses anything it does not reproduce exactly, which then goes to the Python
core.

The environment variable `MATHY_ENVS_CORE`, read once at import, chooses:

- unset or `auto`: the native core when it is built (and implements the core
  rules of `rules.CORE_RULE_TABLE`), else Python;
- `python`: the pure-Python core only;
- `native`: the native core, and an `ImportError` if it is not built or its
  rule table is not the library's.

`CORE` is the core in use (`"native"` or `"python"`); `mathy-envs --version`
prints it.

This is the only module that imports `mathy_envs._native` (an import-linter
contract; tests/test_layers.py checks that no other names it). Where the extension
is built, its file (`_native.<platform tag>.so`, or `.pyd`) sits next to
`mathy_envs/_native.py` and Python loads it instead: a folder's extension modules
are tried before its source files. `_native.py` itself, loaded only where no
extension was built, raises ImportError. mypy reads `mathy_envs/_native.pyi`,
which stubtest keeps true to the built module.
"""

import logging
import os
from typing import (
    TYPE_CHECKING, Callable, List, Optional, Protocol, Sequence, Tuple, Type, Union,
)

from ..limits import quote
from .rules import CORE_RULE_NAMES

if TYPE_CHECKING:
    from .._native import Batch as NativeBatch
    from .._native import Expression as NativeExpression

CORE_VARIABLE = "MATHY_ENVS_CORE"
"""The environment variable that chooses the core."""
CORE_CHOICES = ("auto", "native", "python")
EXTENSION = "mathy_envs._native"
"""The compiled module's name."""


class NativeCore(Protocol):
    """The compiled module's own names (mathy_envs/_native.pyi), which the module
    `mathy_envs._native` is: mypy checks that it matches."""

    @property
    def CORE_RULES(self) -> int: ...
    @property
    def CORE_RULE_NAMES(self) -> Tuple[str, ...]: ...
    @property
    def MAX_NODES(self) -> int: ...
    @property
    def Expression(self) -> "Type[NativeExpression]": ...
    @property
    def Batch(self) -> "Type[NativeBatch]": ...
    @property
    def GOAL_NAMES(self) -> Tuple[str, ...]: ...
    @property
    def SCORING_CHECKS(self) -> Tuple[str, ...]: ...
    @property
    def MAX_THREADS(self) -> int: ...
    def key_hash(self, key: str) -> int: ...
    @property
    def PROBLEM_FAMILIES(self) -> Tuple[str, ...]: ...
    def draw_problem(
        self, bit_generator: object, family: int, counts: Sequence[int],
        chances: Sequence[float], ops: Sequence[str], variables: str, common_variables: str,
        numbers: Sequence[int], limits: Sequence[int],
    ) -> Optional[Tuple[str, int]]: ...
    def replay_draws(
        self, bit_generator: object, draws: Sequence[Tuple[int, int, int]]
    ) -> List[Union[float, int, List[int], None]]: ...


def import_native() -> NativeCore:
    """The compiled module; ImportError where it is not built."""
    from .. import _native

    return _native


def rule_table_mismatch(module: NativeCore, names: Sequence[str]) -> Optional[str]:
    """Why the compiled `module` does not implement the core rules `names` (in
    action order), or None where it does: its `CORE_RULE_NAMES` and `CORE_RULES`
    must be exactly those (a module built from other sources, or from before the
    names existed, has another table or none)."""
    expected = tuple(names)
    found = getattr(module, "CORE_RULE_NAMES", None)
    count = getattr(module, "CORE_RULES", None)
    if found == expected and count == len(expected):
        return None
    return (
        f"mathy_envs' native core implements the core rules {quote(found, 200)} "
        f"({quote(count, 20)} rules), not the library's {quote(expected, 200)}; "
        f"rebuild it from this version's sources (`pip install .`)"
    )


def select_core(
    choice: str, load: Callable[[], NativeCore], names: Sequence[str]
) -> Optional[NativeCore]:
    """The compiled module to use for `choice` (one of `CORE_CHOICES`), loaded by
    `load`, which must implement the core rules `names`; None for the pure-Python
    core. With `choice` "auto", a module that is not built or implements other
    rules is logged and not used; with "native", either is an ImportError."""
    if choice == "python":
        return None
    try:
        module = load()
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
    mismatch = rule_table_mismatch(module, names)
    if mismatch is not None:
        if choice == "native":
            raise ImportError(f"{CORE_VARIABLE}=native, but {mismatch}")
        logging.getLogger("mathy_envs").warning(
            "%s; running on the pure-Python core", mismatch
        )
        return None
    return module


def _choice() -> str:
    choice = os.environ.get(CORE_VARIABLE, "auto").strip().lower() or "auto"
    if choice not in CORE_CHOICES:
        raise ValueError(
            f"{CORE_VARIABLE}={os.environ[CORE_VARIABLE][:60]!r} is not one of "
            + ", ".join(CORE_CHOICES)
        )
    return choice


NATIVE: Optional[NativeCore] = select_core(_choice(), import_native, CORE_RULE_NAMES)
"""The compiled module when the native core is in use, else None."""
CORE = "native" if NATIVE is not None else "python"
"""The core in use: `"native"` or `"python"`."""

if not TYPE_CHECKING:
    # `NativeExpression` (the type of `ParsedExpression.native`, for annotations)
    # at run time: the compiled class while the native core is in use, else a
    # class of which no instance exists, as no native parse is then made.
    if NATIVE is not None:
        NativeExpression = NATIVE.Expression
    else:

        class NativeExpression:
            """The native core's parse, `mathy_envs._native.Expression`: the
            native core is not in use, so none exists."""

            __slots__ = ()

            def __init__(self) -> None:
                raise TypeError("mathy_envs' native core is not in use")


def _built() -> bool:
    if NATIVE is not None:
        return True
    try:
        import_native()
    except ImportError:
        return False
    return True


_BUILT = _built()


def native_built() -> bool:
    """Whether the native extension is built (whether or not it is in use);
    decided once, at import."""
    return _BUILT


def _refusal() -> Optional[str]:
    if NATIVE is not None or not _BUILT or _choice() == "python":
        return None
    return rule_table_mismatch(import_native(), CORE_RULE_NAMES)


REFUSAL: Optional[str] = _refusal()
"""Why a native core that is built is not in use though `MATHY_ENVS_CORE` did
not choose the pure-Python core (its table of core rules is not the library's),
else None."""


def core_reason() -> Optional[str]:
    """Why the native core is not in use in this process (a sentence), or None
    when it is."""
    if NATIVE is not None:
        return None
    if REFUSAL is not None:
        return f"the pure-Python core is in use: {REFUSAL}"
    if _BUILT:
        return f"the pure-Python core is in use ({CORE_VARIABLE}=python)"
    return "the native core is not built (the pure-Python core is in use)"


__all__ = (
    "CORE",
    "CORE_CHOICES",
    "CORE_VARIABLE",
    "EXTENSION",
    "NATIVE",
    "NativeCore",
    "NativeExpression",
    "REFUSAL",
    "core_reason",
    "import_native",
    "native_built",
    "rule_table_mismatch",
    "select_core",
)
