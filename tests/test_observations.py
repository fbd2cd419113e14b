"""Observations of a state.

Expected values are computed independently from mathy_core trees (a fresh
`ExpressionParser`, `to_list(...)`, `.parent`/`.left`/`.right`) rather than from
the library's own node arrays.
"""

from collections import deque
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mathy_core import ConstantExpression, ExpressionParser, MathExpression
from mathy_core.expressions import MathTypeKeys

from mathy_envs import MathyEnv, MathyEnvState, MathyObservation, envs
from mathy_envs.observations import (
    ObservationInputs,
    ObservationKind,
    register_observation,
    unregister_observation,
)
from mathy_envs.observations.common import mask_matrix
from mathy_envs.state import (
    MathyGraphObservation,
    MathyHierarchicalObservation,
    MathyMessagePassingObservation,
    ObservationType,
)

from helpers import play

MAX_TYPE_ID = max(MathTypeKeys.values())
STRUCTURED = [
    ObservationType.GRAPH,
    ObservationType.HIERARCHICAL,
    ObservationType.MESSAGE_PASSING,
]
ALL_TYPES = [ObservationType.FLAT] + STRUCTURED
STRUCTURED_CLASSES = {
    ObservationType.GRAPH: MathyGraphObservation,
    ObservationType.HIERARCHICAL: MathyHierarchicalObservation,
    ObservationType.MESSAGE_PASSING: MathyMessagePassingObservation,
}

# Pre-order and in-order differ for all but the single-node expressions; they
# cover constants (positive, negative, fractional), unary negation (child on the
# right), powers, subtraction and parentheses.
EXPRESSIONS = [
    "4x + 2y + 3 * (x + 7)",
    "-3x + 7",
    "2x^2 * (y - 4)",
    "-(x + 2) + 0.5y",
    "12",
    "x",
]
MAIN = "4x + 2y + 3 * (x + 7)"

_parser = ExpressionParser()


def tree(text: str) -> MathExpression:
    return _parser.parse(text)


def raw_value(node: MathExpression) -> float:
    if isinstance(node, ConstantExpression):
        return float(node.value or 0.0)
    return 0.0


def depth_of(node: MathExpression) -> int:
    depth = 0
    while node.parent is not None:
        node = node.parent
        depth += 1
    return depth


def is_leaf(node: MathExpression) -> float:
    return 1.0 if node.left is None and node.right is None else 0.0


def minmax(values: Sequence[float]) -> List[float]:
    arr = np.asarray(values, dtype=np.float64)
    low, high = arr.min(), arr.max()
    if high - low <= 0:
        return [0.0] * len(values)
    return list((arr - low) / (high - low))


def level_order(root: MathExpression) -> List[MathExpression]:
    out: List[MathExpression] = []
    queue = deque([root])
    while queue:
        node = queue.popleft()
        out.append(node)
        if node.left is not None:
            queue.append(node.left)
        if node.right is not None:
            queue.append(node.right)
    return out


def make_state(
    text: str,
    num_rules: int = 3,
    max_moves: int = 10,
    moves_remaining: Optional[int] = None,
) -> MathyEnvState:
    state = MathyEnvState(
        problem=text,
        max_moves=max_moves,
        num_rules=num_rules,
        problem_type="mathy.polynomials.simplify",
    )
    if moves_remaining is not None:
        state = state.get_out_state(text, (0, 0), moves_remaining)
    return state


def expected_features(
    nodes: Sequence[MathExpression], all_nodes: Sequence[MathExpression], time: float,
    normalize: bool,
) -> np.ndarray:
    """`[type_id, value, time, is_leaf]` for `nodes` (value min-max over all_nodes)."""
    values_all = [raw_value(n) for n in all_nodes]
    if normalize:
        scaled = dict(zip(map(id, all_nodes), minmax(values_all)))
    else:
        scaled = dict(zip(map(id, all_nodes), values_all))
    rows = []
    for node in nodes:
        type_id = node.type_id / MAX_TYPE_ID if normalize else float(node.type_id)
        rows.append([type_id, scaled[id(node)], time, is_leaf(node)])
    return np.asarray(rows, dtype=np.float64)


def one_hot_mask(num_rules: int, num_nodes: int, rule: int, node: int) -> List[List[int]]:
    mask = [[0] * num_nodes for _ in range(num_rules)]
    mask[rule][node] = 1
    return mask


