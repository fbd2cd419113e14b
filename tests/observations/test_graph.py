"""`mathy_envs.observations.graph`: node rows in action order and the
parent->child adjacency matrix (checked with the message-passing edge list, which
lists the same edges).

Expected values are computed independently from mathy_core trees (a fresh
`ExpressionParser`, `.parent`/`.left`/`.right`), not from the library's own node
arrays.
"""

import numpy as np
import pytest

from mathy_envs import MathyEnv, envs
from mathy_envs.state import MathyGraphObservation, ObservationType

from helpers import EXPRESSIONS, MAIN, edges_from_tree, make_state, tree


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


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_adjacency_edge_index_and_edge_types_describe_the_tree(text: str) -> None:
    L = 16
    root = tree(text)
    n = len(root.to_list())
    state = make_state(text)
    graph = state.to_observation(max_seq_len=L, obs_type=ObservationType.GRAPH)
    mp = state.to_observation(max_seq_len=L, obs_type=ObservationType.MESSAGE_PASSING)
    edges = edges_from_tree(root)
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
