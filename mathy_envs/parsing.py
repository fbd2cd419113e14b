"""Parse problem texts once and share the read-only trees.

Every environment and state turns problem text into a mathy_core expression tree
through an `ExpressionCache`: a bounded LRU map from text to a `ParsedExpression`,
which holds the tree and (computed on first use) the flat node arrays that masks and
observations are built from.

Cached trees are read-only. A step needs one tree it may change: `take_tree` hands
over the cached tree itself when no caller outside the library has seen it (the
entry leaves the cache, and the text is parsed again if it is needed later), and a
copy otherwise. Entries given out through public APIs are marked `shared` and are
never handed over.
"""

from functools import cached_property
from typing import Dict, List, Optional, Tuple
from weakref import WeakKeyDictionary

import numpy as np
import numpy.typing as npt
from mathy_core import (
    BaseRule,
    ConstantExpression,
    ExpressionChangeRule,
    ExpressionParser,
    MathExpression,
    MathTypeKeys,
)

from .lru import LRUCache

DEFAULT_CACHE_SIZE = 2048
MAX_TYPE_ID: int = max(MathTypeKeys.values())
"""mathy_core's largest node type id: normalized type ids are `type_id / MAX_TYPE_ID`."""


class ParsedExpression:
    """A problem text, its parsed tree and the tree's node arrays.

    Node arrays are indexed by action index: node `i` is the `i`-th node from the
    left (in-order traversal), the node that mask column `i` refers to.
    """

    def __init__(self, text: str, tree: MathExpression) -> None:
        self.text = text
        self.tree = tree
        self.shared = False

    @cached_property
    def layout(self) -> "NodeLayout":
        return NodeLayout(self.tree)

    @property
    def nodes(self) -> List[MathExpression]:
        """The tree's nodes in action (in-order) order."""
        return self.layout.nodes

    def __len__(self) -> int:
        return len(self.layout.nodes)

    def rewrite(self, rule: BaseRule, index: int) -> ExpressionChangeRule:
        """Apply `rule` at the `index`-th node (in-order) of a copy of the tree;
        the cached tree is left untouched. The new expression is
        `change.result.get_root()`."""
        return apply_rule(self.tree.clone(), rule, index, self.text)


def apply_rule(
    tree: MathExpression, rule: BaseRule, index: int, text: str = ""
) -> ExpressionChangeRule:
    """Apply `rule` at the `index`-th node (in-order) of `tree`, changing it. The
    caller checks that the rule applies there. The new expression is
    `change.result.get_root()`."""
    node = node_at_index(tree, index)
    if node is None:
        raise ValueError(f"no node {index} in {text or str(tree)!r}")
    change = rule.apply_to(node)
    if change.result is None:
        change.result = node
    return change


def node_at_index(tree: MathExpression, index: int) -> Optional[MathExpression]:
    """The node `index` places from the left of `tree` (in-order), or None."""
    if index < 0:
        return None
    count = 0
    stack: List[MathExpression] = []
    current: Optional[MathExpression] = tree
    while stack or current is not None:
        while current is not None:
            stack.append(current)
            current = current.left
        visited = stack.pop()
        if count == index:
            return visited
        count += 1
        current = visited.right
    return None


