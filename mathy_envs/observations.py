"""Observation types and the functions that build them from a parsed expression.

Node features are `[type_id, value, time, is_leaf]`. Graph and message-passing
observations list nodes in action order (row `i` is the node of mask column `i`),
hierarchical observations level by level (root first), flat observations and
`MathyObservation` in pre-order (docs/observations.md gives the layouts).
"""

from enum import Enum
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt
from .limits import DEFAULT_MAX_SEQ_LEN, quote
from .parsing import MAX_TYPE_ID, NodeLayout

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

NODE_FEATURES = 4
MoveMask = Union[Sequence[Sequence[int]], npt.NDArray[Any]]


class ObservationType(str, Enum):
    """The observation formats `MathyEnvState.to_observation` can build."""

    FLAT = "flat"
    GRAPH = "graph"
    HIERARCHICAL = "hierarchical"
    MESSAGE_PASSING = "message_passing"


def to_observation_type(obs_type: Union["ObservationType", str]) -> ObservationType:
    """Coerce an `ObservationType` or its string value, rejecting anything else."""
    if isinstance(obs_type, ObservationType):
        return obs_type
    try:
        return ObservationType(obs_type)
    except ValueError:
        raise ValueError(f"Unknown observation type: {quote(obs_type)}") from None


class MathyObservation(NamedTuple):
    """Plain-list features of a state (node lists in pre-order).

    - `nodes`: node type ids
    - `mask`: `num_rules x num_nodes` 0/1 validity of each action
    - `values`: constant values (0.0 for other nodes)
    - `type`: the two-value problem hash
    - `time`: one value, the fraction of the episode's moves used
    """

    nodes: List[int]
    mask: List[List[int]]
    values: List[float]
    type: List[float]
    time: List[float]


class MathyGraphObservation(NamedTuple):
    """Node features with a parent->child adjacency matrix."""

    node_features: FloatArray
    adjacency: FloatArray
    action_mask: FloatArray
    num_nodes: int

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._asdict())


class MathyHierarchicalObservation(NamedTuple):
    """Node features ordered level by level, with each row's depth."""

    node_features: FloatArray
    level_indices: npt.NDArray[np.int32]
    action_mask: FloatArray
    max_depth: int
    num_nodes: int

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._asdict())


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


MathyObservationUnion = Union[
    FloatArray,
    MathyGraphObservation,
    MathyHierarchicalObservation,
    MathyMessagePassingObservation,
]


def node_types(layout: NodeLayout, normalize: bool) -> FloatArray:
    """Type ids in action order, divided by `MAX_TYPE_ID` when normalizing."""
    return layout.normalized_type_ids if normalize else layout.type_ids


def node_values(layout: NodeLayout, normalize: bool) -> FloatArray:
    """Constant values in action order, min-max scaled when normalizing."""
    return layout.normalized_values if normalize else layout.values


def check_fits(num_nodes: int, max_seq_len: int) -> None:
    if num_nodes > max_seq_len:
        raise ValueError(
            f"expression has {num_nodes} nodes, more than max_seq_len={max_seq_len}"
        )


def mask_matrix(
    move_mask: Optional[MoveMask], max_seq_len: int
) -> Optional[npt.NDArray[Any]]:
    """`move_mask` as a validated `(rows, nodes)` array (None stays None)."""
    if move_mask is None:
        return None
    mask = np.asarray(move_mask)
    if mask.size == 0:
        mask = mask.reshape(len(mask), 0)
    if mask.ndim != 2:
        raise ValueError(
            f"move_mask must be a (num_rules, num_nodes) matrix, got shape {mask.shape}"
        )
    if mask.shape[1] > max_seq_len:
        raise ValueError(
            f"move_mask has {mask.shape[1]} node columns, more than "
            f"max_seq_len={max_seq_len}"
        )
    return mask


def mask_rows(mask: Optional[npt.NDArray[Any]], num_rules: int) -> int:
    """`R`: `num_rules`, or the row count of the mask if that is larger."""
    return max(num_rules, 0 if mask is None else mask.shape[0])


def write_mask(
    dest: FloatArray, mask: Optional[npt.NDArray[Any]], max_seq_len: int
) -> FloatArray:
    """Write the 0/1 mask into the zeroed flat `R * L` array `dest`, row-major
    `(rule, node)`; padding stays zero."""
    if mask is not None and mask.size:
        rows, cols = mask.shape
        dest.reshape(-1, max_seq_len)[:rows, :cols] = mask != 0
    return dest