def random_mask(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    return (rng.random((rows, cols)) < 0.4).astype(np.int64)


# -- shapes and dtypes --------------------------------------------------------


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_flat_shape_dtype_and_layout(text: str, normalize: bool) -> None:
    L, R = 16, 4
    state = make_state(text, num_rules=R, moves_remaining=7)
    root = tree(text)
    pre = root.to_list("preorder")
    n = len(pre)
    obs = state.to_observation(max_seq_len=L, normalize=normalize)
    assert isinstance(obs, np.ndarray)
    assert obs.dtype == np.float32
    assert obs.shape == (3 + 2 * L + R * L,)

    hash0, hash1 = state.get_problem_hash()
    assert obs[0] == np.float32(hash0)
    assert obs[1] == np.float32(hash1)
    assert obs[2] == pytest.approx(0.3)

    types = obs[3 : 3 + L]
    values = obs[3 + L : 3 + 2 * L]
    mask = obs[3 + 2 * L :]
    feats = expected_features(pre, pre, 0.3, normalize)
    np.testing.assert_allclose(types[:n], feats[:, 0], rtol=1e-6)
    np.testing.assert_allclose(values[:n], feats[:, 1], rtol=1e-6, atol=1e-7)
    assert not types[n:].any()
    assert not values[n:].any()
    # No move mask: all zeros.
    assert not mask.any()
    if normalize:
        assert obs.min() >= 0.0 and obs.max() <= 1.0


def test_flat_raw_constant_value_and_type_ids() -> None:
    L = 8
    obs = make_state("7x", num_rules=1).to_observation(max_seq_len=L, normalize=False)
    # pre-order of 7x: *, 7, x
    types = obs[3 : 3 + L]
    values = obs[3 + L : 3 + 2 * L]
    assert types[:3].tolist() == [
        MathTypeKeys["multiply"],
        MathTypeKeys["constant"],
        tree("x").type_id,
    ]
    assert values[:3].tolist() == [0.0, 7.0, 0.0]


@pytest.mark.parametrize("obs_type", STRUCTURED)
def test_structured_raw_constant_value_and_type_ids(obs_type: ObservationType) -> None:
    obs = make_state("7x", num_rules=1).to_observation(
        max_seq_len=8, obs_type=obs_type, normalize=False
    )
    features = obs.node_features[:3]
    by_type = {int(row[0]): row for row in features}
    assert set(by_type) == {
        MathTypeKeys["multiply"],
        MathTypeKeys["constant"],
        tree("x").type_id,
    }
    assert by_type[MathTypeKeys["constant"]][1] == 7.0
    assert by_type[MathTypeKeys["multiply"]][1] == 0.0
    assert by_type[tree("x").type_id][1] == 0.0
    normalized = make_state("7x", num_rules=1).to_observation(
        max_seq_len=8, obs_type=obs_type, normalize=True
    )
    assert normalized.node_features.max() <= 1.0


def test_flat_default_max_seq_len_is_128() -> None:
    state = make_state(MAIN, num_rules=2)
    assert state.to_observation().shape == (3 + 2 * 128 + 2 * 128,)
    graph = state.to_observation(obs_type=ObservationType.GRAPH)
    assert graph.node_features.shape == (128, 4)


def test_flat_mask_placement() -> None:
    L, R = 16, 3
    root = tree(MAIN)
    n = len(root.to_list())
    rng = np.random.default_rng(0)
    move_mask = random_mask(rng, R, n)
    obs = make_state(MAIN, num_rules=R).to_observation(move_mask=move_mask, max_seq_len=L)
    mask = obs[3 + 2 * L :].reshape(R, L)
    np.testing.assert_array_equal(mask[:, :n], move_mask)
    assert not mask[:, n:].any()


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("obs_type", STRUCTURED)
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_structured_shapes_and_dtypes(
    text: str, obs_type: ObservationType, normalize: bool
) -> None:
    L, R = 16, 5
    n = len(tree(text).to_list())
    obs = make_state(text, num_rules=R).to_observation(
        max_seq_len=L, normalize=normalize, obs_type=obs_type
    )
    assert isinstance(obs, STRUCTURED_CLASSES[obs_type])
    assert obs.num_nodes == n
    assert type(obs.num_nodes) is int
    assert obs.node_features.shape == (L, 4)
    assert obs.node_features.dtype == np.float32
    assert obs.action_mask.shape == (R * L,)
    assert obs.action_mask.dtype == np.float32
    if isinstance(obs, MathyGraphObservation):
        assert obs.adjacency.shape == (L, L)
        assert obs.adjacency.dtype == np.float32
    elif isinstance(obs, MathyHierarchicalObservation):
        assert obs.level_indices.shape == (L,)
        assert obs.level_indices.dtype == np.int32
        assert type(obs.max_depth) is int
    else:
        assert isinstance(obs, MathyMessagePassingObservation)
        assert obs.edge_index.shape == (2, 2 * L)
        assert obs.edge_index.dtype == np.int64
        assert obs.edge_types.shape == (2 * L,)
        assert obs.edge_types.dtype == np.int64
        assert obs.num_edges == n - 1
        assert type(obs.num_edges) is int


@pytest.mark.parametrize("obs_type", STRUCTURED)
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_structured_normalized_features_in_unit_range(
    text: str, obs_type: ObservationType
) -> None:
    obs = make_state(text, moves_remaining=4).to_observation(
        max_seq_len=16, obs_type=obs_type, normalize=True
    )
    for name, value in obs.to_dict().items():
        if name in ("node_features", "adjacency", "action_mask"):
            assert value.min() >= 0.0 and value.max() <= 1.0, name


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_normalized_type_id_maps_one_type_to_one_value(obs_type: ObservationType) -> None:
    # The same node type gets the same normalized value whatever else is in the
    # expression: type ids are divided by mathy_core's largest id, not min-maxed.
    a = make_state("x + 2", num_rules=1)
    b = make_state("x * y^3 - 1", num_rules=1)
    x_type = tree("x").type_id / MAX_TYPE_ID
    for state, text in ((a, "x + 2"), (b, "x * y^3 - 1")):
        obs = state.to_observation(max_seq_len=16, obs_type=obs_type)
        if isinstance(obs, np.ndarray):
            types = obs[3 : 3 + 16]
            order = tree(text).to_list("preorder")
        else:
            types = obs.node_features[:, 0]
            order = (
                level_order(tree(text))
                if obs_type is ObservationType.HIERARCHICAL
                else tree(text).to_list("inorder")
            )
        x_rows = [i for i, node in enumerate(order) if str(node) == "x"]
        assert x_rows
        for i in x_rows:
            assert types[i] == pytest.approx(x_type)


# -- node order ----------------------------------------------------------------


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("obs_type", [ObservationType.GRAPH, ObservationType.MESSAGE_PASSING])
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_graph_and_message_passing_rows_are_in_action_order(
    text: str, obs_type: ObservationType, normalize: bool
) -> None:
    L = 16
    root = tree(text)
    inorder = root.to_list("inorder")
    n = len(inorder)
    obs = make_state(text, moves_remaining=6).to_observation(
        max_seq_len=L, obs_type=obs_type, normalize=normalize
    )
    expected = expected_features(inorder, inorder, 0.4, normalize)
    np.testing.assert_allclose(obs.node_features[:n], expected, rtol=1e-6, atol=1e-7)
    # The same as the env's own notion of "node i from the left".
    for i in range(n):
        node = MathyEnv.get_token_at_index(root, i)
        assert node is not None
        if not normalize:
            assert obs.node_features[i, 0] == node.type_id
            assert obs.node_features[i, 1] == np.float32(raw_value(node))
    assert not obs.node_features[n:].any()


def test_pre_order_and_in_order_differ_for_main_expression() -> None:
    # Guard: the ordering tests below would be vacuous if these were equal.
    root = tree(MAIN)
    pre = [id(n) for n in root.to_list("preorder")]
    ino = [id(n) for n in root.to_list("inorder")]
    assert pre != ino


@pytest.mark.parametrize("obs_type", [ObservationType.GRAPH, ObservationType.MESSAGE_PASSING])
def test_mask_column_refers_to_node_row(obs_type: ObservationType) -> None:
    L, R = 16, 4
    root = tree(MAIN)
    inorder = root.to_list("inorder")
    n = len(inorder)
    state = make_state(MAIN, num_rules=R)
    for rule in range(R):
        for node_index in range(n):
            move_mask = one_hot_mask(R, n, rule, node_index)
            obs = state.to_observation(
                move_mask=move_mask, max_seq_len=L, obs_type=obs_type, normalize=False
            )
            hot = np.flatnonzero(obs.action_mask)
            assert hot.tolist() == [rule * L + node_index]
            target = MathyEnv.get_token_at_index(root, node_index)
            assert target is not None
            row = obs.node_features[hot[0] % L]
            assert row[0] == target.type_id
            assert row[1] == np.float32(raw_value(target))
            assert row[3] == is_leaf(target)


def test_mask_column_of_constant_three_is_the_three_row() -> None:
    # 4x + 2y + 3 * (x + 7): in-order 4 * x + 2 * y + 3 * x + 7, "3" is node 8,
    # while it is node 9 in pre-order (+ + * 4 x * 2 y * 3 + x 7).
    L, R = 16, 3
    root = tree(MAIN)
    inorder = root.to_list("inorder")
    preorder = root.to_list("preorder")
    three = [i for i, node in enumerate(inorder) if raw_value(node) == 3.0]
    assert three == [8]
    assert [i for i, node in enumerate(preorder) if raw_value(node) == 3.0] == [9]
    move_mask = one_hot_mask(R, len(inorder), 2, 8)
    state = make_state(MAIN, num_rules=R)
    for obs_type in (ObservationType.GRAPH, ObservationType.MESSAGE_PASSING):
        obs = state.to_observation(
            move_mask=move_mask, max_seq_len=L, obs_type=obs_type, normalize=False
        )
        assert obs.action_mask[2 * L + 8] == 1.0
        assert obs.action_mask.sum() == 1.0
        assert obs.node_features[8, 1] == 3.0
        assert obs.node_features[8, 0] == MathTypeKeys["constant"]
    flat = state.to_observation(move_mask=move_mask, max_seq_len=L, normalize=False)
    assert flat[3 + 2 * L + 2 * L + 8] == 1.0
    # Flat values are pre-order: the 3 sits at position 9.
    assert flat[3 + L + 9] == 3.0


def test_env_valid_moves_line_up_with_graph_rows(poly: envs.PolySimplify) -> None:
    # A rule that applies to "+" nodes only shows up in mask columns whose graph
    # row is an add node.
    state = poly.state_from_text(MAIN)
    obs = poly.state_to_observation(state, obs_type=ObservationType.GRAPH, max_seq_len=16)
    assert isinstance(obs, MathyGraphObservation)
    valid = np.asarray(poly.get_valid_moves(state))
    mask = obs.action_mask.reshape(len(poly.rules), 16)
    n = obs.num_nodes
    np.testing.assert_array_equal(mask[:, :n], valid)
    root = tree(MAIN)
    for rule, node_index in zip(*np.nonzero(valid)):
        node = MathyEnv.get_token_at_index(root, int(node_index))
        assert node is not None
        assert poly.rules[rule].can_apply_to(node)


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_hierarchical_rows_are_level_order(text: str, normalize: bool) -> None:
    L = 16
    root = tree(text)
    levels = level_order(root)
    n = len(levels)
    obs = make_state(text, moves_remaining=2).to_observation(
        max_seq_len=L, obs_type=ObservationType.HIERARCHICAL, normalize=normalize
    )
    assert isinstance(obs, MathyHierarchicalObservation)
    expected = expected_features(levels, root.to_list(), 0.8, normalize)
    np.testing.assert_allclose(obs.node_features[:n], expected, rtol=1e-6, atol=1e-7)
    depths = [depth_of(node) for node in levels]
    assert obs.level_indices[:n].tolist() == depths
    assert obs.max_depth == max(depths)
    assert obs.level_indices[:n].tolist() == sorted(depths)
    assert not obs.level_indices[n:].any()
    assert not obs.node_features[n:].any()
    # The first row is the root.
    assert obs.level_indices[0] == 0
    assert obs.node_features[0, 3] == is_leaf(root)


def test_hierarchical_main_expression_levels() -> None:
    root = tree(MAIN)
    obs = make_state(MAIN).to_observation(
        max_seq_len=16, obs_type=ObservationType.HIERARCHICAL, normalize=False
    )
    n = obs.num_nodes
    # Count of nodes per depth, from the tree.
    counts: Dict[int, int] = {}
    for node in root.to_list():
        counts[depth_of(node)] = counts.get(depth_of(node), 0) + 1
    got = np.bincount(obs.level_indices[:n]).tolist()
    assert got == [counts[d] for d in range(max(counts) + 1)]
    assert obs.max_depth == max(depth_of(node) for node in root.to_list()) == 3
    assert got == [1, 2, 4, 6]
    # The deepest level (4, x, 2, y, x, 7), left to right.
    deepest = obs.node_features[:n][obs.level_indices[:n] == 3]
    assert deepest[:, 1].tolist() == [4.0, 0.0, 2.0, 0.0, 0.0, 7.0]
    # Level 2 (4x, 2y, 3, x + 7): *, *, 3, +.
    level2 = obs.node_features[:n][obs.level_indices[:n] == 2]
    assert level2[:, 0].tolist() == [
        MathTypeKeys["multiply"],
        MathTypeKeys["multiply"],
        MathTypeKeys["constant"],
        MathTypeKeys["add"],
    ]


# -- edges ----------------------------------------------------------------------


def _edges_from_tree(root: MathExpression) -> List[Tuple[int, int, int]]:
    """(parent index, child index, type) with in-order indexes, from `.parent`."""
    inorder = root.to_list("inorder")
    index = {id(node): i for i, node in enumerate(inorder)}
    edges = []
    for node in inorder:
        if node.parent is None:
            continue
        kind = 0 if node.parent.left is node else 1
        edges.append((index[id(node.parent)], index[id(node)], kind))
    return edges


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_adjacency_edge_index_and_edge_types_describe_the_tree(text: str) -> None:
    L = 16
    root = tree(text)
    n = len(root.to_list())
    state = make_state(text)
    graph = state.to_observation(max_seq_len=L, obs_type=ObservationType.GRAPH)
    mp = state.to_observation(max_seq_len=L, obs_type=ObservationType.MESSAGE_PASSING)
    edges = _edges_from_tree(root)
    assert len(edges) == n - 1

    assert mp.num_edges == n - 1
    assert int(graph.adjacency.sum()) == n - 1
    assert set(np.unique(graph.adjacency).tolist()) <= {0.0, 1.0}
    for parent, child, _ in edges:
        assert graph.adjacency[parent, child] == 1.0
        # Directed parent -> child only.
        assert graph.adjacency[child, parent] == 0.0

    got = {
        (int(p), int(c), int(t))
        for p, c, t in zip(
            mp.edge_index[0, : mp.num_edges],
            mp.edge_index[1, : mp.num_edges],
            mp.edge_types[: mp.num_edges],
        )
    }
    assert got == set(edges)
    assert len(got) == mp.num_edges  # no duplicates
    # Padding edge columns are zero.
    assert not mp.edge_index[:, mp.num_edges :].any()
    assert not mp.edge_types[mp.num_edges :].any()
    # Padding adjacency rows and columns are zero.
    assert not graph.adjacency[n:, :].any()
    assert not graph.adjacency[:, n:].any()


def test_unary_negation_child_is_a_right_edge() -> None:
    root = tree("-x")
    negate, x = root, root.right
    assert x is not None and negate.left is None
    mp = make_state("-x").to_observation(
        max_seq_len=4, obs_type=ObservationType.MESSAGE_PASSING, normalize=False
    )
    # In-order: "-" (0), x (1).
    assert mp.num_edges == 1
    assert mp.edge_index[:, 0].tolist() == [0, 1]
    assert mp.edge_types[0] == 1
    assert mp.node_features[0, 3] == 0.0  # negate is an operator
    assert mp.node_features[1, 3] == 1.0


# -- time ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "max_moves,moves_remaining,expected",
    [
        (10, 10, 0.0),
        (10, 7, 0.3),
        (10, 0, 1.0),
        (8, 2, 0.75),
        (10, -5, 1.0),  # clipped
        (10, 15, 0.0),  # clipped
    ],
)
@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_time_feature(
    obs_type: ObservationType, max_moves: int, moves_remaining: int, expected: float
) -> None:
    L = 16
    state = make_state(MAIN, max_moves=max_moves, moves_remaining=moves_remaining)
    n = len(tree(MAIN).to_list())
    for normalize in (True, False):
        obs = state.to_observation(max_seq_len=L, obs_type=obs_type, normalize=normalize)
        if isinstance(obs, np.ndarray):
            assert obs[2] == pytest.approx(expected)
        else:
            column = obs.node_features[:, 2]
            np.testing.assert_allclose(column[:n], expected, rtol=1e-6)
            assert not column[n:].any()


