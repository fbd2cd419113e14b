"""The registry of observation types: every `obs_type` is looked up here.

Types are keyed by their name (`ObservationKind.name`); an `ObservationType`
member looks up its string value. The four built-in types are registered when
this module is imported and can't be unregistered.

Registration takes a lock and publishes a new mapping, so a look-up never waits
and never sees a half-made change: register types at import time or from any
thread.
"""

import re
import threading
from typing import Any, Dict, Tuple, Union

from ..limits import quote, shorten
from .common import ObservationKind, ObservationType
from .flat import FLAT
from .graph import GRAPH
from .hierarchical import HIERARCHICAL
from .message_passing import MESSAGE_PASSING

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
_BUILT_IN = frozenset(kind.value for kind in ObservationType)

_lock = threading.Lock()
_kinds: Dict[str, ObservationKind[Any]] = {}
"""name -> kind; replaced, never changed in place, so readers need no lock."""


def get_observation_kind(
    obs_type: Union[ObservationType, str],
) -> ObservationKind[Any]:
    """The registered type named `obs_type` (an `ObservationType` or a string).

    Raises `ValueError("Unknown observation type: ...")` for any other value.
    """
    try:
        return _kinds[obs_type]
    except (KeyError, TypeError):  # TypeError: an unhashable obs_type
        known = ", ".join(_kinds)
        raise ValueError(
            f"Unknown observation type: {quote(obs_type, 60)} "
            f"(registered: {shorten(known, 200)})"
        ) from None


def to_observation_type(
    obs_type: Union[ObservationType, str],
) -> Union[ObservationType, str]:
    """`obs_type` checked against the registry: the `ObservationType` member of a
    built-in type, the name of any other registered type; `ValueError` otherwise."""
    name = get_observation_kind(obs_type).name
    return ObservationType(name) if name in _BUILT_IN else name


def observation_types() -> Tuple[str, ...]:
    """The names of the registered types, in registration order (the built-in
    ones first)."""
    return tuple(_kinds)


def register_observation(kind: ObservationKind[Any]) -> ObservationKind[Any]:
    """Register `kind` under `kind.name` and return it.

    Raises `ValueError` when `kind` is not an `ObservationKind` instance, its name
    is not 1 to 64 letters, digits, `_`, `-` or `.` (starting with a letter or
    digit), or a type of that name is already registered.
    """
    global _kinds
    _check_kind(kind)
    with _lock:
        if kind.name in _kinds:
            raise ValueError(
                f"observation type {quote(kind.name)} is already registered "
                f"({quote(_kinds[kind.name], 80)}); unregister_observation it first"
            )
        _kinds = {**_kinds, kind.name: kind}
    return kind


def unregister_observation(
    obs_type: Union[ObservationType, str],
) -> ObservationKind[Any]:
    """Remove the registered type named `obs_type` and return it.

    Raises `ValueError` for an unknown name and for the built-in types.
    """
    global _kinds
    with _lock:
        kind = get_observation_kind(obs_type)
        if kind.name in _BUILT_IN:
            raise ValueError(
                f"the built-in observation type {quote(kind.name)} can't be unregistered"
            )
        _kinds = {name: other for name, other in _kinds.items() if name != kind.name}
    return kind


def _check_kind(kind: Any) -> None:
    """A `ValueError` unless `kind` is a well-formed `ObservationKind` instance."""
    if isinstance(kind, type) and issubclass(kind, ObservationKind):
        raise ValueError(
            f"register an instance of {kind.__name__}, not the class: "
            f"register_observation({kind.__name__}())"
        )
    if not isinstance(kind, ObservationKind):
        raise ValueError(
            f"an observation type must be an ObservationKind instance, got "
            f"{type(kind).__name__} {quote(kind, 60)}"
        )
    name = getattr(kind, "name", None)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            f"{type(kind).__name__}.name must be 1 to 64 letters, digits, '_', '-' "
            f"or '.' starting with a letter or digit, got {quote(name, 60)}"
        )
    for method in ("build", "space", "to_gym"):
        if not callable(getattr(kind, method, None)):
            raise ValueError(f"{type(kind).__name__}.{method} must be a method")


for _builtin in (FLAT, GRAPH, HIERARCHICAL, MESSAGE_PASSING):
    register_observation(_builtin)


__all__ = (
    "get_observation_kind",
    "observation_types",
    "register_observation",
    "to_observation_type",
    "unregister_observation",
)
