"""The expression engine: everything the library knows about expressions.

Parsing and the caches of parsed texts, trees and their node layout, the rules
and their action masks, exact values, terms, visits, and the bridge to the
compiled core. The rest of the package imports from this façade only (an
import-linter contract keeps it so) and never learns which core answered: every
name here gives the same result on the native core and on the pure-Python one
(mathy_core), which the differential tests prove.

| Job | Module |
|---|---|
| The core in use and the compiled module (the only importer of `_native`) | `native.py` |
| mathy_core trees from the native core's parse | `native_parse.py` |
| Tokenizing problem texts | `tokenizing.py` |
| Making parsers, parsing one text | `parsers.py` |
| Admission of a freshly parsed text | `admission.py` |
| `ParsedExpression`: a text, its tree and its node arrays | `expressions.py` |
| The per-thread caches of parsed texts | `parse_cache.py` |
| The walk of a tree in action order | `walk.py` |
| `NodeLayout`: the flat node arrays of a tree | `layout.py` |
| Subtree shapes | `shapes.py` |
| Finding a node, applying a rule, copying a tree | `tree_edits.py` |
| Checks of hand-built trees | `tree_checks.py` |
| Exact values: a step keeps the expression's value | `values.py` |
| The core rules, in action order | `rules.py` |
| Action masks and move results | `masks.py` |
| An env's masks and move results by text; rewrites and refusals of moves | `move_cache.py` |
| Term predicates (goal checks) | `terms.py` |
| Visits of an expression, compared in printed form | `visits.py` |
| The fused batch kernel: every step of a batch in one native call | `kernel.py` |
| Built-in generators' problems drawn by the native core | `drawing.py` |
"""

from .admission import SAFE_CONSTANT, SAFE_SIZE, admit
from .drawing import draw_problem, replays_numpy
from .expressions import ParsedExpression, private_entry
from .kernel import (
    GOAL_ACTED_AT_LIKE_TERM,
    GOAL_FACTOR_OUT_APPLIES,
    GOAL_LIKE_TERMS_GROUPED,
    GOAL_SIMPLIFIED,
    MAX_KERNEL_THREADS,
    MOVE_GOALS,
    NATIVE_GOALS,
    SLOT_LEFT,
    SLOT_OFFER_LEFT,
    SLOT_OVER,
    SLOT_STEPPED,
    BatchKernel,
    exact_key,
    kernel_unavailable,
)
from .layout import MAX_TYPE_ID, NodeLayout
from .masks import (
    MASK_CACHE_SIZE,
    MaskArray,
    MaskCache,
    MoveResults,
    Sweep,
    checked_mask,
    least_visited,
    same_value_of,
)
from .move_cache import (
    MoveCache,
    check_equations,
    check_value_kept,
    fitting_nodes,
    in_mask,
    move_refusal,
    rewrite_move,
    rewritten_entry,
    rule_nodes,
    tree_mask,
)
from .native import CORE, REFUSAL, NativeExpression, native_built
from .parse_cache import ExpressionCache, expression_cache, parse
from .parsers import default_parser, parse_text
from .rules import CORE_RULE_TYPES, are_core_rules, commute_preference, core_rules
from .terms import (
    SimplifiedCheck,
    factor_out_applies,
    factor_out_entry,
    like_terms_grouped_entry,
    is_simplified,
    like_term_indexes,
    like_terms_grouped,
    simplified_entry,
    term_indexes,
)
from .tree_checks import check_tree
from .tree_edits import (
    DeferredChange,
    apply_at,
    apply_rule,
    copy_tree,
    is_library_code,
    node_at_index,
)
from .values import narrowed_domain, same_value_where_defined
from .visits import canonical_text, visit_counts, visits_of

__all__ = (
    "CORE",
    "CORE_RULE_TYPES",
    "DeferredChange",
    "ExpressionCache",
    "MASK_CACHE_SIZE",
    "MAX_TYPE_ID",
    "MaskArray",
    "MaskCache",
    "MoveResults",
    "NativeExpression",
    "REFUSAL",
    "NodeLayout",
    "ParsedExpression",
    "SAFE_CONSTANT",
    "SAFE_SIZE",
    "SimplifiedCheck",
    "Sweep",
    "admit",
    "apply_at",
    "apply_rule",
    "are_core_rules",
    "canonical_text",
    "check_tree",
    "checked_mask",
    "commute_preference",
    "copy_tree",
    "core_rules",
    "default_parser",
    "expression_cache",
    "factor_out_applies",
    "is_library_code",
    "is_simplified",
    "least_visited",
    "like_term_indexes",
    "like_terms_grouped",
    "narrowed_domain",
    "native_built",
    "node_at_index",
    "parse",
    "parse_text",
    "private_entry",
    "same_value_of",
    "same_value_where_defined",
    "simplified_entry",
    "term_indexes",
    "visit_counts",
    "visits_of",
    "MoveCache",
    "check_value_kept",
    "check_equations",
    "fitting_nodes",
    "in_mask",
    "move_refusal",
    "rewrite_move",
    "tree_mask",
    "MAX_KERNEL_THREADS",
    "SLOT_LEFT",
    "SLOT_OFFER_LEFT",
    "SLOT_OVER",
    "SLOT_STEPPED",
    "BatchKernel",
    "kernel_unavailable",
    "exact_key",
    "draw_problem",
    "replays_numpy",
    "factor_out_entry",
    "like_terms_grouped_entry",
    "rewritten_entry",
    "rule_nodes",
    "GOAL_FACTOR_OUT_APPLIES",
    "GOAL_ACTED_AT_LIKE_TERM",
    "GOAL_LIKE_TERMS_GROUPED",
    "GOAL_SIMPLIFIED",
    "MOVE_GOALS",
    "NATIVE_GOALS",
)