# -- action mask --------------------------------------------------------------


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_action_mask_rows_from_move_mask_when_larger(obs_type: ObservationType) -> None:
    L, num_rules, rows = 16, 2, 5
    root = tree(MAIN)
    n = len(root.to_list())
    move_mask = random_mask(np.random.default_rng(1), rows, n)
    state = make_state(MAIN, num_rules=num_rules)
    obs = state.to_observation(move_mask=move_mask, max_seq_len=L, obs_type=obs_type)
    mask = obs[3 + 2 * L :] if isinstance(obs, np.ndarray) else obs.action_mask
    assert mask.shape == (rows * L,)
    grid = mask.reshape(rows, L)
    np.testing.assert_array_equal(grid[:, :n], move_mask)
    assert not grid[:, n:].any()


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_action_mask_padded_with_zero_rules_when_smaller(obs_type: ObservationType) -> None:
    L, num_rules = 16, 4
    n = len(tree(MAIN).to_list())
    move_mask = np.ones((2, n), dtype=np.int64)
    obs = make_state(MAIN, num_rules=num_rules).to_observation(
        move_mask=move_mask, max_seq_len=L, obs_type=obs_type
    )
    mask = obs[3 + 2 * L :] if isinstance(obs, np.ndarray) else obs.action_mask
    grid = mask.reshape(num_rules, L)
    assert grid[:2, :n].all()
    assert not grid[:2, n:].any()
    assert not grid[2:].any()


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_no_move_mask_gives_all_zero_mask(obs_type: ObservationType) -> None:
    L, R = 16, 6
    obs = make_state(MAIN, num_rules=R).to_observation(max_seq_len=L, obs_type=obs_type)
    mask = obs[3 + 2 * L :] if isinstance(obs, np.ndarray) else obs.action_mask
    assert mask.shape == (R * L,)
    assert not mask.any()


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_action_mask_is_zero_one_and_accepts_lists(obs_type: ObservationType) -> None:
    L, R = 16, 2
    n = len(tree(MAIN).to_list())
    as_list = [[1 if (r + i) % 3 == 0 else 0 for i in range(n)] for r in range(R)]
    state = make_state(MAIN, num_rules=R)
    a = state.to_observation(move_mask=as_list, max_seq_len=L, obs_type=obs_type)
    b = state.to_observation(move_mask=np.asarray(as_list), max_seq_len=L, obs_type=obs_type)
    ma = a[3 + 2 * L :] if isinstance(a, np.ndarray) else a.action_mask
    mb = b[3 + 2 * L :] if isinstance(b, np.ndarray) else b.action_mask
    np.testing.assert_array_equal(ma, mb)
    assert set(np.unique(ma).tolist()) == {0.0, 1.0}
    assert ma.sum() == sum(map(sum, as_list))


