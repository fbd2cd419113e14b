"""Parse problem texts once and share the read-only trees.

Every environment and state turns problem text into a mathy_core expression tree
through an `ExpressionCache`: a bounded LRU map from text to a `ParsedExpression`,
which holds the tree and (computed on first use) the flat node arrays that masks and
observations are built from. Trees handed out by the cache are shared: callers must
`clone()` a tree before applying a rule to it.
"""

from collections import OrderedDict
from functools import cached_property
from typing import List, Optional, Tuple
from weakref import WeakKeyDictionary

import numpy as np
import numpy.typing as npt
from mathy_core import (
    BaseRule,
    ConstantExpression,
    ExpressionChangeRule,
    ExpressionParser,
    MathExpression,
)

DEFAULT_CACHE_SIZE = 2048


class ParsedExpression:
    """A problem text, its parsed tree and the tree's node arrays.

    Node arrays are indexed by action index: node `i` is the `i`-th node from the
    left (in-order traversal), the node that mask column `i` refers to.
    """

    def __init__(self, text: str, tree: MathExpression) -> None:
        self.text = text
        self.tree = tree

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
        """Apply `rule` at the `index`-th node (in-order) of a clone of the tree;
        the shared tree is left untouched. The caller checks that the rule applies.
        The new expression is `change.result.get_root()`."""
        node = node_at_index(self.tree.clone(), index)
        if node is None:
            raise ValueError(f"no node {index} in {self.text!r} ({len(self)} nodes)")
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
    """Flat arrays describing one tree, computed with a single traversal."""

    nodes: List[MathExpression]
    type_ids: npt.NDArray[np.float32]
    values: npt.NDArray[np.float32]
    is_leaf: npt.NDArray[np.float32]
    depth: npt.NDArray[np.int32]
    parent: npt.NDArray[np.int64]
    side: npt.NDArray[np.int64]
    preorder: npt.NDArray[np.intp]
    levelorder: npt.NDArray[np.intp]
    edge_index: npt.NDArray[np.int64]
    edge_types: npt.NDArray[np.int64]

    def __init__(self, root: MathExpression) -> None:
        inorder: List[MathExpression] = []
        # Per pre-order position: in-order index, depth, parent's pre index, side.
        in_of_pre: List[int] = []
        depth_pre: List[int] = []
        parent_pre: List[int] = []
        side_pre: List[int] = []

        # Iterative pre-order walk that also records in-order positions: a node is
        # pushed once to be expanded, then again as a marker (carrying its pre-order
        # index) that is popped after its left subtree, at its in-order position.
        stack: List[Tuple[MathExpression, int, int, int, bool]] = [
            (root, 0, -1, -1, False)
        ]
        while stack:
            node, depth_or_pre, parent_pre_index, side_of_parent, is_marker = stack.pop()
            if is_marker:
                in_of_pre[depth_or_pre] = len(inorder)
                inorder.append(node)
                continue
            pre_index = len(in_of_pre)
            in_of_pre.append(-1)
            depth_pre.append(depth_or_pre)
            parent_pre.append(parent_pre_index)
            side_pre.append(side_of_parent)
            if node.right is not None:
                stack.append((node.right, depth_or_pre + 1, pre_index, 1, False))
            stack.append((node, pre_index, -1, -1, True))
            if node.left is not None:
                stack.append((node.left, depth_or_pre + 1, pre_index, 0, False))

        n = len(inorder)
        in_of_pre_arr = np.asarray(in_of_pre, dtype=np.intp)
        self.nodes = inorder
        self.preorder = in_of_pre_arr
        self.type_ids = np.asarray([node.type_id for node in inorder], np.float32)
        self.values = np.asarray(
            [
                float(node.value or 0.0) if isinstance(node, ConstantExpression) else 0.0
                for node in inorder
            ],
            np.float32,
        )
        self.is_leaf = np.asarray(
            [node.left is None and node.right is None for node in inorder], np.float32
        )
        depths = np.empty(n, np.int32)
        depths[in_of_pre_arr] = depth_pre
        self.depth = depths
        parent_pre_arr = np.asarray(parent_pre, dtype=np.int64)
        parent_in = np.where(
            parent_pre_arr >= 0, in_of_pre_arr[np.maximum(parent_pre_arr, 0)], -1
        )
        parents = np.empty(n, np.int64)
        parents[in_of_pre_arr] = parent_in
        self.parent = parents
        sides = np.empty(n, np.int64)
        sides[in_of_pre_arr] = side_pre
        self.side = sides
        self.levelorder = np.argsort(depths, kind="stable")
        # Edges parent -> child, listed in the pre-order of the child.
        children = in_of_pre_arr[1:]
        self.edge_index = np.stack([parents[children], children.astype(np.int64)])
        self.edge_types = sides[children]
        self.max_depth = int(depths.max()) if n else 0


class ExpressionCache:
    """A bounded LRU cache of parsed problem texts for one parser."""

    def __init__(
        self, parser: Optional[ExpressionParser] = None, capacity: int = DEFAULT_CACHE_SIZE
    ) -> None:
        if capacity < 1:
            raise ValueError(f"cache capacity must be at least 1, got {capacity}")
        self.parser = parser if parser is not None else ExpressionParser()
        self.capacity = capacity
        self._entries: "OrderedDict[str, ParsedExpression]" = OrderedDict()
        self.misses = 0

    def parse(self, text: str) -> ParsedExpression:
        """Return the parsed form of `text`, parsing it only if it is not cached.

        Raises `ValueError` quoting the text and the parser's complaint when the
        text does not parse.
        """
        entries = self._entries
        entry = entries.get(text)
        if entry is not None:
            entries.move_to_end(text)
            return entry
        entry = ParsedExpression(text, parse_text(self.parser, text))
        self.misses += 1
        entries[text] = entry
        if len(entries) > self.capacity:
            entries.popitem(last=False)
        return entry

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
    """Parse `text` through the shared cache of `parser`."""
    return expression_cache(parser).parse(text)


__all__ = (
    "DEFAULT_CACHE_SIZE",
    "ExpressionCache",
    "NodeLayout",
    "ParsedExpression",
    "default_parser",
    "expression_cache",
    "node_at_index",
    "parse",
    "parse_text",
)
