"""`mathy_envs.observations.message_passing`: the edge list and the type (left or
right child) of each edge; the edges of every expression are checked with the
graph observation's adjacency in `test_graph.py`.

Expected values are computed independently from mathy_core trees, not from the
library's own node arrays.
"""

from mathy_envs.state import ObservationType

from helpers import make_state, tree


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
