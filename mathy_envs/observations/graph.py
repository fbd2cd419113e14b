"""Graph observations: node features and a parent -> child adjacency matrix, for
graph convolutional and graph attention networks.

Rows are in action order, so row `i` is the node of mask column `i`;
`adjacency[parent, child] = 1.0`.
"""

from typing import TYPE_CHECKING, Any, Dict, NamedTuple, Optional

import numpy as np

from .._engine import NodeLayout
from .common import (
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


class MathyGraphObservation(NamedTuple):
    """Node features with a parent->child adjacency matrix."""

    node_features: FloatArray
    adjacency: FloatArray
    action_mask: FloatArray
    num_nodes: int

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._asdict())


def graph_observation(
    layout: NodeLayout, time: float, mask: FloatArray, normalize: bool, max_seq_len: int,
    revisits: Optional[float] = None,
) -> MathyGraphObservation:
    """The graph observation of `layout`; `mask` is the flat action mask."""
    n = len(layout)
    check_fits(n, max_seq_len)
    adjacency = np.zeros((max_seq_len, max_seq_len), np.float32)
    # adjacency[parent, child] = 1.0 for each edge (`layout.edge_index`).
    adjacency.put(layout.adjacency_index(max_seq_len), 1.0)
    return MathyGraphObservation(
        node_features=node_features(layout, time, normalize, max_seq_len, revisits),
        adjacency=adjacency,
        action_mask=mask,
        num_nodes=n,
    )


class GraphObservationKind(ObservationKind[MathyGraphObservation]):
    """`ObservationType.GRAPH`: a `MathyGraphObservation`."""

    name = ObservationType.GRAPH.value

    def build(self, inputs: ObservationInputs) -> MathyGraphObservation:
        length = inputs.max_seq_len
        flat_mask = action_mask(
            inputs.move_mask, inputs.num_rules, length, inputs.mask_as_probabilities
        )
        return graph_observation(
            inputs.layout, inputs.time, flat_mask, inputs.normalize, length, inputs.revisits
        )

    def space(self, max_seq_len: int, num_rules: int, revisits: bool = False) -> "spaces.Dict":
        from gymnasium import spaces

        length = max_seq_len
        return spaces.Dict(
            {
                "node_features": node_features_space(length, revisits),
                "adjacency": spaces.Box(0.0, 1.0, (length, length), np.float32),
                "action_mask": action_mask_space(length, num_rules),
                "num_nodes": node_count_space(length),
            }
        )


GRAPH = GraphObservationKind()
"""The registered graph observation type."""

__all__ = ("GRAPH", "GraphObservationKind", "MathyGraphObservation", "graph_observation")
