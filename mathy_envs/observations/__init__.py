"""Observation types and the functions that build them from a parsed expression.

Four types are built in (`ObservationType`): `flat` (one vector), `graph`
(adjacency matrix), `hierarchical` (rows level by level) and `message_passing`
(edge list). Node features are `[type_id, value, time, is_leaf]`. Graph and
message-passing observations list nodes in action order (row `i` is the node of
mask column `i`), hierarchical observations level by level (root first), flat
observations and `MathyObservation` in pre-order.

Each type is an `ObservationKind` in the registry, keyed by its name. A new type
is a subclass with a `name`, a `build(inputs)` and a Gymnasium `space(L, R)`;
once registered, `obs_type="its-name"` selects it everywhere:

```python
class Sizes(ObservationKind[np.ndarray]):
    name = "sizes"

    def build(self, inputs: ObservationInputs) -> np.ndarray:
        return np.array([inputs.num_nodes, inputs.layout.max_depth], np.int64)

    def space(self, max_seq_len: int, num_rules: int) -> "spaces.Box":
        from gymnasium import spaces  # optional dependency: import it here

        return spaces.Box(0, max_seq_len, (2,), np.int64)

register_observation(Sizes())
state.to_observation(obs_type="sizes")
```
"""

from typing import Union

from ..limits import DEFAULT_MAX_SEQ_LEN
from .._engine import MAX_TYPE_ID
from .common import (
    NODE_FEATURES,
    FloatArray,
    IntArray,
    MathyObservation,
    MoveMask,
    ObservationInputs,
    ObservationKind,
    ObservationType,
    ObservedAgent,
    ObservedState,
    action_mask,
    action_mask_space,
    as_matrix,
    check_fits,
    known_mask,
    mask_lists,
    mask_matrix,
    mask_rows,
    node_count_space,
    node_features,
    node_features_space,
    node_types,
    node_values,
    write_mask,
)
from .build import observe, plain_observation, problem_hash
from .flat import FLAT, FlatObservationKind, flat_observation
from .graph import GRAPH, GraphObservationKind, MathyGraphObservation, graph_observation
from .hierarchical import (
    HIERARCHICAL,
    HierarchicalObservationKind,
    MathyHierarchicalObservation,
    hierarchical_observation,
)
from .message_passing import (
    MESSAGE_PASSING,
    MathyMessagePassingObservation,
    MessagePassingObservationKind,
    message_passing_observation,
)
from .registry import (
    get_observation_kind,
    observation_types,
    register_observation,
    to_observation_type,
    unregister_observation,
)

MathyObservationUnion = Union[
    FloatArray,
    MathyGraphObservation,
    MathyHierarchicalObservation,
    MathyMessagePassingObservation,
]
"""What the four built-in types build."""

__all__ = (
    "DEFAULT_MAX_SEQ_LEN",
    "FLAT",
    "GRAPH",
    "HIERARCHICAL",
    "MESSAGE_PASSING",
    "FlatObservationKind",
    "FloatArray",
    "GraphObservationKind",
    "HierarchicalObservationKind",
    "IntArray",
    "MAX_TYPE_ID",
    "MathyGraphObservation",
    "MathyHierarchicalObservation",
    "MathyMessagePassingObservation",
    "MathyObservation",
    "MathyObservationUnion",
    "MessagePassingObservationKind",
    "MoveMask",
    "NODE_FEATURES",
    "ObservationInputs",
    "ObservationKind",
    "ObservationType",
    "ObservedAgent",
    "ObservedState",
    "action_mask",
    "action_mask_space",
    "as_matrix",
    "check_fits",
    "flat_observation",
    "get_observation_kind",
    "graph_observation",
    "hierarchical_observation",
    "known_mask",
    "mask_lists",
    "mask_matrix",
    "mask_rows",
    "message_passing_observation",
    "node_count_space",
    "node_features",
    "node_features_space",
    "node_types",
    "node_values",
    "observation_types",
    "observe",
    "plain_observation",
    "problem_hash",
    "register_observation",
    "to_observation_type",
    "unregister_observation",
    "write_mask",
)
