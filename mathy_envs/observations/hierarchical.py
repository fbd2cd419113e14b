"""Hierarchical observations: node features level by level (root first, left to
right within a level) with each row's depth, for depth-aware models.
"""

from typing import TYPE_CHECKING, Any, Dict, NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from .._engine import NodeLayout
from .common import (
    NODE_FEATURES,
    FloatArray,
    ObservationInputs,
    ObservationKind,
    ObservationType,
    action_mask,
    action_mask_space,
    check_fits,
    node_count_space,
    node_features,
    node_features_space,
)

if TYPE_CHECKING:
    from gymnasium import spaces


class MathyHierarchicalObservation(NamedTuple):
    """Node features ordered level by level, with each row's depth."""

    node_features: FloatArray
    level_indices: npt.NDArray[np.int32]
    action_mask: FloatArray
    max_depth: int
    num_nodes: int

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._asdict())


def hierarchical_observation(
    layout: NodeLayout, time: float, mask: FloatArray, normalize: bool, max_seq_len: int,
    revisits: Optional[float] = None,
) -> MathyHierarchicalObservation:
    """The hierarchical observation of `layout`; `mask` is the flat action mask."""
    n = len(layout)
    check_fits(n, max_seq_len)
    order = layout.levelorder
    features = np.zeros(
        (max_seq_len, NODE_FEATURES + (revisits is not None)), np.float32
    )
    features[:n] = node_features(layout, time, normalize, n, revisits)[order]
    levels = np.zeros(max_seq_len, np.int32)
    levels[:n] = layout.depth[order]
    return MathyHierarchicalObservation(
        node_features=features,
        level_indices=levels,
        action_mask=mask,
        max_depth=layout.max_depth,
        num_nodes=n,
    )


class HierarchicalObservationKind(ObservationKind[MathyHierarchicalObservation]):
    """`ObservationType.HIERARCHICAL`: a `MathyHierarchicalObservation`."""

    name = ObservationType.HIERARCHICAL.value

    def build(self, inputs: ObservationInputs) -> MathyHierarchicalObservation:
        length = inputs.max_seq_len
        flat_mask = action_mask(
            inputs.move_mask, inputs.num_rules, length, inputs.mask_as_probabilities
        )
        return hierarchical_observation(
            inputs.layout, inputs.time, flat_mask, inputs.normalize, length, inputs.revisits
        )

    def space(self, max_seq_len: int, num_rules: int, revisits: bool = False) -> "spaces.Dict":
        from gymnasium import spaces

        length = max_seq_len
        return spaces.Dict(
            {
                "node_features": node_features_space(length, revisits),
                "level_indices": spaces.Box(0, length - 1, (length,), np.int32),
                "action_mask": action_mask_space(length, num_rules),
                "max_depth": spaces.Discrete(length),
                "num_nodes": node_count_space(length),
            }
        )


HIERARCHICAL = HierarchicalObservationKind()
"""The registered hierarchical observation type."""

__all__ = (
    "HIERARCHICAL",
    "HierarchicalObservationKind",
    "MathyHierarchicalObservation",
    "hierarchical_observation",
)
