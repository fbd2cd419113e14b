"""`NodeLayout`: the flat node arrays of one tree, all indexed by action index.

This module owns the layout and what only it uses: `MAX_TYPE_ID` (normalized
type ids are divided by it) and the read-only arrays it hands out. The layout is
made from one walk of the tree (`walk.py`); subtree shapes are written by
`shapes.py`. A `ParsedExpression` (`expressions.py`) computes the layout of its
tree on first use; masks, observations and term finding read it.
"""

import struct
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

import numpy as np
import numpy.typing as npt
from mathy_core import MathExpression, MathTypeKeys

from .._support.frozen import frozen
from .._support.lazy import lazy
from .shapes import subtree_shapes
from .walk import IndexWalk, TreeWalk, walk_tree

MAX_TYPE_ID: int = max(MathTypeKeys.values())
"""mathy_core's largest node type id: normalized type ids are `type_id / MAX_TYPE_ID`."""
NODE_COLUMNS = 4
"""The columns of `NodeLayout.feature_rows`: `[type_id, value, time, is_leaf]`."""


class NodeLayout:
    """Flat arrays describing one tree, all indexed by action (in-order) index.

    The node list, pre-order, type ids and values come from a single traversal;
    the leaf flags, parent / depth / edge arrays and subtree shapes are computed
    on first use.

    A layout is computed once per cached text and every caller (the masks, each
    observation type, custom ones included) gets the same one, so nothing it
    hands out can be changed: its numpy arrays are read-only (writing into one
    raises a `ValueError`, "assignment destination is read-only"; copy it first,
    `array.copy()`), its sequences are tuples and its attributes can't be set.
    `preorder_lists` returns new lists. A layout keeps describing the tree it was
    made from even once that tree has been handed to a step to rewrite, except
    for `nodes`: those are the tree's own nodes. The layouts given to user code
    are made from a private copy of the tree (`private_entry`), so their nodes are
    the user's own.
    """

    levels: int
    """The number of levels of the tree (a single node has one)."""
    _preorder: List[int]
    _parent_pre: List[int]
    _type_ids_pre: List[int]
    _values_pre: List[float]
    _type_ids: List[int]
    _values: List[float]
    _exact: bool
    _preordered: Dict[bool, Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]
    _feature_rows: Dict[bool, npt.NDArray[np.float32]]
    _adjacency_index: Dict[int, npt.NDArray[np.int64]]

    def __init__(self, root: MathExpression, walk: Optional[TreeWalk] = None) -> None:
        """The layout of the tree under `root`; `walk` is that tree's `walk_tree`
        when the caller has it already."""
        walked = walk_tree(root) if walk is None else walk
        self._fill(*walked)

    @classmethod
    def of_nodes(
        cls, walk: IndexWalk, nodes: Callable[[], Sequence[MathExpression]]
    ) -> "NodeLayout":
        """The layout of a tree known by its walk before its nodes exist (the
        native core's): `walk` is `walk_tree`'s with each node's index into
        `nodes()` in place of the node, and `nodes()` makes the nodes when they
        are first read."""
        layout = cls.__new__(cls)
        order, levels, preorder, parent_pre, type_ids_pre, values_pre, type_ids, values, exact = (
            walk
        )
        layout._fill(
            None, levels, preorder, parent_pre, type_ids_pre, values_pre, type_ids, values, exact
        )
        layout.__dict__["_made_nodes"] = (order, nodes)
        return layout

    def _fill(
        self,
        nodes: Optional[List[MathExpression]],
        levels: int,
        preorder: List[int],
        parent_pre: List[int],
        type_ids_pre: List[int],
        values_pre: List[float],
        type_ids: List[int],
        values: List[float],
        exact: bool,
    ) -> None:
        preordered: Dict[bool, Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = {}
        # Set through __dict__: the layout refuses attribute assignment.
        if nodes is not None:
            self.__dict__["nodes"] = tuple(nodes)
        self.__dict__.update(
            levels=levels,
            _preorder=preorder,
            _parent_pre=parent_pre,
            _type_ids_pre=type_ids_pre,
            _values_pre=values_pre,
            _type_ids=type_ids,
            _values=values,
            # Every value is a whole number float32 holds exactly, so the Python
            # floats of the value lists are the float32 values themselves.
            _exact=exact,
            _preordered=preordered,
            _feature_rows={},
            _adjacency_index={},
        )

    @lazy
    def nodes(self) -> Tuple[MathExpression, ...]:
        """The tree's nodes, in action (in-order) order."""
        order, made = self.__dict__["_made_nodes"]
        all_nodes = made()
        return tuple(all_nodes[index] for index in order)

    def __len__(self) -> int:
        """The number of nodes (of action indexes)."""
        return len(self._preorder)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"a NodeLayout is shared and read-only: can't set {name!r} "
            "(copy the arrays you need, `array.copy()`)"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a NodeLayout is shared and read-only: can't delete {name!r}")

    def _detach(self) -> None:
        """The layout's tree is being handed to a step to rewrite (`take_tree`):
        what is computed from the nodes from now on would describe the rewritten
        tree, so shapes not computed yet never will be. Every other attribute is
        computed from lists the layout made of the tree when it was created."""
        self.__dict__.setdefault("shapes", None)

    @lazy
    def preorder(self) -> npt.NDArray[np.intp]:
        """In-order index of each node, by pre-order position."""
        return _read_only(np.asarray(self._preorder, dtype=np.intp))

    @lazy
    def type_ids(self) -> npt.NDArray[np.float32]:
        """mathy_core's type id of each node."""
        return _read_only(_float32s(self._type_ids))

    @lazy
    def values(self) -> npt.NDArray[np.float32]:
        """The value of each constant node, 0.0 for other nodes."""
        return _read_only(np.asarray(self._values, dtype=np.float32))

    def preorder_lists(self) -> Tuple[List[int], List[float]]:
        """Type ids and values in pre-order, as new lists of Python numbers
        (values rounded to float32, as in `values`)."""
        if self._exact:
            return list(self._type_ids_pre), list(self._values_pre)
        rounded: List[float] = np.asarray(self._values_pre, dtype=np.float32).tolist()
        return list(self._type_ids_pre), rounded

    @lazy
    def _edge_parents(self) -> List[int]:
        """In-order index of the parent of each node but the root, in pre-order
        (pre-order position 0 is the root; every later one has a parent)."""
        order = self._preorder
        return [order[parent] for parent in self._parent_pre[1:]]

    @lazy
    def is_leaf(self) -> npt.NDArray[np.float32]:
        """1 for a node without children, else 0."""
        flags = bytearray(b"\x01") * len(self._preorder)
        for parent in self._edge_parents:
            flags[parent] = 0
        return _read_only(np.frombuffer(flags, dtype=np.uint8).astype(np.float32))

    @lazy
    def _parent_in(self) -> List[int]:
        """In-order index of each node's parent (-1 for the root), by in-order index."""
        order = self._preorder
        parents = [-1] * len(order)
        for position, parent in enumerate(self._parent_pre):
            if parent >= 0:
                parents[order[position]] = order[parent]
        return parents

    @lazy
    def _depth_pre(self) -> List[int]:
        """Depth of each node, by pre-order position (parents come first)."""
        depths: List[int] = []
        for parent in self._parent_pre:
            depths.append(depths[parent] + 1 if parent >= 0 else 0)
        return depths

    @lazy
    def _right_pre(self) -> List[bool]:
        """Whether each node is a right child, by pre-order position: a right
        child comes after its parent in-order, a left child before."""
        order = self._preorder
        return [
            parent >= 0 and order[position] > order[parent]
            for position, parent in enumerate(self._parent_pre)
        ]

    @property
    def root_index(self) -> int:
        """In-order index of the root (the node the layout was made from)."""
        return self._preorder[0]

    @lazy
    def children(self) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """In-order index of each node's left and of its right child (-1 for
        none), by in-order index."""
        order = self._preorder
        left = [-1] * len(order)
        right = [-1] * len(order)
        for position, parent in enumerate(self._parent_pre):
            if parent >= 0:
                index = order[position]
                above = order[parent]
                # A right child comes after its parent in-order, a left child before.
                if index > above:
                    right[above] = index
                else:
                    left[above] = index
        return tuple(left), tuple(right)

    @lazy
    def shapes(self) -> Optional[Tuple[str, ...]]:
        """A text per node (in-order) that equals another node's exactly when
        their subtrees are equal: the same node types in the same places, with the
        same constants (of the same type) and variables. None when the tree holds a
        node type other than those of `SHAPED_TYPES`, a variable whose name is not
        one ASCII letter, or a constant that is not an int or a float, and when
        the tree was handed to a step to rewrite before they were computed.

        The text is the subtree in prefix notation: a binary node's symbol
        (`SHAPE_SYMBOLS`) or, for a negation, `~<` or `~>` (its child on the left
        or on the right), then the shapes of its left and right sides (`_` for
        none); `#` and the digits of an integer constant, `%` and the `repr` of a
        float one then `;`, `$` and the name of a variable. Each part ends where
        the next one begins, so a text reads back into one tree only. Plain
        strings hold no references, so the garbage collector never tracks the
        many shapes that caches keep, and each computes its hash once."""
        found = subtree_shapes(self.nodes, self._preorder, self._parent_pre)
        if found is None:
            return None
        shapes, children = found
        self.__dict__.setdefault("children", children)
        return shapes

    @lazy
    def depth(self) -> npt.NDArray[np.int32]:
        depths = np.empty(len(self), np.int32)
        depths[self.preorder] = self._depth_pre
        return _read_only(depths)

    @lazy
    def parent(self) -> npt.NDArray[np.int64]:
        """In-order index of each node's parent (-1 for the root)."""
        return _read_only(np.asarray(self._parent_in, dtype=np.int64))

    @lazy
    def side(self) -> npt.NDArray[np.int64]:
        """0 for a left child, 1 for a right child, -1 for the root."""
        sides = np.empty(len(self), np.int64)
        sides[self.preorder] = self._right_pre
        if len(self):
            sides[self.preorder[0]] = -1
        return _read_only(sides)

    @lazy
    def levelorder(self) -> npt.NDArray[np.intp]:
        """In-order indexes level by level, left to right within a level."""
        return _read_only(np.argsort(self.depth, kind="stable"))

    @lazy
    def edge_index(self) -> npt.NDArray[np.int64]:
        """Edges parent -> child (2, n - 1), in the pre-order of the child."""
        parents = self._edge_parents
        # One flat list converts faster than a nested one.
        return _read_only(
            np.asarray(parents + self._preorder[1:], dtype=np.int64).reshape(2, len(parents))
        )

    def adjacency_index(self, length: int) -> npt.NDArray[np.int64]:
        """`parent * length + child` of each edge parent -> child (in-order
        indexes, in the order of `edge_index`): where an `(L, L)` adjacency
        matrix with `L = length` holds the edges, as flat indexes; cached per
        `length`, read-only."""
        cache = self._adjacency_index
        found = cache.get(length)
        if found is None:
            children = self._preorder[1:]
            flat = [parent * length + child for parent, child in zip(self._edge_parents, children)]
            found = cache[length] = np.frombuffer(
                struct.pack(f"{len(flat)}q", *flat), dtype=np.int64
            )
        return found

    @lazy
    def edge_types(self) -> npt.NDArray[np.int64]:
        return _read_only(self.side[self.preorder[1:]])

    @lazy
    def max_depth(self) -> int:
        return self.levels - 1 if len(self) else 0

    def preordered(
        self, normalize: bool
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Type ids and values in pre-order (normalized or raw), cached: the
        same two read-only arrays on every call."""
        cache = self._preordered
        found = cache.get(normalize)
        if found is None:
            # The numbers of `type_ids / MAX_TYPE_ID` and `_scaled`, made in
            # Python and frozen at once: a layout is most often observed once.
            types, values = _node_floats(
                self._type_ids_pre, self._values_pre, normalize, self._exact
            )
            rows = _frozen_floats(types + values, (2, len(types)))
            found = cache[normalize] = (rows[0], rows[1])
        return found

    def feature_rows(self, normalize: bool) -> npt.NDArray[np.float32]:
        """`(n, 4)` read-only float32 node features in action order, the time
        column zero: `[type_id, value, 0, is_leaf]`, normalized as
        `normalized_type_ids` and `normalized_values` are (or raw as `type_ids`
        and `values`); cached, the same array on every call."""
        cache = self._feature_rows
        found = cache.get(normalize)
        if found is None:
            count = len(self._preorder)
            types, values = _node_floats(self._type_ids, self._values, normalize, self._exact)
            # Row after row, in one list: `[type, value, 0, is_leaf]`.
            cells = [0.0] * (NODE_COLUMNS * count)
            cells[0::NODE_COLUMNS] = types
            cells[1::NODE_COLUMNS] = values
            leaves = [1.0] * count
            for parent in self._edge_parents:
                leaves[parent] = 0.0
            cells[3::NODE_COLUMNS] = leaves
            found = cache[normalize] = _frozen_floats(cells, (count, NODE_COLUMNS))
        return found

    @lazy
    def normalized_type_ids(self) -> npt.NDArray[np.float32]:
        normalized: npt.NDArray[np.float32] = self.type_ids / np.float32(MAX_TYPE_ID)
        return _read_only(normalized)

    @lazy
    def normalized_values(self) -> npt.NDArray[np.float32]:
        """Values min-max scaled over the expression's nodes (all equal -> 0)."""
        return _read_only(self._scaled(self.values))

    def _scaled(self, values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """`values` (this layout's values in some order) min-max scaled over the
        expression's nodes, in float32 (all equal -> 0)."""
        return _scaled_values(values, self._values_pre, self._exact)


def _scaled_values(
    values: npt.NDArray[np.float32], numbers: Sequence[float], exact: bool
) -> npt.NDArray[np.float32]:
    """`values` (a layout's values in some order, `numbers` the Python floats
    of its value list) min-max scaled over the expression's nodes, in float32
    (all equal -> 0)."""
    if len(values) == 0:
        return values
    if exact:
        # The same float32 numbers as the array's, found sooner.
        low = np.float32(min(numbers))
        span = np.float32(max(numbers)) - low
    else:
        # The array's own methods: np.min and np.max add a costly wrapper.
        low = values.min(axis=0)
        span = values.max(axis=0) - low
    if span <= 0:
        return np.zeros_like(values)
    scaled: npt.NDArray[np.float32] = (values - low) / span  # float32 throughout
    return scaled


_ArrayT = TypeVar("_ArrayT", bound="np.ndarray[Any, Any]")


def _read_only(array: _ArrayT) -> _ArrayT:
    """`array`, made read-only for good (`mathy_envs._support.frozen`): the arrays of a
    layout are shared by every caller."""
    return frozen(array)


def _node_floats(
    type_ids: List[int], values: List[float], normalize: bool, exact: bool
) -> Tuple[List[float], List[float]]:
    """A layout's type ids and values (in one order) as the Python floats of
    the float32 numbers its arrays hold: raw as `type_ids` and `values`, or
    normalized as `normalized_type_ids` and `normalized_values` are (`exact`:
    every value is a whole number float32 holds exactly).

    Computed in Python where that gives the same float32 numbers: a quotient
    or difference of two float32 numbers computed in double precision, then
    rounded to float32, is the float32 result (53 bits are more than twice 24
    plus 2, so the double rounding is innocuous). Type ids are whole numbers
    below 256 and values' differences whole numbers below 2**24, where they
    are so; elsewhere numpy's float32 arithmetic computes them."""
    if not normalize:
        return list(type_ids), list(values)
    try:
        bytes(type_ids)  # whole numbers from 0 to 255, exact in float32
        types = [type_id / MAX_TYPE_ID for type_id in type_ids]
    except (TypeError, ValueError):
        types = (_float32s(type_ids) / np.float32(MAX_TYPE_ID)).tolist()
    if not values:
        return types, []
    if exact:
        low, high = min(values), max(values)
        span = high - low
        if -_EXACT <= low and high <= _EXACT and span <= _EXACT_SPAN:
            if span <= 0:
                return types, [0.0] * len(values)
            return types, [(value - low) / span for value in values]
    scaled = _scaled_values(np.asarray(values, dtype=np.float32), values, exact)
    return types, scaled.tolist()


_EXACT = float(2**53)
"""Whole numbers up to this size are exact in double precision."""
_EXACT_SPAN = float(2**24)
"""Whole numbers up to this size are exact in float32."""


def _frozen_floats(numbers: List[float], shape: Tuple[int, ...]) -> npt.NDArray[np.float32]:
    """`numbers` as a float32 array of `shape`, each rounded as numpy rounds
    it, read-only for good (over immutable bytes, as `frozen` makes them)."""
    try:
        packed = struct.pack(f"{len(numbers)}f", *numbers)
    except OverflowError:  # past float32's range, where numpy gives inf
        return _read_only(np.asarray(numbers, dtype=np.float32).reshape(shape))
    return np.frombuffer(packed, dtype=np.float32).reshape(shape)


def _float32s(numbers: List[int]) -> npt.NDArray[np.float32]:
    """Whole numbers as a float32 array; through bytes when they are all from 0
    to 255 (such as mathy_core's type ids), a third cheaper than numpy's list
    conversion."""
    try:
        small = bytes(numbers)
    except (TypeError, ValueError):
        return np.asarray(numbers, dtype=np.float32)
    return np.frombuffer(small, dtype=np.uint8).astype(np.float32)


__all__ = ("MAX_TYPE_ID", "NodeLayout")
