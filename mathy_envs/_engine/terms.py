"""Predicates over expression terms, built from mathy_core's term helpers.

Environments use them to recognise wins, and problem generators to reject
problems that would be won before the first move.
"""

from typing import Hashable, List, Optional, Sequence, Set

from mathy_core import (
    AddExpression,
    MathExpression,
    MultiplyExpression,
    SubtractExpression,
    TermResult,
    VariableExpression,
    get_term,
    get_terms,
    has_like_terms,
    is_add_or_sub,
    is_preferred_term_form,
)
from mathy_core.rules import DistributiveFactorOutRule

from .expressions import ParsedExpression
from .._support.lru import Memo
from .layout import NodeLayout
from .rules import CORE_RULE_TABLE
from .shapes import SHAPE_SYMBOLS

LIKE_TERMS_MEMORY_SIZE = 4096
"""`has_like_terms` answers a `SimplifiedCheck` keeps."""


def is_simplified(expression: MathExpression) -> bool:
    """No like terms remain and every term is in the preferred simple form."""
    if has_like_terms(expression):
        return False
    return all(is_preferred_term_form(term) for term in get_terms(expression))


def simplified_entry(parsed: ParsedExpression, check: Optional["SimplifiedCheck"] = None) -> bool:
    """`is_simplified` of a parsed text: the native core's verdict when it parsed
    the text (it is mathy_core's, and needs no tree), else `check` (a
    `SimplifiedCheck`) or `is_simplified` on the entry's tree. Also a `retry`
    rejection test, for generators whose problems must not start simplified."""
    native = parsed.native
    verdict = None if native is None else native.simplified()
    if verdict is not None:
        return bool(verdict)
    if check is not None:
        return check(parsed.tree, parsed.layout)
    return is_simplified(parsed.tree)


class SimplifiedCheck:
    """`is_simplified`, keeping `has_like_terms` answers by the terms' subtrees.

    mathy_core's `has_like_terms` asks `get_term` about each node `get_terms`
    lists and counts the constants among them: its answer depends only on which
    term subtrees the expression holds, whatever their order and grouping. So an
    answer is kept under the multiset of the terms' shapes (`NodeLayout.shapes`)
    and the root's type, and reused for every expression with the same terms:
    most steps only reorder or regroup terms. `is_preferred_term_form` also reads
    a term's neighbours, so that part is never kept (and only runs on the rare
    expressions without like terms).
    """

    def __init__(self, capacity: int = LIKE_TERMS_MEMORY_SIZE) -> None:
        self._answers: Memo[Hashable, bool] = Memo(capacity)

    def __call__(self, expression: MathExpression, layout: NodeLayout) -> bool:
        """`is_simplified(expression)`, where `layout` is the expression's own
        `NodeLayout`."""
        key = terms_key(expression, layout)
        if key is None:
            like = has_like_terms(expression)
        else:
            answer = self._answers.get(key)
            like = answer if answer is not None else self._answers.put(
                key, has_like_terms(expression)
            )
        if like:
            return False
        return all(is_preferred_term_form(term) for term in get_terms(expression))

    def clear(self) -> None:
        self._answers.clear()


_SUM_OR_DIFFERENCE = frozenset(
    {SHAPE_SYMBOLS[AddExpression], SHAPE_SYMBOLS[SubtractExpression]}
)
_PRODUCT = SHAPE_SYMBOLS[MultiplyExpression]


def terms_key(expression: MathExpression, layout: NodeLayout) -> Optional[str]:
    """The root's type and the multiset of the shapes of the nodes mathy_core's
    `get_terms` lists, as one text, read from `layout` (the expression's own);
    None when the layout has no shapes or the expression is not a root.

    `get_terms` lists every child of an add or subtract node that is not one
    itself, anywhere in the tree, and first the root if it is a product; if that
    finds nothing, the expression itself. The layout tells the same nodes by
    their shapes' first characters, without visiting the tree."""
    shapes = layout.shapes
    if shapes is None or expression.parent is not None:
        return None
    sums = _SUM_OR_DIFFERENCE
    left_of, right_of = layout.children
    found: List[str] = []
    for index, shape in enumerate(shapes):
        if shape[0] in sums:
            left, right = left_of[index], right_of[index]
            if left >= 0 and shapes[left][0] not in sums:
                found.append(shapes[left])
            if right >= 0 and shapes[right][0] not in sums:
                found.append(shapes[right])
    root = shapes[layout.root_index]
    if root[0] == _PRODUCT or not found:
        found.append(root)
    found.sort()
    # A shape's first character tells its node's type; shapes read back one by
    # one, so the text tells the sorted list.
    return root[0] + "".join(found)


