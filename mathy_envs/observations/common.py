"""What every observation type shares: the inputs a builder receives, the action
mask, node features, the Gymnasium pieces several spaces reuse, the plain-list
`MathyObservation` and `ObservationKind`, the base class of an observation type.

Node features are `[type_id, value, time, is_leaf]`, one row per node, with a
fifth column, `revisits`, when observations carry the revisit feature. Node
arrays come in action order (in-order: node `i` is the `i`-th node from the left,
the node of mask column `i`). The action mask is a flat `R * L` array, row-major
`(rule, node)`, zero padded (`R` rules, `L = max_seq_len` node columns).
"""

import inspect
import threading
from abc import ABC, abstractmethod
from enum import Enum
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    List,
    NamedTuple,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    TypeVar,
    Union,
)

import numpy as np
import numpy.typing as npt
from mathy_core import ExpressionParser

from .._engine import NodeLayout
from .._support.frozen import is_frozen
from ..types import MAX_VISITS
from .._engine import visits_of

if TYPE_CHECKING:  # gymnasium is optional: spaces import it when they are built
    from gymnasium import spaces

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

NODE_FEATURES = 4
"""Columns of a node feature row: `[type_id, value, time, is_leaf]` (one more,
`revisits`, when observations carry the revisit feature)."""
MoveMask = Union[Sequence[Sequence[int]], npt.NDArray[Any]]
"""A `(num_rules, num_nodes)` valid-move mask, as nested lists or an array."""

ObservationT = TypeVar("ObservationT")


class ObservedAgent(Protocol):
    """What an observation reads of a state's agent (`MathyAgentState` has it)."""

    @property
    def problem(self) -> str: ...
    @property
    def problem_type(self) -> str: ...
    @property
    def moves_remaining(self) -> int: ...
    @property
    def history(self) -> Sequence[Tuple[str, Tuple[int, int]]]: ...


class ObservedState(Protocol):
    """What an observation reads of a state (`MathyEnvState` has it): its agent,
    its episode constants and the fraction of its moves used."""

    @property
    def agent(self) -> ObservedAgent: ...
    @property
    def max_moves(self) -> int: ...
    @property
    def num_rules(self) -> int: ...
    @property
    def time(self) -> float: ...


class ObservationType(str, Enum):
    """The four built-in observation types. `obs_type` also takes their string
    values, and the name of any type registered with `register_observation`."""

    FLAT = "flat"
    GRAPH = "graph"
    HIERARCHICAL = "hierarchical"
    MESSAGE_PASSING = "message_passing"


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


# -- node features --------------------------------------------------------------


def node_types(layout: NodeLayout, normalize: bool) -> FloatArray:
    """Type ids in action order, divided by `MAX_TYPE_ID` when normalizing: the
    layout's own read-only array (copy it before changing it)."""
    return layout.normalized_type_ids if normalize else layout.type_ids


def node_values(layout: NodeLayout, normalize: bool) -> FloatArray:
    """Constant values in action order, min-max scaled when normalizing: the
    layout's own read-only array (copy it before changing it)."""
    return layout.normalized_values if normalize else layout.values


def node_features(
    layout: NodeLayout,
    time: float,
    normalize: bool,
    rows: int,
    revisits: Optional[float] = None,
) -> FloatArray:
    """`(rows, 4)` float32 rows `[type_id, value, time, is_leaf]` in action order,
    or `(rows, 5)` rows that end with `revisits` when it is given; rows past the
    expression's nodes are zero."""
    n = len(layout)
    columns = NODE_FEATURES if revisits is None else NODE_FEATURES + 1
    features = np.zeros((rows, columns), np.float32)
    # The layout's `[type_id, value, 0, is_leaf]` rows (`node_types`,
    # `node_values` and `is_leaf`), made once per layout in a few numpy calls.
    if revisits is None:
        features[:n] = layout.feature_rows(normalize)
    else:
        features[:n, :NODE_FEATURES] = layout.feature_rows(normalize)
        features[:n, 4] = revisits
    features[:n, 2] = time
    return features


