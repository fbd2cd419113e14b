"""`mathy_envs._support.pristine`: the library's classes and modules as defined,
and what changed since."""

import copy
from typing import List

import pytest

from mathy_envs._support.pristine import (
    changed_attribute,
    changed_module_attribute,
    defined_attributes,
    is_pristine,
    modules_are_pristine,
    pristine,
)


def _recorded() -> type:
    @pristine
    class Recorded:
        __slots__ = ("value",)

        def first(self) -> int:
            return 1

        def second(self) -> int:
            return 2

    return Recorded


def test_a_recorded_class_is_pristine_until_changed() -> None:
    kind = _recorded()
    assert is_pristine(kind) and changed_attribute(kind) is None
    assert defined_attributes(kind) is not None
    kind.second = lambda self: 3  # type: ignore[attr-defined]
    assert not is_pristine(kind) and changed_attribute(kind) == "second"
    kind.first = lambda self: 4  # type: ignore[attr-defined]
    assert changed_attribute(kind) == "first"  # the first in definition order


def test_added_and_deleted_attributes_are_named() -> None:
    added = _recorded()
    added.zeta = 1  # type: ignore[attr-defined]
    added.alpha = 2  # type: ignore[attr-defined]
    assert changed_attribute(added) == "alpha" and not is_pristine(added)
    deleted = _recorded()
    del deleted.second  # type: ignore[attr-defined]
    assert changed_attribute(deleted) == "second" and not is_pristine(deleted)


def test_what_python_adds_is_no_change() -> None:
    kind = _recorded()
    instance = kind()
    instance.value = 1
    copy.copy(instance)  # copyreg caches __slotnames__ on the class
    assert "__slotnames__" in vars(kind)
    assert is_pristine(kind) and changed_attribute(kind) is None


def test_an_unrecorded_class_names_itself() -> None:
    class Plain:
        pass

    assert not is_pristine(Plain)
    assert changed_attribute(Plain) == Plain.__qualname__


def test_a_replaced_module_attribute_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import mathy_envs.rewards

    assert modules_are_pristine() and changed_module_attribute() is None
    monkeypatch.setattr(mathy_envs.rewards, "win_signal", lambda max_moves, left: 0.0)
    assert not modules_are_pristine()
    assert changed_module_attribute() == "mathy_envs.rewards.win_signal"
    monkeypatch.undo()
    assert modules_are_pristine() and changed_module_attribute() is None
    # The modules' own state, and attributes added since, do not count.
    mathy_envs.rewards.added_by_a_user = 1  # type: ignore[attr-defined]
    try:
        assert changed_module_attribute() is None
    finally:
        del mathy_envs.rewards.added_by_a_user  # type: ignore[attr-defined]


def test_every_thread_sees_a_replaced_module_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    # While one thread compares the modules, another asking at the same time
    # must not be told nothing changed (a comparison in progress is not one
    # that found the modules as recorded).
    import sys
    import threading

    import mathy_envs.rewards

    interval = sys.getswitchinterval()
    missed: List[int] = []

    def ask() -> None:
        missed.append(sum(changed_module_attribute() is None for _ in range(300)))

    monkeypatch.setattr(mathy_envs.rewards, "win_signal", lambda max_moves, left: 0.0)
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=ask) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert missed == [0] * 6
