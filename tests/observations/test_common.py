"""`mathy_envs.observations.common`: what every observation type shares, checked
over the built-in types: node feature rows (`[type_id, value, time, is_leaf]`,
in action order) and their normalization, the time feature, the action mask
(from any mask a user passes), the too-many-nodes error, `ObservationType`,
`to_dict`, and the invariants of observations of reachable states.

Expected values are computed independently from mathy_core trees (a fresh
`ExpressionParser`, `to_list(...)`, `.parent`/`.left`/`.right`) rather than from
the library's own node arrays.
"""

from typing import Any, List

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mathy_core.expressions import MathTypeKeys

from mathy_envs import MathyEnv, envs
from mathy_envs.observations.common import mask_matrix
from mathy_envs.state import (
    MathyGraphObservation,
    MathyHierarchicalObservation,
    MathyMessagePassingObservation,
    ObservationType,
)

from helpers import (
    ALL_TYPES,
    EXPRESSIONS,
    MAIN,
    MAX_TYPE_ID,
    STRUCTURED,
    depth_of,
    edges_from_tree,
    expected_features,
    is_leaf,
    level_order,
    make_state,
    play,
    random_mask,
    raw_value,
    tree,
)

STRUCTURED_CLASSES = {
    ObservationType.GRAPH: MathyGraphObservation,
    ObservationType.HIERARCHICAL: MathyHierarchicalObservation,
    ObservationType.MESSAGE_PASSING: MathyMessagePassingObservation,
}


def one_hot_mask(num_rules: int, num_nodes: int, rule: int, node: int) -> List[List[int]]:
    mask = [[0] * num_nodes for _ in range(num_rules)]
    mask[rule][node] = 1
    return mask


# -- node features and their normalization -------------------------------------


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


# -- time ----------------------------------------------------------------------


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


def _revisited(text: str, other: str, visits: int) -> Any:
    """A state of `text` whose history holds it `visits` times (`other` between)."""
    state = make_state(text, num_rules=7, max_moves=20)
    for _ in range(visits - 1):
        state = state.get_out_state(other, (1, 1), state.agent.moves_remaining - 1)
        state = state.get_out_state(text, (1, 1), state.agent.moves_remaining - 1)
    return state


@pytest.mark.parametrize("visits,expected", [(1, 0.0), (2, 1 / 3), (4, 1.0), (6, 1.0)])
@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_revisit_feature(obs_type: ObservationType, visits: int, expected: float) -> None:
    """`revisits=True` adds the earlier visits of the state's expression (over 3,
    clipped, when normalizing) after the time of a flat observation and as a
    fifth node-feature column; everything else is the published observation."""
    L = 16
    state = _revisited(MAIN, "4x + 2", visits)
    n = len(tree(MAIN).to_list())
    mask = random_mask(np.random.default_rng(visits), 7, n)
    for normalize in (True, False):
        value = expected if normalize else float(visits - 1)
        kwargs: Any = dict(move_mask=mask, max_seq_len=L, obs_type=obs_type, normalize=normalize)
        plain = state.to_observation(**kwargs)
        seen = state.to_observation(revisits=True, **kwargs)
        if isinstance(seen, np.ndarray):
            assert seen.shape == (plain.shape[0] + 1,)
            assert seen[3] == pytest.approx(value)
            np.testing.assert_array_equal(np.delete(seen, 3), plain)
            continue
        assert seen.node_features.shape == (L, 5)
        np.testing.assert_allclose(seen.node_features[:n, 4], value, rtol=1e-6)
        assert not seen.node_features[n:, 4].any()
        np.testing.assert_array_equal(seen.node_features[:, :4], plain.node_features)
        for field in seen._fields:
            if field != "node_features":
                np.testing.assert_array_equal(getattr(seen, field), getattr(plain, field))


def test_revisit_feature_of_a_state_without_history_is_zero() -> None:
    state = make_state(MAIN)
    assert state.to_observation(max_seq_len=16, revisits=True)[3] == 0.0


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_revisits_must_be_a_bool(bad: Any) -> None:
    with pytest.raises(ValueError, match="revisits must be a bool"):
        make_state(MAIN).to_observation(max_seq_len=16, revisits=bad)


# -- action mask ---------------------------------------------------------------


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