def revisit_feature(
    state: "ObservedState", normalize: bool, parser: Optional[ExpressionParser] = None
) -> float:
    """How many times the episode saw the state's expression before now: the
    entries of the state's history with its text, less the current one, as the
    default reward scheme counts visits (an invalid move under "penalize" stays
    on the expression and adds one; the first text is compared in its canonical
    form, `mathy_envs._engine.visits`, parsed by `parser`); normalized, that count over
    `MAX_VISITS`, at most 1.0."""
    agent = state.agent
    return revisit_value(visits_of(agent.history, agent.problem, parser) - 1, normalize)


def revisit_value(seen: int, normalize: bool) -> float:
    """The revisit feature of an expression seen `seen` times before (at least 0):
    the count, or, normalized, the count over `MAX_VISITS`, at most 1.0."""
    seen = max(seen, 0)
    if normalize:
        return min(seen, MAX_VISITS) / MAX_VISITS
    return float(seen)


def check_fits(num_nodes: int, max_seq_len: int) -> None:
    """A `ValueError` naming both numbers when `num_nodes > max_seq_len`."""
    if num_nodes > max_seq_len:
        raise ValueError(
            f"expression has {num_nodes} nodes, more than max_seq_len={max_seq_len}"
        )


# -- the action mask --------------------------------------------------------------


def mask_matrix(
    move_mask: Optional[MoveMask], max_seq_len: int
) -> Optional[npt.NDArray[Any]]:
    """`move_mask` as a validated `(rows, nodes)` array (None stays None)."""
    if move_mask is None:
        return None
    mask = _int_rows(move_mask)
    if mask is None:
        mask = np.asarray(move_mask)
    mask = as_matrix(mask)
    if mask.shape[1] > max_seq_len:
        raise ValueError(
            f"move_mask has {mask.shape[1]} node columns, more than "
            f"max_seq_len={max_seq_len}"
        )
    return mask


