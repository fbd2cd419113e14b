"""`LRUCache`: the one bounded cache used for parsed trees, masks and goal checks."""

import threading
from collections import OrderedDict
from typing import Any, Dict, Generic, Hashable, Optional, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """A dict bounded to `capacity` entries that evicts the least recently used.

    Caches hold derived data only, so they pickle empty. Every operation holds a
    lock: a cache may be shared by threads.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"cache capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self._entries: "OrderedDict[K, V]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> Optional[V]:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> V:
        with self._lock:
            entries = self._entries
            entries[key] = value
            if len(entries) > self.capacity:
                entries.popitem(last=False)
            return value

    def pop(self, key: K) -> Optional[V]:
        with self._lock:
            return self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __getstate__(self) -> Dict[str, Any]:
        return {"capacity": self.capacity}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(state["capacity"])  # type: ignore[misc]


__all__ = ("LRUCache",)
