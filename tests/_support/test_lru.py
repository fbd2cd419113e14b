"""The bounded caches behind parsed trees, masks and goal checks."""

import pickle
import threading

import pytest

from mathy_envs._support.lru import LRUCache, Memo


def test_lru_cache_evicts_the_least_recently_used() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the least recently used
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3
    assert cache.pop("a") == 1 and cache.pop("a") is None and len(cache) == 1


def test_memo_keeps_at_most_its_capacity_and_empties_when_full() -> None:
    memo: Memo[int, str] = Memo(3)
    for key in range(3):
        assert memo.put(key, str(key)) == str(key)
    assert [memo.get(key) for key in range(3)] == ["0", "1", "2"]
    memo.put(3, "3")
    assert len(memo) == 1 and memo.get(3) == "3" and memo.get(0) is None


@pytest.mark.parametrize("kind", [LRUCache, Memo])
def test_caches_pickle_empty_with_their_capacity(kind: type) -> None:
    cache = kind(5)
    cache.put("x", 1)
    copy = pickle.loads(pickle.dumps(cache))
    assert len(copy) == 0 and copy.capacity == 5 and copy.get("x") is None
    copy.put("y", 2)
    assert copy.get("y") == 2 and cache.get("y") is None


@pytest.mark.parametrize("kind", [LRUCache, Memo])
def test_a_capacity_below_one_is_refused(kind: type) -> None:
    with pytest.raises(ValueError, match="capacity must be at least 1, got 0"):
        kind(0)


def test_a_memo_shared_by_threads_only_ever_holds_right_answers() -> None:
    memo: Memo[int, int] = Memo(50)
    wrong = []

    def work(offset: int) -> None:
        for step in range(20000):
            key = (step * 7 + offset) % 120
            answer = memo.get(key)
            if answer is None:
                answer = memo.put(key, key * key)
            if answer != key * key:
                wrong.append((key, answer))

    threads = [threading.Thread(target=work, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong and len(memo) <= 50


def test_asking_again_for_the_last_entry_keeps_the_lru_order_exact() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1 and cache.get("a") == 1  # the second: the last entry
    cache.put("c", 3)  # evicts b, the least recently used
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3
    cache.put("c", 4)  # a new value for the last key
    assert cache.get("c") == 4


def test_a_removed_or_cleared_last_entry_is_gone() -> None:
    cache: LRUCache[str, int] = LRUCache(4)
    cache.put("a", 1)
    assert cache.pop("a") == 1 and cache.get("a") is None
    cache.put("b", 2)
    assert cache.get("b") == 2
    cache.clear()
    assert cache.get("b") is None and len(cache) == 0


def test_the_last_entry_matches_keys_as_a_dict_does() -> None:
    class Caseless(str):
        """Equal to any casing of itself, hashed as a str."""

        def __eq__(self, other: object) -> bool:
            return isinstance(other, str) and self.lower() == other.lower()

        __hash__ = str.__hash__

    cache: LRUCache[str, int] = LRUCache(4)
    cache.put(Caseless("AB"), 1)
    # Equal by ==, but another hash: a dict would not find it, nor may the cache.
    assert cache.get("ab") is None
    assert cache.get("AB") == 1
