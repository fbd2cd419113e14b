"""The library's own classes as it defined them, to tell its code from yours.

A fast path that reproduces what some of the library's methods do (the batch's
native steps) may only be taken while those methods are the library's own:
not overridden by a subclass or a mixin anywhere in an env's class hierarchy,
not set on an instance, and not replaced on the library's class by a
monkeypatch, whenever that happened. `@pristine` records a class's attributes
the moment the class is made, before any user code can change them;
`is_pristine(kind)` tells whether they are still exactly those objects.
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
"""Each recorded module and its attributes as imported (written under `_LOCK`)."""
_MISSING = object()


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
    attributes it was defined with: none replaced, added or deleted since."""
    defined = defined_attributes(kind)
    return defined is not None and vars(kind) == defined


class _WatchedModule(ModuleType):
    """A recorded module: setting or deleting an attribute (a monkeypatch)
    marks the recorded modules as touched, so the next check compares them."""

    def __setattr__(self, name: str, value: Any) -> None:
        _TOUCHED.set()
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        _TOUCHED.set()
        super().__delattr__(name)


_TOUCHED = threading.Event()
"""Set when an attribute of a recorded module was set or deleted since the last
full comparison (`modules_are_pristine`)."""


def record_modules(package: str) -> None:
    """Record the attributes (functions, classes, constants) of every module of
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
                _MODULES[name] = (module, dict(vars(module)))
                module.__class__ = _WatchedModule


def modules_are_pristine() -> bool:
    """Whether every module `record_modules` recorded still has each attribute
    it was imported with (a function, a class or a constant replaced by user
    code, at any time, makes it False; attributes added since do not count).
    Free while no attribute of theirs was set since the last comparison."""
    if not _TOUCHED.is_set():
        return True
    _TOUCHED.clear()  # a change made during the comparison sets it again
    with _LOCK:
        recorded: List[Tuple[ModuleType, Dict[str, Any]]] = list(_MODULES.values())
    for module, imported in recorded:
        current = vars(module)
        try:
            if current == imported:  # the same objects: compared by identity
                continue
        except Exception:  # a value replaced by one whose == raises (an array)
            pass
        get = current.get
        if any(get(name, _MISSING) is not value for name, value in imported.items()):
            _TOUCHED.set()  # still changed: compare again next time
            return False
    return True


__all__ = (
    "defined_attributes",
    "is_pristine",
    "modules_are_pristine",
    "pristine",
    "record_modules",
)
