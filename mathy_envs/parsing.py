"""Parse problem texts once and share the read-only trees.

Every environment and state turns problem text into a mathy_core expression tree
through an `ExpressionCache`: a bounded LRU map from text to a `ParsedExpression`,
which holds the tree and (computed on first use) the flat node arrays that masks and
observations are built from.

Cached trees are read-only. A step needs one tree it may change: `take_tree` hands
over the cached tree itself when it was never marked `shared` (the entry leaves
the cache, and the text is parsed again if it is needed later), and a copy
otherwise.

User code (anything defined outside the library, `is_library_code`) is never
given a cached tree: a user-written `transition_fn`, `is_goal`, reward scheme,
observation type or problem rejection test, and `MathyEnv.parse`, get a private
copy (`copy_tree`, `private_entry`), and a `NodeLayout` hands out read-only
arrays and tuples, so nothing user code does with them changes a later answer.

Threads: every thread has its own caches (`expression_cache`), so a tree handed
over by `take_tree` is never one another thread is reading, and each parser is
used by one thread at a time (mathy_core's parser keeps its position on itself).

Every text is admitted once, when it is first parsed: `admit` checks it against
the limits of `limits.py` and marks the trees on which mathy_core's rules can't
produce a constant that is out of range or inexact (`ParsedExpression.safe`).
"""

import math
import string
import threading
from types import MappingProxyType
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Tuple, TypeVar
from weakref import WeakKeyDictionary

import numpy as np
import numpy.typing as npt
from mathy_core import (
    AddExpression,
    EqualExpression,
    BaseRule,
    ConstantExpression,
    DivideExpression,
    ExpressionChangeRule,
    ExpressionParser,
    MathExpression,
    MathTypeKeys,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)

from .limits import (
    MAX_CONSTANT,
    MAX_DEPTH,
    MAX_NODES,
    check_constant,
    check_size,
    check_text,
    quote,
    shorten,
)
from .lazy import lazy
from .lru import LRUCache
from .tokenizing import PieceTokenizer
from .values import check_defined

DEFAULT_CACHE_SIZE = 2048
MAX_TYPE_ID: int = max(MathTypeKeys.values())
"""mathy_core's largest node type id: normalized type ids are `type_id / MAX_TYPE_ID`."""
SHAPE_SYMBOLS: Mapping[type, str] = MappingProxyType(
    {
        AddExpression: "+",
        DivideExpression: "/",
        MultiplyExpression: "*",
        PowerExpression: "^",
        SubtractExpression: "-",
    }
)
"""The symbol that opens the shape (`NodeLayout.shapes`) of a binary node of each
type."""
SHAPED_TYPES: FrozenSet[type] = frozenset(SHAPE_SYMBOLS) | {
    ConstantExpression,
    NegateExpression,
    VariableExpression,
}
"""The node types `NodeLayout.shapes` describes: those whose subtree is fully
told by their type, children, constant value, variable name or (negation) the
side of its child."""
INTEGER_SHAPE_SYMBOL = "#"
"""The symbol that opens the shape of an integer constant (its digits follow)."""
VARIABLE_SHAPE_SYMBOL = "$"
"""The symbol that opens the shape of a variable (its one-letter name follows)."""
CONSTANT_SHAPE_SYMBOLS: FrozenSet[str] = frozenset({INTEGER_SHAPE_SYMBOL, "%"})
"""The symbols that open the shape of an integer and of a float constant."""
NO_SHAPE = "_"
"""The shape written for a missing child."""
_SHAPE_SYMBOLS: Dict[type, str] = dict(SHAPE_SYMBOLS)
_SHAPE_LETTERS: FrozenSet[str] = frozenset(string.ascii_letters)
_SHAPE_INT = 10**100
"""Integer constants in shapes are written in decimal up to this size."""
_EXACT_INT = 2**24
"""Whole numbers up to this size are exact in float32."""
_CLASS_TYPE_IDS: Mapping[type, int] = {
    kind: kind().type_id
    for kind in (
        AddExpression,
        ConstantExpression,
        DivideExpression,
        EqualExpression,
        MultiplyExpression,
        NegateExpression,
        PowerExpression,
        SubtractExpression,
    )
}
"""mathy_core's `type_id` of each node type whose id does not depend on the node
(a plain dict, never changed: looking up in one is cheaper than in a read-only
proxy, and the layout does it for every node)."""
_VARIABLE_TYPE_IDS: Mapping[Optional[str], int] = {
    name: VariableExpression(name).type_id for name in string.ascii_letters
}
"""mathy_core's `type_id` of a variable, by one-letter name."""


