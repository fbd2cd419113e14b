"""Message-passing observations: node features with a PyTorch Geometric style
edge list, for message-passing graph neural networks.

Rows are in action order (row `i` is the node of mask column `i`). `edge_index`
holds `(parent, child)` columns, the first `num_edges` real and the rest `(0, 0)`
padding; `edge_types` is 0 for a left child and 1 for a right child.
"""

from typing import TYPE_CHECKING, Any, Dict, NamedTuple, Optional

import numpy as np

from .._engine import NodeLayout
from .common import (
    FloatArray,
    IntArray,
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


class MathyMessagePassingObservation(NamedTuple):
    """Node features with a PyTorch Geometric style edge list."""

    node_features: FloatArray
    edge_index: IntArray
    edge_types: IntArray
    action_mask: FloatArray
    num_nodes: int
    num_edges: int

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._asdict())


def message_passing_observation(
    layout: NodeLayout, time: float, mask: FloatArray, normalize: bool, max_seq_len: int,
    revisits: Optional[float] = None,
) -> MathyMessagePassingObservation:
    """The message-passing observation of `layout`; `mask` is the flat action
    mask."""
    n = len(layout)
    check_fits(n, max_seq_len)
    num_edges = layout.edge_index.shape[1]
    edge_index = np.zeros((2, 2 * max_seq_len), np.int64)
    edge_index[:, :num_edges] = layout.edge_index
    edge_types = np.zeros(2 * max_seq_len, np.int64)
    edge_types[:num_edges] = layout.edge_types
    return MathyMessagePassingObservation(
        node_features=node_features(layout, time, normalize, max_seq_len, revisits),
        edge_index=edge_index,
        edge_types=edge_types,
        action_mask=mask,
        num_nodes=n,
        num_edges=num_edges,
    )


class MessagePassingObservationKind(ObservationKind[MathyMessagePassingObservation]):
    """`ObservationType.MESSAGE_PASSING`: a `MathyMessagePassingObservation`."""

    name = ObservationType.MESSAGE_PASSING.value

    def build(self, inputs: ObservationInputs) -> MathyMessagePassingObservation:
        length = inputs.max_seq_len
        flat_mask = action_mask(
            inputs.move_mask, inputs.num_rules, length, inputs.mask_as_probabilities
        )
        return message_passing_observation(
            inputs.layout, inputs.time, flat_mask, inputs.normalize, length, inputs.revisits
        )

    def space(self, max_seq_len: int, num_rules: int, revisits: bool = False) -> "spaces.Dict":
        from gymnasium import spaces

        length = max_seq_len
        return spaces.Dict(
            {
                "node_features": node_features_space(length, revisits),
                "edge_index": spaces.Box(0, length - 1, (2, 2 * length), np.int64),
                "edge_types": spaces.Box(0, 1, (2 * length,), np.int64),
                "action_mask": action_mask_space(length, num_rules),
                "num_nodes": node_count_space(length),
                "num_edges": spaces.Discrete(2 * length + 1),
            }
        )


MESSAGE_PASSING = MessagePassingObservationKind()
"""The registered message-passing observation type."""

__all__ = (
    "MESSAGE_PASSING",
    "MathyMessagePassingObservation",
    "MessagePassingObservationKind",
    "message_passing_observation",
)
