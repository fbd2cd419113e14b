"""What the problem generators of the built-in environments share.

Each built-in env file holds its generator as a plain function,
`<file>_problem(rng, params)`: a `numpy.random.Generator` and the
`MathyEnvProblemArgs` in, a `MathyEnvProblem` out, drawing from `rng` only. The
env declares it (`generator = staticmethod(...)`), its `problem_fn` calls it with
`self.np_random`, and the same function can be
handed to any env as its `generator=` (a `mathy_envs.types.ProblemGenerator`).
"""

from typing import Any

import numpy as np

from ..limits import quote, type_name
from ..types import MathyEnvDifficulty, MathyEnvProblemArgs


def generator_difficulty(rng: Any, params: Any, namespace: Any) -> MathyEnvDifficulty:
    """The difficulty of `params`, after checking a generator's arguments: a
    `ValueError` unless `rng` is a `numpy.random.Generator`, `params` a
    `MathyEnvProblemArgs` and `namespace` a str."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            "a problem generator draws from a numpy.random.Generator (e.g. "
            f"numpy.random.default_rng(seed)), got {type_name(rng)} {quote(rng, 60)}"
        )
    if not isinstance(params, MathyEnvProblemArgs):
        raise ValueError(
            f"params must be MathyEnvProblemArgs, got {type_name(params)} "
            f"{quote(params, 60)}"
        )
    if not isinstance(namespace, str):
        raise ValueError(f"namespace must be a str, got {quote(namespace, 60)}")
    return params.difficulty


__all__ = ("generator_difficulty",)