# -- errors, types and dicts ---------------------------------------------------


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


# -- random reachable states ---------------------------------------------------


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
    edges = edges_from_tree(root)

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


# -- builders read ObservationInputs by field name -----------------------------------


def test_built_in_builders_read_the_inputs_by_field_name() -> None:
    """Every built-in type builds the same observation from inputs with one more
    field (a NamedTuple that extends `ObservationInputs`): a builder that unpacked
    the tuple by position would fail on it."""
    from typing import NamedTuple, Optional, Tuple

    from mathy_envs.observations import ObservationInputs, ObservationKind, observe
    from mathy_envs.observations.registry import get_observation_kind

    seen: List[ObservationInputs] = []

    class Recorder(ObservationKind[int]):
        name = "zz-recorder"

        def build(self, inputs: ObservationInputs) -> int:
            seen.append(inputs)
            return 0

        def space(self, max_seq_len: int, num_rules: int) -> Any:
            raise NotImplementedError

    class Wider(NamedTuple):
        state: Any
        layout: Any
        problem_hash: Tuple[float, float]
        time: float
        move_mask: Any
        num_rules: int
        normalize: bool
        max_seq_len: int
        mask_as_probabilities: bool = False
        revisits: Optional[float] = None
        extra: str = "not a field of ObservationInputs"

    env = envs.PolySimplify()
    state = env.state_from_text("4x + 2y + 3x", max_moves=10)
    mask = env.valid_moves_array(state)
    observe(state, Recorder(), mask, None, None, True, 20, True, True)
    inputs = seen[-1]
    wider = Wider(*inputs)
    for obs_type in ObservationType:
        kind = get_observation_kind(obs_type)
        expected = kind.build(inputs)
        got = kind.build(wider)  # type: ignore[arg-type]
        if isinstance(expected, np.ndarray):
            np.testing.assert_array_equal(got, expected)
        else:
            for name in expected._fields:
                np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))


# -- the rows of the env's masks: handed out as new lists, told in a list mask -----------


def test_mask_lists_are_new_lists_of_the_masks_rows() -> None:
    from mathy_envs.observations.common import known_mask, mask_lists

    env = envs.PolySimplify()
    state = env.state_from_text("4x + 2x + 7 + 3y")
    mask = env.valid_moves_array(state)
    first = mask_lists(mask)
    assert first == mask.tolist()
    first[0][0] = 9  # the caller's own lists
    first.append([])
    second = mask_lists(mask)
    assert second == mask.tolist() and second is not first
    assert known_mask(second) is mask
    second[0][0] = 1 - second[0][0]
    assert known_mask(second) is None
    assert known_mask(mask.tolist()[:-1]) is None
    assert known_mask([row for row in map(np.asarray, mask.tolist())]) is None


def test_a_writable_mask_is_never_kept() -> None:
    from mathy_envs.observations.common import known_mask, mask_lists

    mask = np.array([[0, 1, 1], [1, 0, 0]], dtype=np.int8)
    rows = mask_lists(mask)
    assert rows == mask.tolist()
    assert known_mask(rows) is None
    mask[0, 0] = 1
    assert mask_lists(mask) == mask.tolist()


def test_a_list_mask_changed_after_get_valid_moves_is_observed_as_changed() -> None:
    env = envs.PolySimplify()
    state = env.state_from_text("4x + 2x + 7 + 3y")
    rows = env.get_valid_moves(state)
    for kind in ObservationType:
        given = state.to_observation(move_mask=rows, obs_type=kind, max_seq_len=env.max_seq_len)
        from_array = state.to_observation(
            move_mask=env.valid_moves_array(state).astype(np.int64), obs_type=kind,
            max_seq_len=env.max_seq_len,
        )
        assert repr(given) == repr(from_array)
    changed = [list(row) for row in rows]
    changed[0] = [2] * len(changed[0])
    rows[0][:] = changed[0]  # in place, in the list get_valid_moves gave
    flat = state.to_observation(move_mask=rows, max_seq_len=env.max_seq_len)
    length = env.max_seq_len
    assert flat[3 + 2 * length : 3 + 3 * length][: len(rows[0])].tolist() == [1.0] * len(rows[0])
    assert env.get_valid_moves(state)[0] != rows[0]
