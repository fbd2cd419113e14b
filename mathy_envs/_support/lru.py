"""Bounded caches: `LRUCache` for parsed trees, masks and goal checks, and the
lighter `Memo` for answers that are pure functions of their keys."""

import threading
from collections import OrderedDict
from typing import Any, Dict, Generic, Hashable, Optional, Tuple, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Bounded(Generic[K, V]):
    """What both caches share: a capacity of at least 1, size and membership, and
    pickling empty (they hold derived data only)."""

    _entries: Dict[K, V]

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(
                f"{type(self).__name__} capacity must be at least 1, got {capacity}"
            )
        self.capacity = capacity

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __getstate__(self) -> Dict[str, Any]:
        return {"capacity": self.capacity}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(state["capacity"])  # type: ignore[misc]


class LRUCache(_Bounded[K, V]):
    """A dict bounded to `capacity` entries that evicts the least recently used.

    Every operation holds a lock (a cache may be shared by threads), except
    asking again for the entry of the last `get` or `put`.
    """

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self._entries: "OrderedDict[K, V]" = OrderedDict()
        self._lock = threading.Lock()
        # The key (with its hash) and value of the last get or put, in one
        # tuple: that entry is already the most recently used, so asking for it
        # again needs neither the lock nor a reordering.
        self._last: Optional[Tuple[K, int, V]] = None

    def get(self, key: K) -> Optional[V]:
        last = self._last
        # The test a dict makes: the same object, or an equal hash and ==.
        if last is not None and (
            last[0] is key or (last[1] == hash(key) and last[0] == key)
        ):
            return last[2]
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
                self._last = (key, hash(key), value)
            return value

    def put(self, key: K, value: V) -> V:
        with self._lock:
            entries = self._entries
            entries[key] = value
            if len(entries) > self.capacity:
                entries.popitem(last=False)
            self._last = (key, hash(key), value)
            return value

    def pop(self, key: K) -> Optional[V]:
        with self._lock:
            self._last = None
            return self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._last = None
            self._entries.clear()


class Memo(_Bounded[K, V]):
    """A map bounded to `capacity` entries for answers that are pure functions of
    their keys: emptied when full, with no recency order and no lock.

    Each dict operation is atomic, and two threads racing on a key only compute
    the same answer twice, so it is safe to share.
    """

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self._entries = {}
        self.get = self._entries.get
        """The answer kept for a key, or None."""

    def put(self, key: K, value: V) -> V:
        entries = self._entries
        if len(entries) >= self.capacity:
            entries.clear()
        entries[key] = value
        return value

    def clear(self) -> None:
        self._entries.clear()


__all__ = ("LRUCache", "Memo")
