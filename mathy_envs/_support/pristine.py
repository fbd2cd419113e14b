"""The library's own classes as it defined them, to tell its code from yours.

A fast path that reproduces what some of the library's methods do (the batch's
native steps) may only be taken while those methods are the library's own:
not overridden by a subclass or a mixin anywhere in an env's class hierarchy,
not set on an instance, and not replaced on the library's class by a
monkeypatch, whenever that happened. `@pristine` records a class's attributes
the moment the class is made, before any user code can change them;
`is_pristine(kind)` tells whether they are still exactly those objects, and
`changed_attribute(kind)` names one that is not (as `changed_module_attribute()`
does for the library's modules), so a fast path left can say why.
"""

import sys
import threading
from types import MappingProxyType, ModuleType
from typing import Any, Dict, List, Mapping, Optional, Tuple, TypeVar

KindT = TypeVar("KindT", bound=type)

_LOCK = threading.Lock()
_DEFINED: Dict[type, Mapping[str, Any]] = {}
"""Each recorded class's attributes as defined (written once per class, at its
definition, under `_LOCK`)."""
_MODULES: Dict[str, Tuple[ModuleType, Dict[str, Any]]] = {}
"""Each recorded module and its code and constants as imported (written under
`_LOCK`)."""
_MISSING = object()
_ADDED_BY_PYTHON = frozenset({"__slotnames__"})
"""Attributes Python adds to a class as it is used, not user code."""


def pristine(kind: KindT) -> KindT:
    """Class decorator: record `kind`'s attributes as they are now, at its
    definition."""
    attributes = MappingProxyType(dict(vars(kind)))
    with _LOCK:
        _DEFINED[kind] = attributes
    return kind


def defined_attributes(kind: type) -> Optional[Mapping[str, Any]]:
    """`kind`'s attributes as defined (read-only), or None for a class that
    `pristine` did not record."""
    with _LOCK:
        return _DEFINED.get(kind)


def is_pristine(kind: type) -> bool:
    """Whether `kind` was recorded by `pristine` and still has exactly the
    attributes it was defined with: none replaced, added (but by Python
    itself, `_ADDED_BY_PYTHON`) or deleted since."""
    return defined_attributes(kind) is not None and changed_attribute(kind) is None


def changed_attribute(kind: type) -> Optional[str]:
    """What makes `kind` not pristine: None while it has exactly the attributes
    `pristine` recorded, else the name of one replaced, added or deleted since
    (the first in definition order, then the first added, by name); for a class
    `pristine` never recorded, its own name."""
    defined = defined_attributes(kind)
    if defined is None:
        return kind.__qualname__
    current = vars(kind)
    if current == defined:
        return None
    for name, value in defined.items():
        if current.get(name, _MISSING) is not value:
            return name
    # Python itself adds a few attributes to classes as they are used (copyreg
    # keeps `__slotnames__` when an instance is pickled or copied).
    added = sorted(current.keys() - defined.keys() - _ADDED_BY_PYTHON)
    return added[0] if added else None


class _WatchedModule(ModuleType):
    """A recorded module: setting or deleting an attribute (a monkeypatch)
    counts as a change of the recorded modules (`_Changes`), so the next check
    compares them."""

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        _CHANGES.count()  # after the change: a comparison seeing the count sees it

    def __delattr__(self, name: str) -> None:
        super().__delattr__(name)
        _CHANGES.count()


class _Changes:
    """How many times an attribute of a recorded module was set or deleted
    (`made`), and the count at the start of the last comparison that found the
    modules as recorded (`clean`): while the two are equal, no comparison is
    needed. A comparison marks as clean only the count it started at, so a
    change made during it (or a thread that checks while it runs) is compared
    again."""

    __slots__ = ("made", "clean", "_lock")

    def __init__(self) -> None:
        self.made = 0
        self.clean = 0
        self._lock = threading.Lock()

    def count(self) -> None:
        with self._lock:
            self.made += 1

    def mark_clean(self, made: int) -> None:
        with self._lock:
            self.clean = max(self.clean, made)


_CHANGES = _Changes()


_CONSTANTS = (bool, int, float, complex, str, bytes, type(None), tuple, frozenset)


def _is_code(value: Any) -> bool:
    """Whether a module attribute is code or a constant (a function, a class,
    any callable, an immutable value), which a step may run or read; not the
    module's own state (a registry, a lock, a cache), which it changes."""
    return callable(value) or isinstance(value, _CONSTANTS)


def record_modules(package: str) -> None:
    """Record the code and constants (`_is_code`) of every module of
    `package` imported now, but packages themselves (whose attributes grow as
    their submodules are imported) and modules recorded before, and watch them
    for changes. Called once the package's own `__init__` has imported its
    modules, before user code runs."""
    prefix = package + "."
    with _LOCK:
        for name, module in list(sys.modules.items()):
            if (
                name.startswith(prefix)
                and type(module) is ModuleType
                and not hasattr(module, "__path__")
                and str(getattr(module, "__file__", "")).endswith(".py")
                and name not in _MODULES
            ):
                code = {key: value for key, value in vars(module).items() if _is_code(value)}
                _MODULES[name] = (module, code)
                module.__class__ = _WatchedModule


def defined_by_library(kind: type) -> bool:
    """Whether `kind` is a class one of the recorded modules defined: the object
    its module held under the class's name when `record_modules` recorded it
    (a class of yours is not, whatever its `__module__` says)."""
    with _LOCK:
        entry = _MODULES.get(getattr(kind, "__module__", None) or "")
    return entry is not None and entry[1].get(getattr(kind, "__qualname__", "")) is kind


def modules_are_pristine() -> bool:
    """Whether every module `record_modules` recorded still has each function,
    class and constant it was imported with, the same object (one replaced by
    user code, at any time, makes it False; attributes added since, and the
    modules' own state, do not count).
    Free while no attribute of theirs was set since the last comparison."""
    return changed_module_attribute() is None


def changed_module_attribute() -> Optional[str]:
    """What makes the recorded modules not pristine (`modules_are_pristine`):
    None, else the dotted name of a function, class or constant replaced or
    deleted since import (`"mathy_envs.rewards.MAX_VISITS"`), the first in
    the order of import. Free while no attribute of theirs was set since the
    last comparison that found them as recorded."""
    made = _CHANGES.made
    if made == _CHANGES.clean:
        return None
    with _LOCK:
        recorded: List[Tuple[ModuleType, Dict[str, Any]]] = list(_MODULES.values())
    for module, imported in recorded:
        get = vars(module).get
        for name, value in imported.items():
            if get(name, _MISSING) is not value:
                return f"{module.__name__}.{name}"
    _CHANGES.mark_clean(made)
    return None


__all__ = (
    "changed_attribute",
    "changed_module_attribute",
    "defined_attributes",
    "defined_by_library",
    "is_pristine",
    "modules_are_pristine",
    "pristine",
    "record_modules",
)
