"""`ParsedExpression`: a problem text, its parsed tree and the tree's node arrays.

The caches (`parse_cache.py`) hold one entry per text and hand the same entry to every
caller, who only reads it; a step that rewrites the tree takes it out of the
cache first (`ExpressionCache.take_tree`). User code is given a `private_entry`
instead: the same text over its own copy of the tree. When a text is first
parsed, `admit` (`admission.py`) checks it and sets the entry's `safe` and
`has_equation`.
"""

from typing import Optional, Tuple

from mathy_core import BaseRule, ExpressionChangeRule, MathExpression

from .layout import NodeLayout
from .._support.lazy import lazy
from .native import NativeExpression
from .native_parse import NativeParse
from .tree_edits import apply_rule, copy_tree


class ParsedExpression:
    """A problem text, its parsed tree and the tree's node arrays.

    Node arrays are indexed by action index: node `i` is the `i`-th node from the
    left (in-order traversal), the node that mask column `i` refers to. While the
    entry is cached, every caller gets the same tree and layout and only reads
    them (a step that rewrites the tree takes it out of the cache, `take_tree`).
    """

    def __init__(
        self, text: str, tree: Optional[MathExpression], made: Optional[NativeParse] = None
    ) -> None:
        """The entry of `text` parsed into `tree`, or (`tree` None) by the native
        core into `made`, which makes the tree when it is first read."""
        self.text = text
        if tree is not None:
            self.__dict__["tree"] = tree
        elif made is None:
            raise ValueError("a ParsedExpression needs a tree or the native core's parse")
        self.shared = False
        self.safe = False
        self.has_equation = False
        self._made = made
        self.native: Optional[NativeExpression] = None if made is None else made.expression
        """The native core's parse of the text (an `Expression` of
        `mathy_envs._native`), when it parsed it: it answers the core rules'
        masks and rewrites, the value checks and the simplify goal."""
        if made is not None:
            self.__dict__["layout"] = NodeLayout.of_nodes(made.walk(), made.nodes)

    @lazy
    def tree(self) -> MathExpression:
        """The parsed tree (made from the native core's parse on first read)."""
        assert self._made is not None
        return self._made.tree

    @lazy
    def layout(self) -> NodeLayout:
        return NodeLayout(self.tree)

    @lazy
    def canonical(self) -> str:
        """`printed()`, kept: the form in which an episode's texts are compared
        (`mathy_envs._engine.visits`). Read from the cache's entries, which no step
        rewrites while they are cached."""
        return self.printed()

    def printed(self) -> str:
        """The text as mathy_core prints the parsed tree (its spacing, and no
        redundant parentheses): the native core's print where it parsed the
        text (the same text, tests/_engine/test_native_parse.py proves it), else the
        tree's `str()`."""
        if self.native is not None:
            return self.native.text()
        return str(self.tree)

    @property
    def nodes(self) -> Tuple[MathExpression, ...]:
        """The tree's nodes in action (in-order) order."""
        return self.layout.nodes

    def __len__(self) -> int:
        return len(self.layout)

    def rewrite(self, rule: BaseRule, index: int) -> ExpressionChangeRule:
        """Apply `rule` at the `index`-th node (in-order) of a copy of the tree;
        the cached tree is left untouched. The new expression is
        `change.result.get_root()`."""
        return apply_rule(copy_tree(self.tree), rule, index, self.text)


def private_entry(entry: ParsedExpression) -> ParsedExpression:
    """A `ParsedExpression` of the same text over a copy of its tree: user code may
    keep or change it without touching the cached entry."""
    private = ParsedExpression(entry.text, copy_tree(entry.tree))
    private.safe = entry.safe
    private.has_equation = entry.has_equation
    private.native = entry.native  # read-only, and of the same text
    return private


__all__ = ("ParsedExpression", "private_entry")
