"""PyTorch Geometric graphs from graph and message-passing observations.

`to_pyg_data` turns one `graph` or `message_passing` observation (the named tuple
the library builds, or the dict the Gymnasium adapter returns, also inside its
`mask_in_observation` dict) into a
`torch_geometric.data.Data` holding only the expression's real nodes and edges;
`to_pyg_batch` turns a list of them, or the stacked observation of a Gymnasium
vector environment, into a `torch_geometric.data.Batch`.

Every graph has:

- `x`: `(num_nodes, F)` float32 node features (`[type_id, value, time, is_leaf]`),
  row `i` being the `i`-th node from the left, the node of action column `i`
- `edge_index`: `(2, E)` int64 edges. Observations hold one edge per tree link,
  from parent to child, so messages flow from the root towards the leaves only;
  with `reverse_edges=True` every link also gets its child -> parent edge (edge
  `j + E/2` is edge `j` reversed)
- `edge_type`: `(E,)` int64, `PARENT_TO_CHILD` (0) or `CHILD_TO_PARENT` (1)
- `child_side`: `(E,)` int64, 0 when the edge's child is a left child, 1 when it
  is a right child (a reverse edge keeps the side of the link it reverses); it
  is the `edge_types` array of a message-passing observation, extended to the
  reverse edges, and is read from the node order for graph observations, so both
  types give the same graph. `2 * edge_type + child_side` numbers the four kinds
  of edge, for relational layers such as `RGCNConv(num_relations=4)`
- `action_mask`: `(num_nodes, R)` bool, `action_mask[node, rule]` is True exactly
  when action `rule * max_seq_len + node` is valid (the observation's flat mask
  has a nonzero there; `R` is the number of rules)
- `max_seq_len`: the `L` of the observation, needed to build actions

`node_actions(data)` gives the env action of every `(node, rule)` cell, for a
`Data` or a `Batch` alike, so a policy that scores nodes can map its choice back
to the action to pass to `step`.

torch and torch_geometric are optional: they are imported when a function runs,
never by `import mathy_envs.pyg`; without them the functions raise `ImportError`.
"""

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, NamedTuple, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .limits import quote
from .observations import MathyGraphObservation, MathyMessagePassingObservation

if TYPE_CHECKING:  # optional dependencies, imported where they are used
    import torch
    from torch_geometric.data import Batch, Data

PARENT_TO_CHILD = 0
"""`edge_type` of the edges every observation holds: parent -> child."""
CHILD_TO_PARENT = 1
"""`edge_type` of the edges `reverse_edges=True` adds: child -> parent."""

GRAPH_KEYS = ("node_features", "adjacency", "action_mask", "num_nodes")
"""The fields a graph observation (or its dict) needs."""
MESSAGE_PASSING_KEYS = (
    "node_features",
    "edge_index",
    "edge_types",
    "action_mask",
    "num_nodes",
    "num_edges",
)
"""The fields a message-passing observation (or its dict) needs."""

_INSTALL = "pip install torch torch_geometric"


class _Graph(NamedTuple):
    """One observation without its padding, as numpy arrays."""

    x: npt.NDArray[np.float32]
    edge_index: npt.NDArray[np.int64]
    child_side: npt.NDArray[np.int64]
    action_mask: npt.NDArray[np.bool_]
    max_seq_len: int


def _pyg() -> Tuple[Any, Any]:
    """The `torch` and `torch_geometric.data` modules, or an `ImportError` that
    says what to install."""
    try:
        import torch
        import torch_geometric.data
    except ImportError as error:
        raise ImportError(
            f"mathy_envs.pyg needs torch and torch_geometric: {_INSTALL} "
            f"({error})"
        ) from error
    return torch, torch_geometric.data


# -- reading observations ----------------------------------------------------------


def _fields(observation: Any, what: str) -> Tuple[str, Mapping[str, Any]]:
    """`("graph" | "message_passing", fields)` of an observation or its dict."""
    if isinstance(observation, (MathyGraphObservation, MathyMessagePassingObservation)):
        fields: Mapping[str, Any] = observation._asdict()
    elif isinstance(observation, Mapping):
        if set(observation) == {"observations", "action_mask"}:
            # mask_in_observation=True: the observation is under "observations",
            # with a mask of its own (the same valid actions as the outer one).
            return _fields(observation["observations"], what)
        fields = observation
    else:
        raise ValueError(
            f"{what} must be a graph or message_passing observation (a "
            "MathyGraphObservation, a MathyMessagePassingObservation or the dict the "
            f"Gymnasium adapter returns, alone or with mask_in_observation), got {type(observation).__name__} "
            f"{quote(observation, 60)}"
        )
    graph, passing = "adjacency" in fields, "edge_index" in fields
    if graph == passing:
        found = "both 'adjacency' and 'edge_index'" if graph else "neither"
        raise ValueError(
            f"{what} must hold 'adjacency' (a graph observation) or 'edge_index' (a "
            f"message_passing observation), it has {found}: keys {quote(list(fields))}"
        )
    kind, keys = (
        ("graph", GRAPH_KEYS) if graph else ("message_passing", MESSAGE_PASSING_KEYS)
    )
    missing = [key for key in keys if key not in fields]
    if missing:
        raise ValueError(
            f"{what} is a {kind} observation without {', '.join(missing)}: keys "
            f"{quote(list(fields))}"
        )
    return kind, fields