class NodeLayout:
    """Flat arrays describing one tree, all indexed by action (in-order) index.

    The node list, pre-order and features come from a single traversal; the
    parent / depth / edge arrays that only structured observations use are
    computed on first use.
    """

    nodes: List[MathExpression]
    preorder: npt.NDArray[np.intp]
    type_ids: npt.NDArray[np.float32]
    values: npt.NDArray[np.float32]
    is_leaf: npt.NDArray[np.float32]

    def __init__(self, root: MathExpression) -> None:
        nodes: List[MathExpression] = []
        # preorder[p] = in-order index of the p-th node in pre-order; parents and
        # depths are kept by pre-order position until the walk is done.
        preorder: List[int] = []
        parent_pre: List[int] = []
        depth_pre: List[int] = []
        right_pre: List[bool] = []
        stack: List[Tuple[MathExpression, int]] = []
        node: Optional[MathExpression] = root
        parent, depth, is_right = -1, 0, False
        while True:
            # Descend the left spine, numbering nodes in pre-order on the way down.
            while node is not None:
                position = len(preorder)
                preorder.append(-1)
                parent_pre.append(parent)
                depth_pre.append(depth)
                right_pre.append(is_right)
                stack.append((node, position))
                parent, depth, is_right = position, depth + 1, False
                node = node.left
            if not stack:
                break
            visited, position = stack.pop()
            preorder[position] = len(nodes)
            nodes.append(visited)
            node = visited.right
            parent, depth, is_right = position, depth_pre[position] + 1, True
        self.nodes = nodes
        self.preorder = np.asarray(preorder, dtype=np.intp)
        self._parent_pre = parent_pre
        self._depth_pre = depth_pre
        self._right_pre = right_pre
        self.type_ids = np.asarray([n.type_id for n in nodes], dtype=np.float32)
        self.values = np.asarray(
            [
                float(n.value or 0.0) if isinstance(n, ConstantExpression) else 0.0
                for n in nodes
            ],
            dtype=np.float32,
        )
        self.is_leaf = np.asarray(
            [n.left is None and n.right is None for n in nodes], dtype=np.float32
        )
        self._preordered: Dict[
            bool, Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
        ] = {}

    @cached_property
    def depth(self) -> npt.NDArray[np.int32]:
        depths = np.empty(len(self.nodes), np.int32)
        depths[self.preorder] = self._depth_pre
        return depths

    @cached_property
    def parent(self) -> npt.NDArray[np.int64]:
        """In-order index of each node's parent (-1 for the root)."""
        parent_pre = np.asarray(self._parent_pre, dtype=np.int64)
        parent_in = np.where(
            parent_pre >= 0, self.preorder[np.maximum(parent_pre, 0)], -1
        )
        parents = np.empty(len(self.nodes), np.int64)
        parents[self.preorder] = parent_in
        return parents

    @cached_property
    def side(self) -> npt.NDArray[np.int64]:
        """0 for a left child, 1 for a right child, -1 for the root."""
        sides = np.empty(len(self.nodes), np.int64)
        sides[self.preorder] = self._right_pre
        if len(self.nodes):
            sides[self.preorder[0]] = -1
        return sides

    @cached_property
    def levelorder(self) -> npt.NDArray[np.intp]:
        """In-order indexes level by level, left to right within a level."""
        return np.argsort(self.depth, kind="stable")

    @cached_property
    def edge_index(self) -> npt.NDArray[np.int64]:
        """Edges parent -> child (2, n - 1), in the pre-order of the child."""
        children = self.preorder[1:].astype(np.int64)
        return np.stack([self.parent[children], children])

    @cached_property
    def edge_types(self) -> npt.NDArray[np.int64]:
        return self.side[self.preorder[1:]]

    @cached_property
    def max_depth(self) -> int:
        return int(self.depth.max()) if len(self.nodes) else 0

    def preordered(
        self, normalize: bool
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Type ids and values in pre-order (normalized or raw), cached."""
        cache = self._preordered
        if normalize not in cache:
            types = self.normalized_type_ids if normalize else self.type_ids
            values = self.normalized_values if normalize else self.values
            cache[normalize] = (types[self.preorder], values[self.preorder])
        return cache[normalize]

    @cached_property
    def normalized_type_ids(self) -> npt.NDArray[np.float32]:
        return np.asarray(self.type_ids / np.float32(MAX_TYPE_ID), dtype=np.float32)

    @cached_property
    def normalized_values(self) -> npt.NDArray[np.float32]:
        """Values min-max scaled over the expression's nodes (all equal -> 0)."""
        values = self.values
        if len(values) == 0:
            return values
        low = values.min()
        span = values.max() - low
        if span <= 0:
            return np.zeros_like(values)
        return np.asarray((values - low) / span, dtype=np.float32)


class ExpressionCache:
    """A bounded LRU cache of parsed problem texts for one parser."""

    def __init__(
        self, parser: Optional[ExpressionParser] = None, capacity: int = DEFAULT_CACHE_SIZE
    ) -> None:
        self.parser = parser if parser is not None else ExpressionParser()
        self._entries: LRUCache[str, ParsedExpression] = LRUCache(capacity)

    def parse(self, text: str) -> ParsedExpression:
        """Return the parsed form of `text`, parsing it only if it is not cached.

        Raises `ValueError` quoting the text and the parser's complaint when the
        text does not parse.
        """
        entry = self._entries.get(text)
        if entry is None:
            entry = ParsedExpression(text, parse_text(self.parser, text))
            self._entries.put(text, entry)
        return entry

    def take_tree(self, text: str) -> MathExpression:
        """A tree equal to `parse(text).tree` that the caller owns and may change:
        the cached tree itself when it was never shared (its entry leaves the
        cache), else a copy, else a fresh parse."""
        entry = self._entries.get(text)
        if entry is None:
            return parse_text(self.parser, text)
        if entry.shared:
            return entry.tree.clone()
        self._entries.pop(text)
        return entry.tree

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def parse_text(parser: ExpressionParser, text: str) -> MathExpression:
    """Parse `text` into a fresh tree, raising `ValueError` on bad input."""
    if not isinstance(text, str):
        raise ValueError(f"problem text must be a str, got {type(text).__name__}")
    try:
        tree = parser.parse(text)
    except Exception as error:
        complaint = getattr(error, "message", None) or str(error) or type(error).__name__
        raise ValueError(f"cannot parse problem text {text!r}: {complaint}") from error
    finally:
        # mathy_core's parser keeps every text it has seen; our cache is the bounded
        # one, so keep the parser's own cache empty.
        parser.clear_cache()
    return tree


_caches: "WeakKeyDictionary[ExpressionParser, ExpressionCache]" = WeakKeyDictionary()
_default_parser = ExpressionParser()


def default_parser() -> ExpressionParser:
    """The parser shared by every env and state that is not given its own."""
    return _default_parser


def expression_cache(parser: Optional[ExpressionParser] = None) -> ExpressionCache:
    """The shared cache for `parser` (the module's default parser when None)."""
    key = parser if parser is not None else _default_parser
    cache = _caches.get(key)
    if cache is None:
        cache = ExpressionCache(key)
        _caches[key] = cache
    return cache


def parse(text: str, parser: Optional[ExpressionParser] = None) -> ParsedExpression:
    """Parse `text` through the cache of `parser`, for use inside the library:
    the entry is not marked shared, so its tree may later be handed to a step to
    change. Use `MathyEnv.parse` (or clone the tree) to keep a tree."""
    return expression_cache(parser).parse(text)


__all__ = (
    "DEFAULT_CACHE_SIZE",
    "ExpressionCache",
    "NodeLayout",
    "apply_rule",
    "ParsedExpression",
    "default_parser",
    "expression_cache",
    "node_at_index",
    "parse",
    "parse_text",
)
