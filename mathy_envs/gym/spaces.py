"""Gymnasium spaces: the masked action space and the observation spaces."""

from typing import Any, Optional

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..observations import NODE_FEATURES, ObservationType, to_observation_type


class MaskedDiscrete(spaces.Discrete):
    """A `Discrete(n)` whose `sample()` picks a valid action of the current mask.

    `mask` is a 0/1 vector of length `n`; with no valid action left, `sample()`
    draws from all `n` actions.
    """

    def __init__(
        self,
        n: int,
        mask: Optional[npt.ArrayLike] = None,
        seed: Optional[int] = None,
    ) -> None:
        super().__init__(n, seed=seed)
        self.mask: npt.NDArray[np.int8] = np.ones(n, np.int8)
        if mask is not None:
            self.update_mask(mask)

    def update_mask(self, mask: npt.ArrayLike) -> None:
        values = np.asarray(mask)
        if values.shape != (int(self.n),):
            raise ValueError(
                f"mask must have shape ({int(self.n)},), got {values.shape}"
            )
        self.mask = (values != 0).astype(np.int8)

    def sample(
        self,
        mask: Optional[npt.NDArray[np.int8]] = None,
        probability: Optional[npt.NDArray[np.int8]] = None,
    ) -> np.int64:
        if mask is None and probability is None and self.mask.any():
            mask = self.mask
        return super().sample(mask=mask, probability=probability)

    def __repr__(self) -> str:
        return f"MaskedDiscrete({int(self.n)}, valid={int(self.mask.sum())})"


def observation_space(
    obs_type: Any, max_seq_len: int, num_rules: int
) -> spaces.Space[Any]:
    """The space of normalized observations of a type (`L = max_seq_len`,
    `R = num_rules`); every bound is one the observations really keep."""
    kind = to_observation_type(obs_type)
    length = max_seq_len
    mask = spaces.Box(0.0, 1.0, (num_rules * length,), np.float32)
    features = spaces.Box(0.0, 1.0, (length, NODE_FEATURES), np.float32)
    node_count = spaces.Discrete(length + 1)
    if kind is ObservationType.FLAT:
        return spaces.Box(0.0, 1.0, (3 + 2 * length + num_rules * length,), np.float32)
    if kind is ObservationType.GRAPH:
        return spaces.Dict(
            {
                "node_features": features,
                "adjacency": spaces.Box(0.0, 1.0, (length, length), np.float32),
                "action_mask": mask,
                "num_nodes": node_count,
            }
        )
    if kind is ObservationType.HIERARCHICAL:
        return spaces.Dict(
            {
                "node_features": features,
                "level_indices": spaces.Box(0, length - 1, (length,), np.int32),
                "action_mask": mask,
                "max_depth": spaces.Discrete(length),
                "num_nodes": node_count,
            }
        )
    return spaces.Dict(
        {
            "node_features": features,
            "edge_index": spaces.Box(0, length - 1, (2, 2 * length), np.int64),
            "edge_types": spaces.Box(0, 1, (2 * length,), np.int64),
            "action_mask": mask,
            "num_nodes": node_count,
            "num_edges": spaces.Discrete(2 * length + 1),
        }
    )


__all__ = ("MaskedDiscrete", "observation_space")
