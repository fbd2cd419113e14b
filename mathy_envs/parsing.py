"""Compatibility module: every name `mathy_envs.parsing` had, imported from the
modules that now own it. Code inside the package imports from those modules.

| Job | Module |
|---|---|
| The per-thread caches of parsed texts, `parse` | `caches.py` |
| Parsers, their locks, parsing one text | `parsers.py` |
| Admission of a new text (`admit`, `SAFE_CONSTANT`) | `admission.py` |
| `ParsedExpression`, `private_entry` | `expressions.py` |
| `NodeLayout`, `MAX_TYPE_ID` | `layout.py` |
| The walk of a tree a layout is made from | `traversal.py` |
| Subtree shapes and their symbols | `shapes.py` |
| Apply a rule, find a node, copy a tree, `is_library_code` | `tree_ops.py` |
"""

from .admission import SAFE_CONSTANT, SAFE_SIZE as SAFE_SIZE, admit
from .admission import _simple_power as _simple_power, _simple_term as _simple_term
from .caches import DEFAULT_CACHE_SIZE, ExpressionCache, expression_cache, parse
from .caches import _thread_caches as _thread_caches, _ThreadCaches as _ThreadCaches
from .expressions import ParsedExpression, private_entry
from .layout import MAX_TYPE_ID as MAX_TYPE_ID, NodeLayout
from .layout import _ArrayT as _ArrayT, _float32s as _float32s, _read_only as _read_only
from .parsers import default_parser, new_parser, parse_text, parser_lock
from .parsers import _default_parser as _default_parser, _parser_locks as _parser_locks
from .parsers import _registry_lock as _registry_lock, parse_locked as _parse_locked
from .shapes import (
    CONSTANT_SHAPE_SYMBOLS,
    INTEGER_SHAPE_SYMBOL,
    NO_SHAPE,
    SHAPE_SYMBOLS,
    SHAPED_TYPES,
    VARIABLE_SHAPE_SYMBOL,
)
from .shapes import _SHAPE_INT as _SHAPE_INT, _SHAPE_LETTERS as _SHAPE_LETTERS
from .shapes import _SHAPE_SYMBOLS as _SHAPE_SYMBOLS
from .traversal import _as_float as _as_float, _EXACT_INT as _EXACT_INT
from .traversal import _CLASS_TYPE_IDS as _CLASS_TYPE_IDS
from .traversal import _VARIABLE_TYPE_IDS as _VARIABLE_TYPE_IDS
from .tree_ops import apply_at as apply_at, apply_rule, copy_tree, is_library_code
from .tree_ops import node_at_index, _copy_node as _copy_node, _PACKAGE as _PACKAGE

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
