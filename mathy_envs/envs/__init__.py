"""The built-in environments, one per file, each with its problem generator.

`ENV_TASKS` is the one registry: a built-in environment is its file plus one line
there, which gives it its task name on the command line and its Gymnasium ids
(`mathy-{task}-{difficulty}-v0`).
"""

from typing import Dict, List, Type

from ..env import MathyEnv
from .binomial_distribute import BinomialDistribute
from .complex_simplify import ComplexSimplify
from .goal import GoalEnv, SimplifyGoalEnv
from .poly_combine_in_place import PolyCombineInPlace
from .poly_commute_like_terms import PolyCommuteLikeTerms
from .poly_group_like_terms import PolyGroupLikeTerms
from .poly_haystack_like_terms import PolyHaystackLikeTerms
from .poly_simplify import PolySimplify
from .poly_simplify_blockers import PolySimplifyBlockers

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
"""Task name (as in the gym ids and the CLI) -> environment class: the registry of
the built-in environments."""

MATHY_BUILTIN_ENVS: List[Type[MathyEnv]] = list(ENV_TASKS.values())
"""The built-in environment classes, in `ENV_TASKS` order (derived from it)."""

__all__ = (
    "ENV_TASKS",
    "BinomialDistribute",
    "ComplexSimplify",
    "GoalEnv",
    "MATHY_BUILTIN_ENVS",
    "PolyCombineInPlace",
    "PolyCommuteLikeTerms",
    "PolyGroupLikeTerms",
    "PolyHaystackLikeTerms",
    "PolySimplify",
    "PolySimplifyBlockers",
    "SimplifyGoalEnv",
)