def _array(value: Any, name: str, ndim: int, what: str) -> npt.NDArray[Any]:
    """`value` as a finite numeric array of `ndim` dimensions."""
    try:
        array = np.asarray(value)
    except Exception as error:  # a ragged list, an object numpy can't read
        raise ValueError(
            f"{what}: {name} must be an array, got {quote(value)} ({error})"
        ) from None
    if array.dtype.kind not in "biuf":
        raise ValueError(
            f"{what}: {name} must be a numeric array, got dtype {array.dtype}: "
            f"{quote(value)}"
        )
    if array.ndim != ndim:
        raise ValueError(
            f"{what}: {name} must have {ndim} dimensions, got shape {array.shape}"
        )
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise ValueError(f"{what}: {name} holds NaN or infinite values")
    return array


def _shape(value: Any) -> Tuple[int, ...]:
    """The shape of an array-like value, `()` when it has none."""
    try:
        return tuple(np.shape(value))
    except ValueError:  # a ragged list
        return ()


def _count(value: Any, name: str, low: int, high: int, what: str) -> int:
    """`value` as an int in `[low, high]` (a Python or numpy int, or an integer
    array of one element)."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu":
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what}: {name} must be an int, got {quote(value)}")
    count = int(value)
    if not low <= count <= high:
        raise ValueError(
            f"{what}: {name} must be between {low} and {high}, got {count}"
        )
    return count


def _read(observation: Any, what: str) -> _Graph:
    """The real nodes, edges and mask of one observation, checked."""
    kind, fields = _fields(observation, what)
    features = _array(fields["node_features"], "node_features", 2, what)
    if features.shape[0] == 0:
        raise ValueError(f"{what}: node_features has no rows")
    length = features.shape[0]
    num_nodes = _count(fields["num_nodes"], "num_nodes", 1, length, what)
    flat_mask = _array(fields["action_mask"], "action_mask", 1, what)
    if flat_mask.size == 0 or flat_mask.size % length:
        raise ValueError(
            f"{what}: action_mask has {flat_mask.size} entries, not a positive "
            f"multiple of max_seq_len={length} (node_features rows)"
        )
    mask = flat_mask.reshape(-1, length)
    if flat_mask.size and (flat_mask.min() < 0 or flat_mask.max() > 1):
        raise ValueError(
            f"{what}: action_mask must hold 0/1 values or probabilities in [0, 1], "
            f"got values from {flat_mask.min()} to {flat_mask.max()}"
        )
    if (mask[:, num_nodes:] != 0).any():
        raise ValueError(
            f"{what}: action_mask marks actions at padding nodes (columns "
            f"{num_nodes} and up of each rule's {length})"
        )
    if kind == "graph":
        adjacency = _array(fields["adjacency"], "adjacency", 2, what)
        if adjacency.shape != (length, length):
            raise ValueError(
                f"{what}: adjacency must be ({length}, {length}), got shape "
                f"{adjacency.shape}"
            )
        if not np.isin(adjacency, (0, 1)).all():
            raise ValueError(f"{what}: adjacency must hold only 0s and 1s")
        parents, children = np.nonzero(adjacency)
        if parents.size and max(parents.max(), children.max()) >= num_nodes:
            raise ValueError(
                f"{what}: adjacency links padding nodes (only the first "
                f"num_nodes={num_nodes} rows and columns are real)"
            )
        edges = np.stack([parents, children]).astype(np.int64)
        # Rows are in-order: a left child comes before its parent, a right one after.
        side = (children > parents).astype(np.int64)
    else:
        edge_index = _array(fields["edge_index"], "edge_index", 2, what)
        if edge_index.shape[0] != 2 or edge_index.dtype.kind not in "iu":
            raise ValueError(
                f"{what}: edge_index must be a (2, K) integer array, got shape "
                f"{edge_index.shape} and dtype {edge_index.dtype}"
            )
        capacity = edge_index.shape[1]
        num_edges = _count(fields["num_edges"], "num_edges", 0, capacity, what)
        edge_types = _array(fields["edge_types"], "edge_types", 1, what)
        if edge_types.shape != (capacity,) or edge_types.dtype.kind not in "iu":
            raise ValueError(
                f"{what}: edge_types must be a ({capacity},) integer array like "
                f"edge_index's columns, got shape {edge_types.shape} and dtype "
                f"{edge_types.dtype}"
            )
        edges = edge_index[:, :num_edges].astype(np.int64)
        side = edge_types[:num_edges].astype(np.int64)
        if edges.size and (int(np.min(edges)) < 0 or int(np.max(edges)) >= num_nodes):
            raise ValueError(
                f"{what}: edge_index has edges outside the real nodes "
                f"0..{num_nodes - 1} in its first num_edges={num_edges} columns"
            )
        if side.size and not np.isin(side, (0, 1)).all():
            raise ValueError(
                f"{what}: edge_types must be 0 (left child) or 1 (right child), got "
                f"{quote(sorted(set(side.tolist())))}"
            )
    return _Graph(
        x=np.array(features[:num_nodes], dtype=np.float32),
        edge_index=edges,
        child_side=side,
        action_mask=np.ascontiguousarray((mask[:, :num_nodes] != 0).T),
        max_seq_len=length,
    )


def _check_flag(reverse_edges: Any) -> None:
    if not isinstance(reverse_edges, (bool, np.bool_)):
        raise ValueError(f"reverse_edges must be True or False, got {quote(reverse_edges)}")


def _to_data(graph: _Graph, reverse_edges: bool) -> "Data":
    torch, pyg_data = _pyg()
    edges, side = graph.edge_index, graph.child_side
    kinds: npt.NDArray[np.int64] = np.full(edges.shape[1], PARENT_TO_CHILD, np.int64)
    if reverse_edges:
        edges = np.concatenate([edges, edges[::-1]], axis=1)
        side = np.concatenate([side, side])
        kinds = np.concatenate([kinds, np.full_like(kinds, CHILD_TO_PARENT)])
    return pyg_data.Data(
        x=torch.from_numpy(graph.x),
        edge_index=torch.from_numpy(np.ascontiguousarray(edges)),
        edge_type=torch.from_numpy(kinds),
        child_side=torch.from_numpy(np.ascontiguousarray(side)),
        action_mask=torch.from_numpy(graph.action_mask),
        max_seq_len=graph.max_seq_len,
        num_nodes=graph.x.shape[0],
    )


# -- public functions ------------------------------------------------------------------


def to_pyg_data(observation: Any, *, reverse_edges: bool = False) -> "Data":
    """One observation as a `torch_geometric.data.Data` without its padding.

    Arguments:
        observation: a `graph` or `message_passing` observation: the
            `MathyGraphObservation` / `MathyMessagePassingObservation` that
            `state.to_observation` and `env.state_to_observation` build, or the
            dict of the same fields that `MathyGymEnv` returns (alone or, with
            `mask_in_observation=True`, under `"observations"`)
        reverse_edges: also add a child -> parent edge for every parent -> child
            edge (`edge_type` 1), so messages reach the root too

    Returns a `Data` with `x` `(num_nodes, F)` float32, `edge_index` `(2, E)`
    int64, `edge_type` and `child_side` `(E,)` int64, `action_mask`
    `(num_nodes, R)` bool and `max_seq_len` (see the module's description). Node
    `i` is the node of action column `i`: action `rule * max_seq_len + i`.

    Raises `ValueError` for anything else (another observation type, a stacked
    vector-env observation: use `to_pyg_batch`, arrays of the wrong shape, edges
    or mask entries at padding nodes), `ImportError` without torch_geometric.
    """
    _check_flag(reverse_edges)
    _pyg()
    _, fields = _fields(observation, "observation")
    shape = _shape(fields["node_features"])
    if len(shape) == 3:
        raise ValueError(
            f"observation is a stacked batch of {shape[0]} observations "
            f"(node_features has shape {shape}): convert it with to_pyg_batch"
        )
    return _to_data(_read(observation, "observation"), bool(reverse_edges))


def to_pyg_batch(observations: Any, *, reverse_edges: bool = False) -> "Batch":
    """Several observations as one `torch_geometric.data.Batch`.

    Arguments:
        observations: a non-empty list (or tuple) of observations that
            `to_pyg_data` accepts, or one stacked observation with a leading batch
            dimension: what a Gymnasium vector environment (`SyncVectorEnv`,
            `AsyncVectorEnv`) of `obs_type="graph"` or `"message_passing"` returns
            from `reset` and `step`
        reverse_edges: as in `to_pyg_data`

    Graph `b` of the batch is observation `b` (environment `b` of a vector
    environment), the same graph `to_pyg_data` gives for it: `batch.ptr[b]` is
    the index of its first node, `batch.batch` the graph of each node, and
    `batch.max_seq_len` a `(B,)` tensor. `node_actions(batch)` gives the env
    action of every `(node, rule)` cell.

    Raises `ValueError` for an empty list, a single unstacked observation (use
    `to_pyg_data`), stacked arrays whose batch sizes differ, observations with
    different rule counts, or any observation `to_pyg_data` refuses (the message
    names its position); `ImportError` without torch_geometric.
    """
    _check_flag(reverse_edges)
    _, pyg_data = _pyg()
    graphs = [
        _to_data(_read(item, what), bool(reverse_edges))
        for what, item in _items(observations)
    ]
    rules = {graph.action_mask.shape[1] for graph in graphs}
    if len(rules) > 1:
        raise ValueError(
            f"observations have different rule counts {sorted(rules)} (action_mask "
            "rows); a batch needs one"
        )
    return pyg_data.Batch.from_data_list(graphs)


def _items(observations: Any) -> List[Tuple[str, Any]]:
    """`(name for errors, observation)` of every observation of a list or of a
    stacked observation."""
    stacked = isinstance(
        observations, (Mapping, MathyGraphObservation, MathyMessagePassingObservation)
    )
    if stacked:
        kind, fields = _fields(observations, "observations")
        keys = GRAPH_KEYS if kind == "graph" else MESSAGE_PASSING_KEYS
        shape = _shape(fields["node_features"])
        if len(shape) != 3:
            raise ValueError(
                "observations is not a stacked batch (node_features has shape "
                f"{shape}, not (B, L, F)): convert a single observation with "
                "to_pyg_data, or pass a list"
            )
        size = shape[0]
        if size == 0:
            raise ValueError("observations is a stacked batch of 0 observations")
        arrays: Dict[str, npt.NDArray[Any]] = {}
        for key in keys:
            array = _array(fields[key], key, len(_shape(fields[key])), "observations")
            if array.ndim == 0 or array.shape[0] != size:
                raise ValueError(
                    f"observations: {key} has shape {array.shape}, but node_features "
                    f"stacks {size} observations"
                )
            arrays[key] = array
        return [
            (f"observation {b}", {key: array[b] for key, array in arrays.items()})
            for b in range(size)
        ]
    if isinstance(observations, (list, tuple)):
        if not observations:
            raise ValueError("observations is empty: a batch needs one graph at least")
        return [(f"observation {b}", item) for b, item in enumerate(observations)]
    raise ValueError(
        "observations must be a list of graph or message_passing observations or a "
        f"stacked vector-env observation (a dict), got {type(observations).__name__} "
        f"{quote(observations)}"
    )


def node_actions(data: Any) -> "torch.Tensor":
    """The env action of every `(node, rule)` cell of a graph or a batch.

    Returns a `(num_nodes, R)` int64 tensor shaped like `data.action_mask`, on
    its device: entry
    `[node, rule]` is `rule * max_seq_len + i`, where `i` is the node's index within
    its own graph (`node - batch.ptr[batch.batch[node]]` in a `Batch`). Pass it to
    that graph's env (`env.step(action)`; `to_action` decodes it back to
    `(rule, i)`). The action is valid exactly where `data.action_mask` is True.

    Raises `ValueError` unless `data` is a `Data` or `Batch` made by `to_pyg_data`
    or `to_pyg_batch` (it needs `action_mask` and `max_seq_len`).
    """
    torch, pyg_data = _pyg()
    if not isinstance(data, pyg_data.Data) or not all(
        key in data for key in ("action_mask", "max_seq_len")
    ):
        raise ValueError(
            "node_actions needs a Data or Batch from to_pyg_data or to_pyg_batch "
            f"(with action_mask and max_seq_len), got {type(data).__name__} "
            f"{quote(data)}"
        )
    mask = data.action_mask
    num_nodes, num_rules = mask.shape
    device = mask.device  # the graph's device (after data.to("cuda"), say)
    lengths = torch.as_tensor(data.max_seq_len, dtype=torch.long, device=device)
    lengths = lengths.reshape(-1)
    local = torch.arange(num_nodes, dtype=torch.long, device=device)
    if isinstance(data, pyg_data.Batch):
        graph_of = data.batch
        local = local - data.ptr[graph_of]
        lengths = lengths[graph_of]
    rules = torch.arange(num_rules, dtype=torch.long, device=device)
    return rules[None, :] * lengths.reshape(-1, 1) + local[:, None]


__all__ = (
    "CHILD_TO_PARENT",
    "GRAPH_KEYS",
    "MESSAGE_PASSING_KEYS",
    "PARENT_TO_CHILD",
    "node_actions",
    "to_pyg_batch",
    "to_pyg_data",
)