def as_matrix(mask: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A mask array as a `(rows, nodes)` matrix: an empty one as `(rows, 0)`;
    a `ValueError` naming the shape when it has not two dimensions."""
    if mask.size == 0:
        mask = mask.reshape(len(mask), 0)
    if mask.ndim != 2:
        raise ValueError(
            f"move_mask must be a (num_rules, num_nodes) matrix, got shape {mask.shape}"
        )
    return mask


def _int_rows(rows: Any) -> Optional[npt.NDArray[Any]]:
    """Equal-length lists of Python ints from 0 to 255 (such as the rows
    `get_valid_moves` returns) as the array `np.asarray` makes of them, in a
    third of its time; None for anything else.

    The values are always `np.asarray`'s, and so is the dtype (`np.int_`) unless
    a row mixes in numpy integer scalars or other objects with `__index__`: the
    first value must be a Python int, bools then count as ints, as they do for
    `np.asarray`.
    """
    if type(rows) is not list or not rows:
        return None
    first = rows[0]
    if type(first) is not list or not first or type(first[0]) is not int:
        return None
    width = len(first)
    for row in rows:
        if type(row) is not list or len(row) != width:
            return None
    try:
        cells = b"".join(map(bytes, rows))
    except (TypeError, ValueError):
        return None
    return np.frombuffer(cells, dtype=np.uint8).astype(np.int_).reshape(len(rows), width)


class _KeptRows(threading.local):
    """The calling thread's last read-only mask that `mask_lists` gave as lists,
    with those lists (never handed out)."""

    kept: Optional[Tuple[npt.NDArray[Any], List[List[int]]]] = None


_kept_rows = _KeptRows()


def mask_lists(mask: npt.NDArray[Any]) -> List[List[int]]:
    """`mask.tolist()`: new lists, the caller's. The rows of the last
    read-only mask (`is_frozen`) asked in this thread are kept, so that
    asking again copies them, and `known_mask` tells them in a list mask
    (`get_valid_moves` then `to_observation(move_mask=...)`)."""
    kept = _kept_rows.kept
    if kept is None or kept[0] is not mask:
        rows: List[List[int]] = mask.tolist()
        if type(mask) is not np.ndarray or not is_frozen(mask):
            return rows
        kept = _kept_rows.kept = (mask, rows)
    return list(map(list.copy, kept[1]))


def known_mask(rows: List[Any]) -> Optional[npt.NDArray[Any]]:
    """The read-only mask whose rows `mask_lists` last gave in this thread,
    when `rows` (a list) holds rows equal to those (lists of values `==` to
    its 0s and 1s), else None."""
    kept = _kept_rows.kept
    if kept is None or len(rows) != len(kept[1]):
        return None
    for row in rows:
        if type(row) is not list:
            return None
    try:
        same = rows == kept[1]
    except Exception:  # a value whose == fails, or has no single truth value
        return None
    return kept[0] if same is True else None


def mask_rows(mask: Optional[npt.NDArray[Any]], num_rules: int) -> int:
    """`R`: `num_rules`, or the row count of the mask if that is larger."""
    return max(num_rules, 0 if mask is None else mask.shape[0])


def write_mask(
    dest: FloatArray,
    mask: Optional[npt.NDArray[Any]],
    max_seq_len: int,
    as_probabilities: bool = False,
) -> FloatArray:
    """Write the mask into the zeroed flat `R * L` array `dest`, row-major
    `(rule, node)`; padding stays zero.

    Valid actions get 1.0, or with `as_probabilities` an equal share of 1.0 (the
    uniform distribution over valid actions; all zeros when none is valid).
    """
    if mask is not None and mask.size:
        rows, cols = mask.shape
        block = dest.reshape(-1, max_seq_len)[:rows, :cols]
        block[...] = mask != 0
        if as_probabilities:
            total = block.sum()
            if total > 0:
                block /= total
    return dest


def action_mask(
    mask: Optional[npt.NDArray[Any]],
    num_rules: int,
    max_seq_len: int,
    as_probabilities: bool = False,
) -> FloatArray:
    """The flattened `R * L` mask, row-major `(rule, node)`, zero padded; `mask`
    comes from `mask_matrix`, values are those of `write_mask`.

    `R` is `num_rules`, or the row count of `mask` if that is larger.
    """
    dest = np.zeros(mask_rows(mask, num_rules) * max_seq_len, np.float32)
    return write_mask(dest, mask, max_seq_len, as_probabilities)


# -- builder inputs -----------------------------------------------------------------


class ObservationInputs(NamedTuple):
    """Everything a builder gets, checked: the expression fits in `max_seq_len`
    nodes and `move_mask` in `max_seq_len` columns.

    - `state`: the state being observed (its history, moves, problem type...)
    - `layout`: the expression's node arrays, indexed in action order; its
      arrays are read-only (copy one before changing it). A built-in type gets
      the cached layout; your own types get one made from a private copy of the
      tree, whose `nodes` are yours to keep or change
    - `problem_hash`: the two-value problem type hash
    - `time`: the fraction of the episode's moves used, in [0, 1]
    - `move_mask`: the `(rows, nodes)` valid-move matrix, or None (no valid move);
      the env's cached mask is read-only, so copy it before changing it
    - `num_rules`: the state's rule count (the mask has at least that many rows)
    - `normalize`: scale every feature into [0, 1]
    - `max_seq_len`: `L`, the node count to pad to
    - `mask_as_probabilities`: write the mask as a distribution over valid actions
      instead of 0/1 (`action_mask()` and `write_mask()` do it)
    - `revisits`: the revisit feature (`revisit_feature`) when the observation
      was asked to carry it, else None; the built-in types then add it (a value
      after the time in flat observations, a fifth node-feature column in the
      others), and so does `node_features()`

    Builders read the fields by name (the built-in ones do); the order above
    is the order of the tuple.
    """

    state: ObservedState
    layout: NodeLayout
    problem_hash: Tuple[float, float]
    time: float
    move_mask: Optional[npt.NDArray[Any]]
    num_rules: int
    normalize: bool
    max_seq_len: int
    mask_as_probabilities: bool = False
    revisits: Optional[float] = None

    @property
    def num_nodes(self) -> int:
        """The expression's node count (at most `max_seq_len`)."""
        return len(self.layout)

    @property
    def mask_rows(self) -> int:
        """`R`: the rows of the action mask."""
        return mask_rows(self.move_mask, self.num_rules)

    def action_mask(self) -> FloatArray:
        """The flat `R * L` action mask (0/1 or probabilities)."""
        return action_mask(
            self.move_mask, self.num_rules, self.max_seq_len, self.mask_as_probabilities
        )

    def write_mask(self, dest: FloatArray) -> FloatArray:
        """Write the action mask into the zeroed flat `R * L` array `dest`."""
        return write_mask(
            dest, self.move_mask, self.max_seq_len, self.mask_as_probabilities
        )

    def node_features(self, rows: Optional[int] = None) -> FloatArray:
        """`(rows, 4)` node features in action order (`rows = L` by default), in
        a new array; `(rows, 5)` with the revisit feature."""
        return node_features(
            self.layout,
            self.time,
            self.normalize,
            self.max_seq_len if rows is None else rows,
            self.revisits,
        )


# -- gymnasium spaces shared by several types ----------------------------------------


def action_mask_space(max_seq_len: int, num_rules: int) -> "spaces.Box":
    """The `(R * L,)` float32 action mask in [0, 1] (0/1 or probabilities)."""
    from gymnasium import spaces

    return spaces.Box(0.0, 1.0, (num_rules * max_seq_len,), np.float32)


def node_features_space(max_seq_len: int, revisits: bool = False) -> "spaces.Box":
    """`(L, 4)` normalized float32 node features, `(L, 5)` with `revisits`."""
    from gymnasium import spaces

    columns = NODE_FEATURES + 1 if revisits else NODE_FEATURES
    return spaces.Box(0.0, 1.0, (max_seq_len, columns), np.float32)


def node_count_space(max_seq_len: int) -> "spaces.Discrete":
    """A node count, `0..L`."""
    from gymnasium import spaces

    return spaces.Discrete(max_seq_len + 1)


# -- observation kinds ------------------------------------------------------------------


class ObservationKind(ABC, Generic[ObservationT]):
    """One observation type: its name, how to build it and its Gymnasium space.

    Subclass it, set `name` and implement `build` and `space`, then register an
    instance with `register_observation`: `obs_type=name` then selects it in
    `MathyEnvState.to_observation`, `MathyEnv.state_to_observation` and the
    Gymnasium adapter.
    """

    name: str
    """The type's `obs_type` string (letters, digits, `_`, `-` and `.`)."""

    @abstractmethod
    def build(self, inputs: ObservationInputs) -> ObservationT:
        """The observation of `inputs` (a new object on every call: callers may
        write into its arrays)."""

    @abstractmethod
    def space(self, max_seq_len: int, num_rules: int) -> "spaces.Space[Any]":
        """The Gymnasium space of normalized observations with `L = max_seq_len`
        and `R = num_rules`, holding every value `to_gym(build(...))` gives.

        Import gymnasium inside this method: it is an optional dependency. A type
        that takes the revisit feature (the built-in ones do) has a keyword
        `revisits: bool = False` here, and its space with `revisits=True` holds
        the observations built with `inputs.revisits` set; the Gymnasium adapter
        asks for the feature only from such types (`takes_revisits`).
        """

    def takes_revisits(self) -> bool:
        """Whether the type's observations take the revisit feature: its `space`
        has a `revisits` parameter. The Gymnasium adapter asks a type for the
        feature only then, so that its observations always fit its space."""
        try:
            return "revisits" in inspect.signature(self.space).parameters
        except (TypeError, ValueError):
            return False

    def space_for(
        self, max_seq_len: int, num_rules: int, revisits: bool = False
    ) -> "spaces.Space[Any]":
        """`space`, with `revisits=True` passed on to a type that takes it
        (`takes_revisits`)."""
        if revisits and self.takes_revisits():
            space: "spaces.Space[Any]" = self.space(  # type: ignore[call-arg]
                max_seq_len, num_rules, revisits=True
            )
            return space
        return self.space(max_seq_len, num_rules)

    def to_gym(self, observation: ObservationT) -> Any:
        """The observation as a value of `space`: arrays as they are, named tuples
        as a dict of their fields, anything else unchanged."""
        if isinstance(observation, np.ndarray):
            return observation
        as_dict = getattr(observation, "_asdict", None)
        if callable(as_dict):
            return dict(as_dict())
        return observation

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {getattr(self, 'name', '?')!r}>"


__all__ = (
    "FloatArray",
    "IntArray",
    "MathyObservation",
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
    "known_mask",
    "mask_lists",
    "mask_matrix",
    "mask_rows",
    "node_count_space",
    "node_features",
    "node_features_space",
    "node_types",
    "node_values",
    "revisit_feature",
    "revisit_value",
    "write_mask",
)