# -- errors and dicts -----------------------------------------------------------


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_too_many_nodes_raises_value_error(obs_type: ObservationType) -> None:
    n = len(tree(MAIN).to_list())
    assert n == 13
    state = make_state(MAIN, num_rules=2)
    for L in (n - 1, 4, 1):
        with pytest.raises(ValueError) as info:
            state.to_observation(max_seq_len=L, obs_type=obs_type)
        message = str(info.value)
        assert str(n) in message
        assert str(L) in message
        assert "max_seq_len" in message
        assert "broadcast" not in message
    # With the env's mask too.
    env = envs.PolySimplify()
    env_state = env.state_from_text(MAIN)
    with pytest.raises(ValueError, match="max_seq_len"):
        env.state_to_observation(env_state, max_seq_len=5, obs_type=obs_type)
    # Exactly L nodes fits.
    obs = state.to_observation(max_seq_len=n, obs_type=obs_type)
    assert obs is not None


def test_too_many_nodes_mathy_observation_raises_value_error() -> None:
    state = make_state(MAIN, num_rules=2)
    with pytest.raises(ValueError, match=r"13.*max_seq_len=5|max_seq_len=5.*13"):
        state.to_mathy_observation(max_seq_len=5)


@pytest.mark.parametrize("bad", ["flatt", "GRAPH", "", "tree", 3])
def test_unknown_observation_type(bad: Any) -> None:
    state = make_state(MAIN)
    with pytest.raises(ValueError, match=r"^Unknown observation type: "):
        state.to_observation(obs_type=bad)


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_string_observation_types_match_enum(obs_type: ObservationType) -> None:
    state = make_state(MAIN, moves_remaining=3)
    n = len(tree(MAIN).to_list())
    mask = random_mask(np.random.default_rng(2), 3, n)
    by_enum = state.to_observation(move_mask=mask, max_seq_len=16, obs_type=obs_type)
    by_str = state.to_observation(move_mask=mask, max_seq_len=16, obs_type=obs_type.value)
    if isinstance(by_enum, np.ndarray):
        np.testing.assert_array_equal(by_enum, by_str)
    else:
        assert type(by_str) is type(by_enum)
        for key, value in by_enum.to_dict().items():
            np.testing.assert_array_equal(value, by_str.to_dict()[key])


