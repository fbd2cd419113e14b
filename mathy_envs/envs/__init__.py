"""The built-in environments, one per file."""

from typing import Dict, List, Type

from ..env import MathyEnv
from .binomial_distribute import BinomialDistribute
from .complex_simplify import ComplexSimplify
from .poly_combine_in_place import PolyCombineInPlace
from .poly_commute_like_terms import PolyCommuteLikeTerms
from .poly_group_like_terms import PolyGroupLikeTerms
from .poly_haystack_like_terms import PolyHaystackLikeTerms
from .poly_simplify import PolySimplify
from .poly_simplify_blockers import PolySimplifyBlockers

MATHY_BUILTIN_ENVS: List[Type[MathyEnv]] = [
    PolySimplify,
    PolySimplifyBlockers,
    PolyCombineInPlace,
    PolyCommuteLikeTerms,
    PolyGroupLikeTerms,
    PolyHaystackLikeTerms,
    ComplexSimplify,
    BinomialDistribute,
]

ENV_TASKS: Dict[str, Type[MathyEnv]] = {
    "poly": PolySimplify,
    "poly-blockers": PolySimplifyBlockers,
    "poly-combine": PolyCombineInPlace,
    "poly-commute": PolyCommuteLikeTerms,
    "poly-grouping": PolyGroupLikeTerms,
    "poly-like-terms-haystack": PolyHaystackLikeTerms,
    "complex": ComplexSimplify,
    "binomial": BinomialDistribute,
}
"""Task name (as in the gym ids and the CLI) -> environment class."""

__all__ = (
    "ENV_TASKS",
    "BinomialDistribute",
    "ComplexSimplify",
    "MATHY_BUILTIN_ENVS",
    "PolyCombineInPlace",
    "PolyCommuteLikeTerms",
    "PolyGroupLikeTerms",
    "PolyHaystackLikeTerms",
    "PolySimplify",
    "PolySimplifyBlockers",
)
