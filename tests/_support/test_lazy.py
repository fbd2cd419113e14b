"""`lazy`: computed on first use, then an ordinary attribute."""

from typing import List

from mathy_envs._support.lazy import lazy


class Counted:
    def __init__(self) -> None:
        self.calls: List[int] = []

    @lazy
    def answer(self) -> int:
        """The answer, counted."""
        self.calls.append(1)
        return 42


def test_computed_once_per_instance_and_stored_on_it() -> None:
    one, two = Counted(), Counted()
    assert one.answer == 42 and one.answer == 42
    assert one.calls == [1] and two.calls == []
    assert one.__dict__["answer"] == 42
    assert two.answer == 42 and two.calls == [1]


def test_the_class_attribute_is_the_descriptor_with_the_docstring() -> None:
    descriptor = Counted.__dict__["answer"]
    assert Counted.answer is descriptor
    assert descriptor.__doc__ == "The answer, counted."


def test_an_assigned_value_wins() -> None:
    item = Counted()
    item.answer = 7
    assert item.answer == 7 and item.calls == []