def test_observation_type_values() -> None:
    assert [t.value for t in ObservationType] == [
        "flat",
        "graph",
        "hierarchical",
        "message_passing",
    ]


@pytest.mark.parametrize("obs_type", STRUCTURED)
def test_to_dict_keyed_by_field_names(obs_type: ObservationType) -> None:
    obs = make_state(MAIN).to_observation(max_seq_len=16, obs_type=obs_type)
    data = obs.to_dict()
    assert isinstance(data, dict)
    assert list(data) == list(type(obs)._fields)
    for name in type(obs)._fields:
        assert data[name] is getattr(obs, name)
    expected = {
        ObservationType.GRAPH: ["node_features", "adjacency", "action_mask", "num_nodes"],
        ObservationType.HIERARCHICAL: [
            "node_features",
            "level_indices",
            "action_mask",
            "max_depth",
            "num_nodes",
        ],
        ObservationType.MESSAGE_PASSING: [
            "node_features",
            "edge_index",
            "edge_types",
            "action_mask",
            "num_nodes",
            "num_edges",
        ],
    }[obs_type]
    assert list(data) == expected


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_observations_do_not_alias_each_other(obs_type: ObservationType) -> None:
    # Writing into one observation must not change the next one for the same text.
    state = make_state(MAIN)
    first = state.to_observation(max_seq_len=16, obs_type=obs_type, normalize=False)
    arrays = [first] if isinstance(first, np.ndarray) else [
        v for v in first.to_dict().values() if isinstance(v, np.ndarray)
    ]
    snapshot = [a.copy() for a in arrays]
    for a in arrays:
        a[...] = 99
    second = state.to_observation(max_seq_len=16, obs_type=obs_type, normalize=False)
    again = [second] if isinstance(second, np.ndarray) else [
        v for v in second.to_dict().values() if isinstance(v, np.ndarray)
    ]
    for before, after in zip(snapshot, again):
        np.testing.assert_array_equal(before, after)