def action_mask(
    mask: Optional[npt.NDArray[Any]], num_rules: int, max_seq_len: int
) -> FloatArray:
    """The flattened `R * L` 0/1 mask, row-major `(rule, node)`, zero padded;
    `mask` comes from `mask_matrix`.

    `R` is `num_rules`, or the row count of `mask` if that is larger.
    """
    dest = np.zeros(mask_rows(mask, num_rules) * max_seq_len, np.float32)
    return write_mask(dest, mask, max_seq_len)


def _node_features(layout: NodeLayout, time: float, normalize: bool, rows: int) -> FloatArray:
    n = len(layout.nodes)
    features = np.zeros((rows, NODE_FEATURES), np.float32)
    features[:n, 0] = node_types(layout, normalize)
    features[:n, 1] = node_values(layout, normalize)
    features[:n, 2] = time
    features[:n, 3] = layout.is_leaf
    return features


def flat_observation(
    layout: NodeLayout,
    problem_hash: Sequence[float],
    time: float,
    mask: Optional[npt.NDArray[Any]],
    num_rules: int,
    normalize: bool,
    max_seq_len: int,
) -> FloatArray:
    """`[hash0, hash1, time, node types (L), node values (L), action mask (R*L)]`,
    nodes in pre-order; `mask` comes from `mask_matrix`."""
    n = len(layout.nodes)
    check_fits(n, max_seq_len)
    length = max_seq_len
    out = np.zeros(3 + 2 * length + mask_rows(mask, num_rules) * length, np.float32)
    out[0] = problem_hash[0]
    out[1] = problem_hash[1]
    out[2] = time
    types, values = layout.preordered(normalize)
    out[3 : 3 + n] = types
    out[3 + length : 3 + length + n] = values
    write_mask(out[3 + 2 * length :], mask, length)
    return out


def graph_observation(
    layout: NodeLayout, time: float, mask: FloatArray, normalize: bool, max_seq_len: int
) -> MathyGraphObservation:
    n = len(layout.nodes)
    check_fits(n, max_seq_len)
    adjacency = np.zeros((max_seq_len, max_seq_len), np.float32)
    parents, children = layout.edge_index
    adjacency[parents, children] = 1.0
    return MathyGraphObservation(
        node_features=_node_features(layout, time, normalize, max_seq_len),
        adjacency=adjacency,
        action_mask=mask,
        num_nodes=n,
    )


def hierarchical_observation(
    layout: NodeLayout, time: float, mask: FloatArray, normalize: bool, max_seq_len: int
) -> MathyHierarchicalObservation:
    n = len(layout.nodes)
    check_fits(n, max_seq_len)
    order = layout.levelorder
    features = np.zeros((max_seq_len, NODE_FEATURES), np.float32)
    features[:n] = _node_features(layout, time, normalize, n)[order]
    levels = np.zeros(max_seq_len, np.int32)
    levels[:n] = layout.depth[order]
    return MathyHierarchicalObservation(
        node_features=features,
        level_indices=levels,
        action_mask=mask,
        max_depth=layout.max_depth,
        num_nodes=n,
    )


def message_passing_observation(
    layout: NodeLayout, time: float, mask: FloatArray, normalize: bool, max_seq_len: int
) -> MathyMessagePassingObservation:
    n = len(layout.nodes)
    check_fits(n, max_seq_len)
    num_edges = layout.edge_index.shape[1]
    edge_index = np.zeros((2, 2 * max_seq_len), np.int64)
    edge_index[:, :num_edges] = layout.edge_index
    edge_types = np.zeros(2 * max_seq_len, np.int64)
    edge_types[:num_edges] = layout.edge_types
    return MathyMessagePassingObservation(
        node_features=_node_features(layout, time, normalize, max_seq_len),
        edge_index=edge_index,
        edge_types=edge_types,
        action_mask=mask,
        num_nodes=n,
        num_edges=num_edges,
    )


__all__ = (
    "DEFAULT_MAX_SEQ_LEN",
    "MAX_TYPE_ID",
    "MathyGraphObservation",
    "MathyHierarchicalObservation",
    "MathyMessagePassingObservation",
    "MathyObservation",
    "MathyObservationUnion",
    "ObservationType",
    "action_mask",
    "mask_matrix",
    "mask_rows",
    "write_mask",
    "flat_observation",
    "graph_observation",
    "hierarchical_observation",
    "message_passing_observation",
    "node_types",
    "node_values",
    "to_observation_type",
)