class ParsedExpression:
    """A problem text, its parsed tree and the tree's node arrays.

    Node arrays are indexed by action index: node `i` is the `i`-th node from the
    left (in-order traversal), the node that mask column `i` refers to. While the
    entry is cached, every caller gets the same tree and layout and only reads
    them (a step that rewrites the tree takes it out of the cache, `take_tree`).
    """

    def __init__(self, text: str, tree: MathExpression) -> None:
        self.text = text
        self.tree = tree
        self.shared = False
        self.safe = False
        self.has_equation = False

    @lazy
    def layout(self) -> "NodeLayout":
        return NodeLayout(self.tree)

    @property
    def nodes(self) -> Tuple[MathExpression, ...]:
        """The tree's nodes in action (in-order) order."""
        return self.layout.nodes

    def __len__(self) -> int:
        return len(self.layout.nodes)

    def rewrite(self, rule: BaseRule, index: int) -> ExpressionChangeRule:
        """Apply `rule` at the `index`-th node (in-order) of a copy of the tree;
        the cached tree is left untouched. The new expression is
        `change.result.get_root()`."""
        return apply_rule(copy_tree(self.tree), rule, index, self.text)


def apply_rule(
    tree: MathExpression, rule: BaseRule, index: int, text: str = ""
) -> ExpressionChangeRule:
    """Apply `rule` at the `index`-th node (in-order) of `tree`, changing it. The
    caller checks that the rule applies there. The new expression is
    `change.result.get_root()`."""
    node = node_at_index(tree, index)
    if node is None:
        raise ValueError(f"no node {index} in {quote(text or str(tree))}")
    return apply_at(rule, node)


def apply_at(rule: BaseRule, node: MathExpression) -> ExpressionChangeRule:
    """Apply `rule` at `node`, changing its tree; the new expression is
    `change.result.get_root()`."""
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


_PACKAGE = __name__.partition(".")[0]


def is_library_code(function: object) -> bool:
    """Whether `function` (a function, or a method bound to an object) is defined
    in the mathy_envs package. Anything else (a method of a user's subclass, a
    lambda set on an instance, a callable object) counts as user code, which is
    given private copies of trees (`private_entry`, `copy_tree`)."""
    module = getattr(getattr(function, "__func__", function), "__module__", None)
    return type(module) is str and (module == _PACKAGE or module.startswith(_PACKAGE + "."))


def private_entry(entry: "ParsedExpression") -> "ParsedExpression":
    """A `ParsedExpression` of the same text over a copy of its tree: user code may
    keep or change it without touching the cached entry."""
    private = ParsedExpression(entry.text, copy_tree(entry.tree))
    private.safe = entry.safe
    private.has_equation = entry.has_equation
    return private


def copy_tree(tree: MathExpression) -> MathExpression:
    """A copy of `tree` and of everything under it that shares no node with it.

    Each node is copied with its attributes (class, id, value, variable name...),
    its own `classes` list and links to its own parent, children and (a unary
    node) child; the copy of `tree` has no parent, and links mathy_core may keep
    to other nodes (`cloned_node`, the renderer's `thread`) are None. Other
    attributes are copied as they are (mathy_core keeps only numbers, texts and
    flags there). The copy prints, evaluates and takes rules as `tree` does, in a
    sixth of the time of mathy_core's `tree.clone()` (which walks to the root
    from every node).
    """
    return _copy_node(tree, None)