def test_hash_type_overrides_flat_hash() -> None:
    obs = make_state(MAIN).to_observation(hash_type=[0.25, 0.75], max_seq_len=16)
    assert obs[:2].tolist() == [0.25, 0.75]


# -- MathyObservation --------------------------------------------------------------


def test_state_to_observation_default_is_mathy_observation() -> None:
    env = envs.PolySimplify()
    state = env.state_from_text(MAIN, max_moves=10).get_out_state(MAIN, (0, 0), 6)
    obs = env.state_to_observation(state)
    assert isinstance(obs, MathyObservation)
    root = tree(MAIN)
    pre = root.to_list("preorder")
    assert obs.nodes == [node.type_id for node in pre]
    assert obs.values == [raw_value(node) for node in pre]
    assert len(obs.mask) == len(env.rules)
    assert all(len(row) == len(pre) for row in obs.mask)
    assert obs.mask == env.get_valid_moves(state)
    assert obs.type == state.get_problem_hash()
    assert obs.time == [pytest.approx(0.4)]
    assert isinstance(obs.nodes, list) and isinstance(obs.values, list)
    assert all(isinstance(row, list) for row in obs.mask)


def test_state_to_observation_pads_to_max_seq_len(poly: envs.PolySimplify) -> None:
    state = poly.state_from_text(MAIN)
    L = 20
    obs = poly.state_to_observation(state, max_seq_len=L)
    assert isinstance(obs, MathyObservation)
    pre = tree(MAIN).to_list("preorder")
    n = len(pre)
    assert len(obs.nodes) == len(obs.values) == L
    assert obs.nodes[:n] == [node.type_id for node in pre]
    assert obs.nodes[n:] == [0] * (L - n)
    assert obs.values[:n] == [raw_value(node) for node in pre]
    assert obs.values[n:] == [0.0] * (L - n)
    assert len(obs.mask) == len(poly.rules)
    valid = poly.get_valid_moves(state)
    for row, expected in zip(obs.mask, valid):
        assert len(row) == L
        assert row[:n] == expected
        assert row[n:] == [0] * (L - n)


def test_mathy_observation_without_mask_is_zero_rules_by_nodes() -> None:
    state = make_state(MAIN, num_rules=3)
    obs = state.to_mathy_observation()
    n = len(tree(MAIN).to_list())
    assert obs.mask == [[0] * n for _ in range(3)]
    padded = state.to_mathy_observation(max_seq_len=16)
    assert padded.mask == [[0] * 16 for _ in range(3)]


# -- random reachable states ----------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), steps=st.integers(0, 12))
def test_observation_invariants_on_reachable_states(seed: int, steps: int) -> None:
    state = play(seed, steps)
    env = envs.PolySimplify()
    root = tree(state.agent.problem)
    inorder = root.to_list("inorder")
    n = len(inorder)
    L = max(n, 8) + 3
    move_mask = np.asarray(env.get_valid_moves(state))
    R = move_mask.shape[0]
    time = state.time
    edges = _edges_from_tree(root)

    flat = state.to_observation(move_mask=move_mask, max_seq_len=L)
    assert flat.shape == (3 + 2 * L + R * L,)
    assert flat.min() >= 0.0 and flat.max() <= 1.0
    np.testing.assert_array_equal(flat[3 + 2 * L :].reshape(R, L)[:, :n], move_mask)

    for obs_type in (ObservationType.GRAPH, ObservationType.MESSAGE_PASSING):
        obs = state.to_observation(
            move_mask=move_mask, max_seq_len=L, obs_type=obs_type, normalize=False
        )
        np.testing.assert_allclose(
            obs.node_features[:n], expected_features(inorder, inorder, time, False),
            rtol=1e-6,
        )
        assert not obs.node_features[n:].any()
        np.testing.assert_array_equal(obs.action_mask.reshape(R, L)[:, :n], move_mask)

    graph = state.to_observation(max_seq_len=L, obs_type=ObservationType.GRAPH)
    assert int(graph.adjacency.sum()) == n - 1
    for parent, child, _ in edges:
        assert graph.adjacency[parent, child] == 1.0
    mp = state.to_observation(max_seq_len=L, obs_type=ObservationType.MESSAGE_PASSING)
    got = set(zip(
        mp.edge_index[0, : mp.num_edges].tolist(),
        mp.edge_index[1, : mp.num_edges].tolist(),
        mp.edge_types[: mp.num_edges].tolist(),
    ))
    assert got == set(edges) and mp.num_edges == n - 1

    hier = state.to_observation(max_seq_len=L, obs_type=ObservationType.HIERARCHICAL)
    levels = level_order(root)
    assert hier.level_indices[:n].tolist() == [depth_of(node) for node in levels]
    assert hier.max_depth == max(depth_of(node) for node in levels)
    np.testing.assert_allclose(
        hier.node_features[:n], expected_features(levels, inorder, time, True),
        rtol=1e-6, atol=1e-7,
    )


