"""The built-in environments."""

from typing import List, Type

from ..env import MathyEnv
from .poly_simplify import PolySimplify

MATHY_BUILTIN_ENVS: List[Type[MathyEnv]] = [PolySimplify]

__all__ = ("MATHY_BUILTIN_ENVS", "PolySimplify")
