"""mathy_core trees from the native core's parse (`mathy_envs._engine.native`).

`native_tree(parser, text)` parses `text` with the native core when `parser`
reads texts exactly as the native core does (a plain mathy_core
`ExpressionParser` with its standard tokenizer, or the library's
`PieceTokenizer`, with only `sgn` as a function and nothing patched on either),
and builds the mathy_core tree directly: the same classes, values, names,
links and attributes as `parser.parse(text)` gives, with the node ids mathy_core
would number them with, in a fraction of the time. Otherwise, or when the native
core refuses the text, it returns None and the caller parses with mathy_core.
"""

from typing import FrozenSet, List, Optional, Tuple, Type

from mathy_core import (
    AddExpression,
    ConstantExpression,
    DivideExpression,
    EqualExpression,
    ExpressionParser,
    FactorialExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SgnExpression,
    SubtractExpression,
    VariableExpression,
)
from mathy_core.tokenizer import Tokenizer
from mathy_core.tree import BinaryTreeNode

from .native import NATIVE, NativeExpression
from .tokenizing import PieceTokenizer
from .walk import IndexWalk

KINDS: Tuple[Type[MathExpression], ...] = (
    ConstantExpression,
    VariableExpression,
    AddExpression,
    SubtractExpression,
    MultiplyExpression,
    DivideExpression,
    PowerExpression,
    EqualExpression,
    NegateExpression,
    FactorialExpression,
    SgnExpression,
)
"""mathy_core's class of each native node kind (`native/expression.hpp`)."""

_PARSER_ATTRIBUTES: FrozenSet[str] = frozenset(
    {"tokenizer", "_tokens_cache", "_parse_cache", "tokens", "_all_tokens", "current_token"}
)
_TOKENIZER_ATTRIBUTES: FrozenSet[str] = frozenset(
    {"exclude_padding", "functions", "_pieces", "_functions_seen"}
)
_FUNCTIONS = {"sgn": SgnExpression}


def reads_as_native(parser: ExpressionParser) -> bool:
    """Whether `parser` parses every text as the native core does."""
    tokenizer = getattr(parser, "tokenizer", None)
    return (
        type(parser) is ExpressionParser
        and (type(tokenizer) is PieceTokenizer or type(tokenizer) is Tokenizer)
        and tokenizer.exclude_padding is True
        and tokenizer.functions == _FUNCTIONS
        and parser.__dict__.keys() <= _PARSER_ATTRIBUTES
        and tokenizer.__dict__.keys() <= _TOKENIZER_ATTRIBUTES
    )


class NativeParse:
    """A text parsed by the native core; the mathy_core tree is made from it
    when it is first read (`tree`, `nodes`). One thread uses it (each thread has
    its own parse caches): two threads reading `tree` at once could each make one.
    """

    __slots__ = ("expression", "_made")

    def __init__(self, expression: NativeExpression) -> None:
        self.expression = expression
        """The native core's parse (an `Expression` of `mathy_envs._native`): it
        gives the core rules' mask, rewrites, values and the tree's walk."""
        self._made: Optional[Tuple[int, List[MathExpression]]] = None

    def _build(self) -> Tuple[int, List[MathExpression]]:
        made = self._made
        if made is None:
            # Numbered as mathy_core numbers nodes: one more than the last id, in
            # creation order (mathy_core's own counter is not locked either).
            counter = BinaryTreeNode._idCounter
            root, nodes = self.expression.build(KINDS, counter)
            BinaryTreeNode._idCounter = counter + len(nodes)
            made = self._made = (root, nodes)
        return made

    @property
    def tree(self) -> MathExpression:
        """`parser.parse(text)`, node for node (made on first read)."""
        root, nodes = self._build()
        return nodes[root]

    def nodes(self) -> List[MathExpression]:
        """The tree's nodes in the native core's order (creation order)."""
        return self._build()[1]

    def walk(self) -> IndexWalk:
        """`walk_tree(tree)` (mathy_envs._engine.walk) with the index of each node
        in `nodes()` in place of the node."""
        return self.expression.walk()


def native_parse(parser: ExpressionParser, text: str) -> Optional[NativeParse]:
    """The native core's parse of `text`, from which `parser.parse(text)` is made
    on first read; None when the native core is not in use, `parser` may read
    texts otherwise, or the native core refuses `text` (mathy_core may reject it,
    or it is beyond the native core's reach)."""
    if NATIVE is None or type(text) is not str or not reads_as_native(parser):
        return None
    parsed = NATIVE.Expression.parse(text)  # None for a str with no UTF-8 form
    if parsed is None:
        return None
    return NativeParse(parsed)


def native_tree(parser: ExpressionParser, text: str) -> Optional[MathExpression]:
    """The tree of `native_parse`, or None."""
    made = native_parse(parser, text)
    return None if made is None else made.tree


__all__ = (
    "KINDS",
    "NativeParse",
    "native_parse",
    "native_tree",
    "reads_as_native",
)
