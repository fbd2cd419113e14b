"""Operations on mathy_core trees: find a node, apply a rule, copy a tree, and
tell library code from user code.

Nodes are numbered by action index: node `i` is the `i`-th node from the left
(in-order traversal), the node that mask column `i` refers to. `copy_tree` gives
the private copies that user code (anything `is_library_code` says is not the
library's) is handed instead of cached trees.
"""

import threading
from typing import Any, Callable, Dict, List, Optional

from mathy_core import BaseRule, ExpressionChangeRule, MathExpression

from ..limits import quote


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


class DeferredChange(ExpressionChangeRule):
    """The change of a step whose new text the native core wrote: an
    `ExpressionChangeRule` like any other, whose `node` and `result` (the rewritten
    mathy_core tree) `make` builds with mathy_core the first time they are read,
    so a step that never reads them never builds them. `make` may run in any
    thread that reads the change: it must not use a thread's own caches."""

    def __init__(self, rule: BaseRule, make: Callable[[], ExpressionChangeRule]) -> None:
        self.__dict__.update(rule=rule, _make=make, _making=threading.Lock())

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not set yet: the ones mathy_core's change has.
        making = self.__dict__.get("_making")
        if making is None or name.startswith("__"):
            raise AttributeError(name)
        with making:
            make = self.__dict__.get("_make")
            if make is not None:
                made = make()  # if it raises, the next read tries again
                for key, value in vars(made).items():
                    if key != "rule":
                        self.__dict__[key] = value
                del self.__dict__["_make"]
        return object.__getattribute__(self, name)

    def __getstate__(self) -> Dict[str, Any]:
        # Copies and pickles hold the made change (a lock neither copies nor pickles).
        self.__getattr__("node")
        return {k: v for k, v in self.__dict__.items() if k not in ("_make", "_making")}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__["_making"] = threading.Lock()


def is_library_code(function: object) -> bool:
    """Whether `function` (a function, or a method bound to an object) is defined
    in the mathy_envs package. Anything else (a method of a user's subclass, a
    lambda set on an instance, a callable object, a wrapper made with
    `functools.wraps`, even of library code) counts as user code, which is given
    private copies of trees (`private_entry`, `copy_tree`)."""
    function = getattr(function, "__func__", function)
    if hasattr(function, "__wrapped__"):
        # A wrapper (`functools.wraps`) takes the module of what it wraps.
        return False
    module = getattr(function, "__module__", None)
    return type(module) is str and (module == _PACKAGE or module.startswith(_PACKAGE + "."))


def copy_tree(tree: MathExpression) -> MathExpression:
    """A copy of `tree` and of everything under it that shares no node with it.

    Each node is copied once with its attributes (class, id, value, variable
    name...), its own `classes` list and links to its own parent, children and (a
    unary node) child, so the copy has the shape of `tree` to the last link: a
    node two nodes hold (mathy_core parses the `y` of `xy^2` into both sides) is
    one copied node that both copies hold, whose parent is the copy of its
    parent. The copy of `tree` has no parent, and links mathy_core may keep to
    other nodes (`cloned_node`, the renderer's `thread`) are None. Other
    attributes are copied as they are (mathy_core keeps only numbers, texts and
    flags there). The copy prints, evaluates and takes rules as `tree` does (a
    rule rewrites a shared node in both places, as on `tree`), in a fraction of
    the time of mathy_core's `tree.clone()` (which walks to the root from every
    node).
    """
    copies: Dict[int, MathExpression] = {}
    originals: List[MathExpression] = []
    root = _copy_node(tree, copies, originals)
    # Parents last: a shared node's parent may be copied after it.
    for original in originals:
        parent = original.__dict__.get("parent")
        copied_parent = None
        if original is not tree and parent is not None:
            copied_parent = copies.get(id(parent))
        copies[id(original)].__dict__["parent"] = copied_parent
    return root


def _copy_node(
    node: MathExpression, copies: Dict[int, MathExpression], originals: List[MathExpression]
) -> MathExpression:
    """The copy of `node` and its subtree (made once: `copies` maps the id of each
    node copied so far to its copy, and `originals` lists those nodes)."""
    known = copies.get(id(node))
    if known is not None:
        return known
    result: MathExpression = object.__new__(type(node))
    copies[id(node)] = result
    originals.append(node)
    attributes = node.__dict__.copy()
    attributes["parent"] = None  # set by copy_tree once every node is copied
    classes = attributes.get("classes")
    if type(classes) is list:
        attributes["classes"] = classes.copy()
    left, right = node.left, node.right
    left_copy = right_copy = None
    if left is not None:
        left_copy = attributes["left"] = _copy_node(left, copies, originals)
    if right is not None:
        right_copy = attributes["right"] = _copy_node(right, copies, originals)
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


__all__ = (
    "apply_at",
    "apply_rule",
    "DeferredChange",
    "copy_tree",
    "is_library_code",
    "node_at_index",
)