@pytest.mark.parametrize(
    "kind", ["list", "int8", "bool", "uint64", "masked", "matrix", "int16"]
)
def test_mathy_observation_mask_is_the_int64_values_of_any_matrix(kind: str) -> None:
    env = envs.PolySimplify()
    state = env.state_from_text(MAIN)
    mask = env.valid_moves_array(state)
    given: Any = {
        "list": mask.tolist(),
        "int8": mask,
        "bool": mask.astype(bool),
        "uint64": mask.astype(np.uint64) * np.uint64(2**63),
        "masked": np.ma.array(mask.astype(np.int64), mask=np.ones(mask.shape, bool)),
        "matrix": np.matrix(mask.astype(np.int64)),
        "int16": -mask.astype(np.int16),
    }[kind]
    expected = np.asarray(given, dtype=np.int64).tolist()
    for length in (None, 40):
        rows = state.to_mathy_observation(move_mask=given, max_seq_len=length).mask
        width = len(expected[0]) if length is None else length
        assert rows == [row + [0] * (width - len(row)) for row in expected]
        assert all(type(value) is int for row in rows for value in row)


@pytest.mark.parametrize("shape", [(5,), (), (1, 7, 5)])
def test_mathy_observation_rejects_a_mask_that_is_no_matrix(shape: Any) -> None:
    state = make_state(MAIN)
    for length in (None, 40):
        with pytest.raises(ValueError, match="must be a .num_rules, num_nodes. matrix"):
            state.to_mathy_observation(move_mask=np.zeros(shape, np.int64), max_seq_len=length)


@pytest.mark.parametrize(
    "given",
    [
        [[0, 1, 1], [1, 0, 0]],
        [[1, True, 0], [False, 0, 1]],
        [[True, False], [True, True]],
        [[0, 255], [7, 1]],
        [[0, 256], [1, 1]],
        [[0, -1], [1, 1]],
        [[0, 1.0], [1, 1]],
        [[0, 0.5], [1, 1]],
        [[1, 2, 3]],
        [[0, 1], [1]],
        [[[0, 1]], [[1, 0]]],
        [(0, 1), (1, 0)],
        ((0, 1), (1, 0)),
        [[np.int8(1), 0], [0, 1]],
        [[1, np.int8(1)], [0, 1]],
        [[0, 2**70], [1, 1]],
        [[]],
        [],
    ],
)
def test_a_nested_list_mask_becomes_the_array_numpy_makes_of_it(given: Any) -> None:
    try:
        expected = np.asarray(given)
    except ValueError:
        with pytest.raises(ValueError):
            mask_matrix(given, 8)
        return
    if expected.size == 0:
        expected = expected.reshape(len(expected), 0)
    if expected.ndim != 2:
        with pytest.raises(ValueError, match="matrix"):
            mask_matrix(given, 8)
        return
    got = mask_matrix(given, 8)
    assert got is not None
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)
    # And the observation sees the same valid actions.
    state = make_state("4x + 2y", num_rules=max(len(given), 1))
    flat = state.to_observation(move_mask=given, max_seq_len=8)
    through_array = state.to_observation(move_mask=expected, max_seq_len=8)
    assert np.array_equal(flat, through_array)


def test_an_env_without_rules_gives_empty_masks_both_observations_accept() -> None:
    env = envs.PolySimplify(rules=[])
    state = env.state_from_text("4x + 2x")
    for moves in (env.get_valid_moves(state), env.valid_moves_array(state)):
        assert state.to_mathy_observation(move_mask=moves).mask == []
        assert state.to_observation(move_mask=moves).shape == (3 + 2 * 128,)


# -- custom observation types can't change what later observations see ---------------

LAYOUT_ARRAYS = [
    "preorder", "type_ids", "values", "is_leaf", "depth", "parent", "side",
    "levelorder", "edge_index", "edge_types", "normalized_type_ids", "normalized_values",
]


class _Vandal(ObservationKind[None]):
    """A custom observation type that tries to change everything its inputs'
    layout holds: scaling its arrays in place, editing its sequences."""

    name = "vandal"

    def __init__(self) -> None:
        self.refused: Dict[str, str] = {}

    def _try(self, what: str, change: Any) -> None:
        try:
            change()
        except (ValueError, TypeError, AttributeError) as error:
            self.refused[what] = str(error)

    def build(self, inputs: ObservationInputs) -> None:
        layout = inputs.layout

        def scale(array: np.ndarray) -> None:
            array *= 3
            array += 1

        for name in LAYOUT_ARRAYS:
            self._try(name, lambda name=name: scale(getattr(layout, name)))
        for normalize in (False, True):
            for side, array in enumerate(layout.preordered(normalize)):
                self._try(f"preordered({normalize})[{side}]", lambda a=array: scale(a))
        self._try("nodes", lambda: layout.nodes.reverse())  # type: ignore[attr-defined]
        self._try("children", lambda: layout.children[0].reverse())  # type: ignore[attr-defined]
        self._try("shapes", lambda: layout.shapes.reverse())  # type: ignore[union-attr]
        self._try("set values", lambda: setattr(layout, "values", layout.values * 3))
        # preorder_lists gives lists of the caller's own: changing them is fine.
        types, values = layout.preorder_lists()
        types.reverse()
        values[:] = [9.0] * len(values)
        return None

    def space(self, max_seq_len: int, num_rules: int) -> Any:
        from gymnasium import spaces

        return spaces.Discrete(1)