def factor_out_applies(expression: MathExpression) -> bool:
    """Distributive factor out can be applied somewhere in the expression."""
    # A rule of its own per call: a module-level rule object is state a user
    # could change unseen (the batch's native goal reads only the module's code).
    rule = DistributiveFactorOutRule()
    return any(rule.can_apply_to(node) for node in expression.to_list("inorder"))


def sum_terms(expression: MathExpression) -> List[MathExpression]:
    """The terms of the sum at the expression's root, left to right: the nodes
    reached from the root through add and subtract nodes only. Unlike `get_terms`,
    the constants inside a factored `(4 + 2) * x` are not terms of their own."""
    terms: List[MathExpression] = []
    stack: List[MathExpression] = [expression.get_root()]
    while stack:
        node = stack.pop()
        if is_add_or_sub(node) and node.left is not None and node.right is not None:
            stack.extend((node.right, node.left))
        else:
            terms.append(node)
    return terms


def _without_constant_factors(term: MathExpression) -> MathExpression:
    """A product's factor that holds its variables: `x` for `(4 + 2) * x`."""
    node = term
    while isinstance(node, MultiplyExpression):
        left, right = node.left, node.right
        if left is None or right is None:
            break
        if not left.find_type(VariableExpression):
            node = right
        elif not right.find_type(VariableExpression):
            node = left
        else:
            break
    return node


def term_kind(term: MathExpression) -> Hashable:
    """What makes terms alike: their sorted variables and exponent. Plain
    constants share one kind; constant factors are ignored, so the factored
    `(4 + 2) * x` is alike with `x`; any other node that is not a simple term is
    its own kind."""
    result = get_term(term)
    if not isinstance(result, TermResult):
        result = get_term(_without_constant_factors(term))
    if not isinstance(result, TermResult):
        return ("not-a-term", id(term))
    return (tuple(sorted(result.variables)), result.exponent)


def term_kinds(expression: MathExpression) -> List[Hashable]:
    """The kind of every term of the expression's sum, left to right."""
    return [term_kind(term) for term in sum_terms(expression)]


def like_terms_grouped(expression: MathExpression) -> bool:
    """Every kind of term forms one contiguous run (`4x + x + 2y`, not
    `4x + 2y + x`)."""
    finished: Set[Hashable] = set()
    current: Optional[Hashable] = None
    for kind in term_kinds(expression):
        if kind == current:
            continue
        if kind in finished:
            return False
        if current is not None:
            finished.add(current)
        current = kind
    return True


def like_term_indexes(nodes: Sequence[MathExpression]) -> List[int]:
    """Indexes into `nodes` (a tree's in-order node list) of the terms of the sum
    (`sum_terms`) that have a like term elsewhere in it."""
    if not nodes:
        return []
    index_of = {id(node): index for index, node in enumerate(nodes)}
    terms = sum_terms(nodes[0].get_root())
    kinds = [term_kind(term) for term in terms]
    return sorted(
        index_of[id(term)]
        for term, kind in zip(terms, kinds)
        if kinds.count(kind) > 1 and id(term) in index_of
    )


def term_indexes(nodes: Sequence[MathExpression]) -> List[int]:
    """Indexes into `nodes` (a tree's in-order node list) of the terms of the sum
    (`sum_terms`)."""
    if not nodes:
        return []
    index_of = {id(node): index for index, node in enumerate(nodes)}
    terms = sum_terms(nodes[0].get_root())
    return sorted(index_of[id(term)] for term in terms if id(term) in index_of)



def factor_out_entry(parsed: ParsedExpression) -> bool:
    """`factor_out_applies` of a parsed text: told from factor out's row of the
    native core's mask (mathy_core's `can_apply_to` at every node) where it
    parsed the text, else asked of the tree."""
    native = parsed.native
    if native is None:
        return factor_out_applies(parsed.tree)
    cells = native.mask(False)
    count = len(cells) // len(CORE_RULE_TABLE)
    return 1 in cells[_FACTOR_OUT_ROW * count : (_FACTOR_OUT_ROW + 1) * count]


def like_terms_grouped_entry(parsed: ParsedExpression) -> bool:
    """`like_terms_grouped` of a parsed text: the native core's verdict where it
    gives one, else asked of the tree."""
    native = parsed.native
    verdict = None if native is None else native.like_terms_grouped()
    if verdict is None:
        return like_terms_grouped(parsed.tree)
    return bool(verdict)


_FACTOR_OUT_ROW = next(
    index for index, row in enumerate(CORE_RULE_TABLE) if row.kind is DistributiveFactorOutRule
)


__all__ = (
    "factor_out_entry",
    "like_terms_grouped_entry",
    "LIKE_TERMS_MEMORY_SIZE",
    "SimplifiedCheck",
    "factor_out_applies",
    "is_simplified",
    "like_term_indexes",
    "like_terms_grouped",
    "simplified_entry",
    "sum_terms",
    "term_indexes",
    "term_kind",
    "term_kinds",
    "terms_key",
)
