"""The caches of parsed texts: each thread's bounded LRU map from problem text to
a `ParsedExpression`, one per parser, and `parse` through them.

Every environment and state turns problem text into a mathy_core expression tree
through an `ExpressionCache`. A text is parsed and admitted (`admit`) once, when
it is first seen; its entry (the tree and, computed on first use, the node
arrays that masks and observations are built from) is then shared, read-only.

A step needs one tree it may change: `take_tree` hands over the cached tree
itself when it was never marked `shared` (the entry leaves the cache, and the
text is parsed again if it is needed later), and a copy otherwise.

Threads: every thread has its own caches (`expression_cache`), so a tree handed
over by `take_tree` is never one another thread is reading, and each parser is
used under its lock (`parser_lock`).
"""

import threading
from typing import Dict, Optional
from weakref import WeakKeyDictionary

from mathy_core import ExpressionParser, MathExpression

from .admission import admit
from .expressions import ParsedExpression
from ..limits import check_text, quote
from .._support.lru import LRUCache
from .parsers import default_parser, new_parser, parse_locked, parse_with_native, parser_lock
from .tree_edits import copy_tree, node_at_index

DEFAULT_CACHE_SIZE = 2048


class ExpressionCache:
    """A bounded LRU cache of parsed, admitted problem texts for one parser.

    Use one per thread (`expression_cache` does): `take_tree` hands over trees
    that other users of the same cache may be reading.
    """

    def __init__(
        self, parser: Optional[ExpressionParser] = None, capacity: int = DEFAULT_CACHE_SIZE
    ) -> None:
        self.parser = parser if parser is not None else new_parser()
        self._entries: LRUCache[str, ParsedExpression] = LRUCache(capacity)

    @property
    def parser(self) -> ExpressionParser:
        """The mathy_core parser texts are parsed with."""
        return self._parsing[0]

    @parser.setter
    def parser(self, parser: ExpressionParser) -> None:
        # The parser and its lock in one attribute, so that no thread reads the
        # one without the other.
        self._parsing = (parser, parser_lock(parser))

    def __getstate__(self) -> Dict[str, object]:
        # Locks don't pickle: keep the parser and the (empty) entries.
        return {"parser": self.parser, "entries": self._entries}

    def __setstate__(self, state: Dict[str, object]) -> None:
        self.parser = state["parser"]  # type: ignore[assignment]
        self._entries = state["entries"]  # type: ignore[assignment]

    def parse(self, text: str) -> ParsedExpression:
        """Return the parsed form of `text`, parsing it only if it is not cached.

        Raises `ValueError` quoting the text and the parser's complaint when the
        text does not parse, or naming the limit it is outside of.
        """
        entry = self._cached(text)
        if entry is None:
            entry = ParsedExpression(text, *parse_with_native(*self._parsing, text))
            admit(entry)
            self._entries.put(text, entry)
        return entry

    def _cached(self, text: str) -> Optional[ParsedExpression]:
        """The cached entry of `text`, or None (`ValueError` if it is no text)."""
        if type(text) is not str and not isinstance(text, str):
            check_text(text)  # a ValueError naming the type; never hash it
        return self._entries.get(text)

    def _hand_over(self, entry: ParsedExpression) -> MathExpression:
        """Remove an unshared entry and give its tree to the caller."""
        self._entries.pop(entry.text)
        layout = entry.__dict__.get("layout")
        if layout is not None:
            layout._detach()
        return entry.tree

    def take_tree(self, text: str) -> MathExpression:
        """A tree equal to `parse(text).tree` that the caller owns and may change:
        the cached tree itself when it was never shared (its entry leaves the
        cache), else a copy, else a fresh parse."""
        entry = self._cached(text)
        if entry is None:
            return parse_locked(*self._parsing, text)
        if entry.shared:
            return copy_tree(entry.tree)
        return self._hand_over(entry)

    def take_node(self, text: str, index: int) -> MathExpression:
        """The `index`-th node (in-order) of `take_tree(text)`; `ValueError` if the
        tree has no such node."""
        entry = self._cached(text)
        if entry is not None and not entry.shared and 0 <= index < len(entry):
            # The cached tree itself, whose nodes are listed already.
            self._hand_over(entry)
            return entry.nodes[index]
        node = node_at_index(self.take_tree(text), index)
        if node is None:
            raise ValueError(f"no node {index} in {quote(text)}")
        return node

    def forget(self, text: str) -> None:
        """Drop the entry of `text` where `take_tree` would hand the cached tree
        over (an entry never shared): a step done by the native core leaves the
        tree alone, and forgetting its text keeps the cache (and the garbage
        collector's work) as small as the pure-Python step leaves it."""
        entry = self._cached(text)
        if entry is not None and not entry.shared:
            self._entries.pop(text)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class _ThreadCaches(threading.local):
    def __init__(self) -> None:
        self.by_parser: "WeakKeyDictionary[ExpressionParser, ExpressionCache]" = (
            WeakKeyDictionary()
        )
        # The default parser has no settings: each thread gets its own, so
        # threads never wait for each other's parses.
        self.default = ExpressionCache()


_thread_caches = _ThreadCaches()
_default_parser = default_parser()


def expression_cache(parser: Optional[ExpressionParser] = None) -> ExpressionCache:
    """This thread's cache for `parser` (the default parser, `default_parser()`,
    when None)."""
    if parser is None or parser is _default_parser:
        return _thread_caches.default
    caches = _thread_caches.by_parser
    cache = caches.get(parser)
    if cache is None:
        cache = caches[parser] = ExpressionCache(parser)
    return cache


def parse(text: str, parser: Optional[ExpressionParser] = None) -> ParsedExpression:
    """Parse `text` through this thread's cache of `parser`, for use inside the
    library: the entry is not marked shared, so its tree may later be handed to a
    step to change. Use `MathyEnv.parse` (or clone the tree) to keep a tree."""
    return expression_cache(parser).parse(text)


__all__ = ("DEFAULT_CACHE_SIZE", "ExpressionCache", "expression_cache", "parse")