def _copy_node(node: MathExpression, parent: Optional[MathExpression]) -> MathExpression:
    """A copy of `node` and its subtree, whose parent is `parent`."""
    result: MathExpression = object.__new__(type(node))
    attributes = node.__dict__.copy()
    attributes["parent"] = parent
    classes = attributes.get("classes")
    if type(classes) is list:
        attributes["classes"] = classes.copy()
    left, right = node.left, node.right
    left_copy = right_copy = None
    if left is not None:
        left_copy = attributes["left"] = _copy_node(left, result)
    if right is not None:
        right_copy = attributes["right"] = _copy_node(right, result)
    if "child" in attributes:
        # A unary node's child is one of its sides.
        child = attributes["child"]
        attributes["child"] = (
            None if child is None
            else left_copy if child is left
            else right_copy if child is right
            else None
        )
    if attributes.get("cloned_node") is not None:
        attributes["cloned_node"] = None
    if "thread" in attributes:
        attributes["thread"] = None
    result.__dict__ = attributes
    return result


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

    nodes: Tuple[MathExpression, ...]
    """The tree's nodes, in action (in-order) order."""
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

    def __init__(self, root: MathExpression) -> None:
        nodes: List[MathExpression] = []
        # Type ids and values by pre-order position, read on the way down, and
        # by in-order index.
        type_ids_pre: List[int] = []
        values_pre: List[float] = []
        type_ids: List[int] = []
        values: List[float] = []
        # preorder[p] = in-order index of the p-th node in pre-order; parents are
        # kept by pre-order position.
        preorder: List[int] = []
        parent_pre: List[int] = []
        stack: List[Tuple[MathExpression, int, int]] = []
        class_ids = _CLASS_TYPE_IDS
        variable_ids = _VARIABLE_TYPE_IDS
        constant = ConstantExpression
        low, high = -_EXACT_INT, _EXACT_INT
        node: Optional[MathExpression] = root
        parent, depth, levels = -1, 0, 0
        exact = True
        while True:
            # Descend the left spine, numbering nodes in pre-order on the way down.
            while node is not None:
                position = len(preorder)
                preorder.append(-1)
                parent_pre.append(parent)
                kind = type(node)
                type_id = class_ids.get(kind)
                if kind is constant or (type_id is None and isinstance(node, constant)):
                    value = node.value  # type: ignore[attr-defined]
                    if type(value) is int and low <= value <= high:
                        values_pre.append(value + 0.0)
                    else:
                        exact = False
                        values_pre.append(_as_float(value))
                else:
                    values_pre.append(0.0)
                    if kind is VariableExpression:
                        type_id = variable_ids.get(node.identifier)  # type: ignore[attr-defined]
                type_ids_pre.append(node.type_id if type_id is None else type_id)
                stack.append((node, position, depth))
                parent = position
                depth += 1
                node = node.left
            if depth > levels:
                levels = depth
            if not stack:
                break
            visited, parent, depth = stack.pop()
            preorder[parent] = len(nodes)
            nodes.append(visited)
            type_ids.append(type_ids_pre[parent])
            values.append(values_pre[parent])
            node = visited.right
            depth += 1
        preordered: Dict[bool, Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = {}
        # Set through __dict__: the layout refuses attribute assignment.
        self.__dict__.update(
            nodes=tuple(nodes),
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
        )

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
        nodes = self.nodes
        count = len(nodes)
        shapes = [""] * count
        # The shapes of each node's sides, and (for `children`, found on the way)
        # the in-order index of each node's children.
        left = [NO_SHAPE] * count
        right = [NO_SHAPE] * count
        left_child = [-1] * count
        right_child = [-1] * count
        order = self._preorder
        parents = self._parent_pre
        symbols = _SHAPE_SYMBOLS
        constant, variable, letters = ConstantExpression, VariableExpression, _SHAPE_LETTERS
        integer_symbol, variable_symbol = INTEGER_SHAPE_SYMBOL, VARIABLE_SHAPE_SYMBOL
        low, high = -_SHAPE_INT, _SHAPE_INT
        # Children come after their parent in pre-order: walking it backwards
        # finishes both children of a node before the node itself.
        for position in range(count - 1, -1, -1):
            index = order[position]
            node = nodes[index]
            kind = type(node)
            symbol = symbols.get(kind)
            if symbol is not None:
                shape = f"{symbol}{left[position]}{right[position]}"
            elif kind is constant:
                value = node.value  # type: ignore[attr-defined]
                if type(value) is int and low < value < high:
                    shape = f"{integer_symbol}{value}"
                elif type(value) is float:
                    # repr tells 0.0 from -0.0, and keeps floats apart from ints.
                    shape = f"%{value!r};"
                else:
                    return None
            elif kind is variable:
                name = node.identifier  # type: ignore[attr-defined]
                if type(name) is not str or name not in letters:
                    return None
                shape = variable_symbol + name
            elif kind is NegateExpression:
                side = "~<" if node.child_on_left else "~>"  # type: ignore[attr-defined]
                shape = f"{side}{left[position]}{right[position]}"
            else:
                return None
            shapes[index] = shape
            parent = parents[position]
            if parent >= 0:
                above = order[parent]
                # A right child comes after its parent in-order, a left child before.
                if index > above:
                    right[parent] = shape
                    right_child[above] = index
                else:
                    left[parent] = shape
                    left_child[above] = index
        self.__dict__.setdefault("children", (tuple(left_child), tuple(right_child)))
        return tuple(shapes)

    @lazy
    def depth(self) -> npt.NDArray[np.int32]:
        depths = np.empty(len(self.nodes), np.int32)
        depths[self.preorder] = self._depth_pre
        return _read_only(depths)

    @lazy
    def parent(self) -> npt.NDArray[np.int64]:
        """In-order index of each node's parent (-1 for the root)."""
        return _read_only(np.asarray(self._parent_in, dtype=np.int64))

    @lazy
    def side(self) -> npt.NDArray[np.int64]:
        """0 for a left child, 1 for a right child, -1 for the root."""
        sides = np.empty(len(self.nodes), np.int64)
        sides[self.preorder] = self._right_pre
        if len(self.nodes):
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

    @lazy
    def edge_types(self) -> npt.NDArray[np.int64]:
        return _read_only(self.side[self.preorder[1:]])

    @lazy
    def max_depth(self) -> int:
        return self.levels - 1 if self.nodes else 0

    def preordered(
        self, normalize: bool
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Type ids and values in pre-order (normalized or raw), cached: the
        same two read-only arrays on every call."""
        cache = self._preordered
        if normalize not in cache:
            types = _float32s(self._type_ids_pre)
            values = np.asarray(self._values_pre, dtype=np.float32)
            if normalize:
                types = types / np.float32(MAX_TYPE_ID)
                values = self._scaled(values)
            cache[normalize] = (_read_only(types), _read_only(values))
        return cache[normalize]

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
        if len(values) == 0:
            return values
        if self._exact:
            # The same float32 numbers as the array's, found sooner.
            low = np.float32(min(self._values_pre))
            span = np.float32(max(self._values_pre)) - low
        else:
            # The array's own methods: np.min and np.max add a costly wrapper.
            low = values.min(axis=0)
            span = values.max(axis=0) - low
        if span <= 0:
            return np.zeros_like(values)
        scaled: npt.NDArray[np.float32] = (values - low) / span  # float32 throughout
        return scaled


def _as_float(value: object) -> float:
    """A constant's value as a float for the node arrays: an int too large for a
    float is an infinity, and anything else that is not a number is nan (such
    texts are refused by `admit`, which reads the layout first)."""
    try:
        return float(value or 0.0)  # type: ignore[arg-type]
    except OverflowError:
        return math.inf if value > 0 else -math.inf  # type: ignore[operator]
    except (TypeError, ValueError):
        return math.nan


_ArrayT = TypeVar("_ArrayT", bound="np.ndarray[Any, Any]")


def _read_only(array: _ArrayT) -> _ArrayT:
    """`array`, made read-only: the arrays of a layout are shared by every caller."""
    array.setflags(write=False)  # half the cost of `array.flags.writeable = False`
    return array


def _float32s(numbers: List[int]) -> npt.NDArray[np.float32]:
    """Whole numbers as a float32 array; through bytes when they are all from 0
    to 255 (such as mathy_core's type ids), a third cheaper than numpy's list
    conversion."""
    try:
        small = bytes(numbers)
    except (TypeError, ValueError):
        return np.asarray(numbers, dtype=np.float32)
    return np.frombuffer(small, dtype=np.uint8).astype(np.float32)


SAFE_CONSTANT = 31622
"""Integer constants up to this size multiply to at most `MAX_CONSTANT`."""
SAFE_SIZE = min(MAX_DEPTH - 2, (MAX_NODES - 1) // 2)
"""A tree is safe only if its nodes plus its unary nodes number at most this: one
step at most doubles a tree, and whatever shape printing and parsing give the
result, it then stays within `MAX_DEPTH` and `MAX_NODES`."""
assert SAFE_CONSTANT**2 <= MAX_CONSTANT
assert 2 * SAFE_SIZE + 1 <= MAX_NODES


def admit(entry: ParsedExpression) -> None:
    """Check a freshly parsed text against the supported limits (`ValueError`
    naming the limit otherwise) and set `entry.safe`.

    A safe tree is a small polynomial on which mathy_core's core rules are known
    to be exact: integer constants of at most `SAFE_CONSTANT`, powers only of a
    variable to a whole constant >= 2, negation only of a variable or such a
    power (a negated sum can print as `--1`), subtraction only of such a term or
    of a product whose left factor is one (mathy_core's restate subtraction
    mishandles the others), and at most `SAFE_SIZE` nodes. Other trees
    get every action checked (`MathyEnv`), so this only decides speed.
    """
    text = entry.text
    layout = entry.layout
    nodes = layout.nodes
    check_size(len(nodes), layout.levels, text)
    unary = 0
    safe = True
    check_value = False
    # The commonest types first, as locals: this runs for every new text.
    add, multiply, variable, constant = (
        AddExpression,
        MultiplyExpression,
        VariableExpression,
        ConstantExpression,
    )
    low, high = -SAFE_CONSTANT, SAFE_CONSTANT
    for node in nodes:
        kind = type(node)
        if kind is add or kind is multiply or kind is variable:
            continue
        if kind is constant or isinstance(node, constant):
            value = node.value  # type: ignore[attr-defined]
            if type(value) is int and low <= value <= high:
                continue  # within every limit, and safe
            check_constant(value, text)
            safe = False
        elif kind is SubtractExpression:
            right = node.right
            if not (_simple_term(right) or (
                type(right) is MultiplyExpression and _simple_term(right.left)
            )):
                safe = False
        elif kind is NegateExpression:
            unary += 1
            child = node.get_child()  # type: ignore[attr-defined]
            if not (type(child) is VariableExpression or (
                type(child) is PowerExpression and _simple_power(child)
            )):
                safe = False
        elif kind is PowerExpression and _simple_power(node):
            continue
        else:
            # Division, other powers, factorials, functions, equations.
            safe = False
            check_value = True
            if kind is EqualExpression:
                entry.has_equation = True
    if check_value:
        check_defined(entry.tree, text)
    entry.safe = safe and len(nodes) + unary <= SAFE_SIZE


def _simple_term(node: Optional[MathExpression]) -> bool:
    """A constant, a variable or a simple power."""
    kind = type(node)
    return (
        kind is ConstantExpression
        or kind is VariableExpression
        or (kind is PowerExpression and _simple_power(node))  # type: ignore[arg-type]
    )


def _simple_power(node: MathExpression) -> bool:
    """`x^k` with a whole constant `2 <= k <= SAFE_CONSTANT`."""
    exponent = node.right
    return (
        type(node.left) is VariableExpression
        and isinstance(exponent, ConstantExpression)
        and type(exponent.value) is int
        and 2 <= exponent.value <= SAFE_CONSTANT
    )


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
            entry = ParsedExpression(text, _parse_locked(*self._parsing, text))
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
            return _parse_locked(*self._parsing, text)
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

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def parse_text(parser: ExpressionParser, text: str) -> MathExpression:
    """Parse `text` into a fresh tree, raising `ValueError` on bad input. Each
    parser parses one text at a time, whatever the thread."""
    return _parse_locked(parser, parser_lock(parser), text)


def _parse_locked(parser: ExpressionParser, lock: threading.Lock, text: str) -> MathExpression:
    """`parse_text` with the parser's lock (`parser_lock`) already looked up."""
    check_text(text)
    with lock:
        try:
            tree = parser.parse(text)
        except Exception as error:
            complaint = getattr(error, "message", None) or str(error) or type(error).__name__
            raise ValueError(
                f"cannot parse problem text {quote(text)}: {shorten(complaint)}"
            ) from error
        finally:
            # mathy_core's parser keeps every text it has seen; our cache is the
            # bounded one, so keep the parser's own cache empty.
            parser.clear_cache()
    return tree


def new_parser() -> ExpressionParser:
    """A mathy_core `ExpressionParser` whose tokenizer keeps the tokens of the
    pieces of the texts it has seen (`PieceTokenizer`): the same trees, sooner."""
    parser = ExpressionParser()
    parser.tokenizer = PieceTokenizer()
    return parser


_default_parser = new_parser()
_registry_lock = threading.Lock()
_parser_locks: "WeakKeyDictionary[ExpressionParser, threading.Lock]" = WeakKeyDictionary()


def parser_lock(parser: ExpressionParser) -> threading.Lock:
    """The lock that serializes the use of `parser`."""
    lock = _parser_locks.get(parser)
    if lock is None:
        with _registry_lock:
            lock = _parser_locks.get(parser)
            if lock is None:
                lock = _parser_locks[parser] = threading.Lock()
    return lock


class _ThreadCaches(threading.local):
    def __init__(self) -> None:
        self.by_parser: "WeakKeyDictionary[ExpressionParser, ExpressionCache]" = (
            WeakKeyDictionary()
        )
        # The default parser has no settings: each thread gets its own, so
        # threads never wait for each other's parses.
        self.default = ExpressionCache()


_thread_caches = _ThreadCaches()


def default_parser() -> ExpressionParser:
    """The parser used by every env and state that is not given its own. Each
    thread parses with a private copy of it."""
    return _default_parser


def expression_cache(parser: Optional[ExpressionParser] = None) -> ExpressionCache:
    """This thread's cache for `parser` (the module's default parser when None)."""
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


__all__ = (
    "DEFAULT_CACHE_SIZE",
    "CONSTANT_SHAPE_SYMBOLS",
    "INTEGER_SHAPE_SYMBOL",
    "VARIABLE_SHAPE_SYMBOL",
    "NO_SHAPE",
    "SHAPE_SYMBOLS",
    "SHAPED_TYPES",
    "SAFE_CONSTANT",
    "admit",
    "parser_lock",
    "ExpressionCache",
    "NodeLayout",
    "apply_rule",
    "copy_tree",
    "is_library_code",
    "private_entry",
    "ParsedExpression",
    "default_parser",
    "expression_cache",
    "new_parser",
    "node_at_index",
    "parse",
    "parse_text",
)
