"""`lazy`: an attribute computed on first use and then stored on the instance.

It works like `functools.cached_property`, without the lock that Python 3.11's
version takes on every first use. Two threads that both read an attribute
before either has stored it compute it twice, and one value wins. Only use it
for pure functions of objects that do not change.
"""

from typing import Any, Callable, Generic, Optional, TypeVar, overload

T = TypeVar("T")


class lazy(Generic[T]):
    """Decorate a method without arguments: its result is stored in the
    instance's `__dict__` under the method's name on first use, and later reads
    find it there."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: Optional[type] = None) -> "lazy[T]": ...

    @overload
    def __get__(self, instance: object, owner: Optional[type] = None) -> T: ...

    def __get__(self, instance: Optional[object], owner: Optional[type] = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


__all__ = ("lazy",)