def _everything_observed(text: str) -> List[Any]:
    """Every built-in observation of `text` (normalized and raw), its
    `MathyObservation` and the mask a new env computes for it."""
    env = envs.PolySimplify()
    state = env.state_from_text(text)
    mask = env.valid_moves_array(state)
    seen: List[Any] = [mask.tolist(), state.to_mathy_observation(move_mask=mask)]
    for normalize in (True, False):
        for obs_type in ALL_TYPES:
            obs = state.to_observation(
                move_mask=mask, max_seq_len=16, obs_type=obs_type, normalize=normalize
            )
            values = [obs] if isinstance(obs, np.ndarray) else list(obs.to_dict().values())
            seen += [v.tolist() if isinstance(v, np.ndarray) else v for v in values]
    return seen


def test_a_custom_type_that_writes_into_its_layout_changes_no_later_observation() -> None:
    text = "6x + 3y + 2 * (x + 5)"  # its own text: a failure can't leak into other tests
    before = _everything_observed(text)
    vandal = register_observation(_Vandal())
    try:
        assert make_state(text).to_observation(obs_type="vandal", max_seq_len=16) is None
    finally:
        unregister_observation("vandal")
    assert _everything_observed(text) == before
    # Every write failed loudly.
    assert isinstance(vandal, _Vandal)
    arrays = [n for n in vandal.refused if n not in ("nodes", "children", "shapes", "set values")]
    assert len(arrays) == len(LAYOUT_ARRAYS) + 4
    for name in arrays:
        assert "read-only" in vandal.refused[name], name
    assert set(vandal.refused) - set(arrays) == {"nodes", "children", "shapes", "set values"}


class _Keeper(ObservationKind[None]):
    """A custom observation type that keeps every layout it is given."""

    name = "keeper"

    def __init__(self) -> None:
        self.kept: List[Tuple[str, Any]] = []

    def build(self, inputs: ObservationInputs) -> None:
        self.kept.append((inputs.state.agent.problem, inputs.layout))
        return None

    def space(self, max_seq_len: int, num_rules: int) -> Any:
        from gymnasium import spaces

        return spaces.Discrete(1)


def test_a_layout_kept_by_a_custom_type_still_describes_its_expression_after_later_steps() -> None:
    from mathy_envs.parsing import NodeLayout

    keeper = _Keeper()
    register_observation(keeper)
    try:
        env = envs.PolySimplify()
        rng = np.random.default_rng(3)
        for text in ["5x + 2y + 2x + 9 + 3y", "3x * 2x + (x + 6x)"]:
            state = env.state_from_text(text, max_moves=10)
            for _ in range(10):
                state.to_observation(obs_type="keeper", max_seq_len=32)
                valid = np.argwhere(env.valid_moves_array(state))
                if len(valid) == 0:
                    break
                rule, node = valid[rng.integers(len(valid))]
                state, step, _ = env.get_next_state(state, (int(rule), int(node)))
                if step.step_type[0] == 2:
                    break
    finally:
        unregister_observation("keeper")
    assert len(keeper.kept) > 6
    for text, layout in keeper.kept:
        fresh = NodeLayout(tree(text))
        for name in LAYOUT_ARRAYS:
            assert np.array_equal(getattr(layout, name), getattr(fresh, name)), (text, name)
        for normalize in (False, True):
            for kept, made in zip(layout.preordered(normalize), fresh.preordered(normalize)):
                assert np.array_equal(kept, made), text
        assert layout.children == fresh.children and layout.levels == fresh.levels
        assert layout.shapes in (fresh.shapes, None), text
        assert layout.preorder_lists() == fresh.preorder_lists()


class _NodeVandal(ObservationKind[None]):
    """A custom observation type that rewrites the nodes of its layout and keeps
    them."""

    name = "node-vandal"

    def __init__(self) -> None:
        self.kept: List[Tuple[str, List[str]]] = []

    def build(self, inputs: ObservationInputs) -> None:
        nodes = inputs.layout.nodes
        self.kept.append((inputs.state.agent.problem, [str(node) for node in nodes]))
        for node in nodes:
            if isinstance(node, ConstantExpression):
                node.value = 1  # every coefficient becomes 1
            node.left, node.right = node.right, node.left  # mirror every operator
        return None

    def space(self, max_seq_len: int, num_rules: int) -> Any:
        from gymnasium import spaces

        return spaces.Discrete(1)


def test_a_custom_type_that_rewrites_its_nodes_changes_no_later_answer() -> None:
    text = "7x + 3y + 5 * (x + 4)"  # its own text: a failure can't leak into other tests
    before = _everything_observed(text)
    vandal = _NodeVandal()
    register_observation(vandal)
    try:
        env = envs.PolySimplify()
        state = env.state_from_text(text)
        state.to_observation(obs_type="node-vandal", max_seq_len=16)
        assert _everything_observed(text) == before
        # Later steps from that text are those of an untouched tree, and the
        # nodes the type was given stay as it left them.
        env.get_next_state(state, tuple(int(i) for i in np.argwhere(env.valid_moves_array(state))[0]))
        assert str(ExpressionParser().parse(text)) == text
    finally:
        unregister_observation("node-vandal")
    assert vandal.kept == [(text, [str(node) for node in ExpressionParser().parse(text).to_list("inorder")])]
