"""`mathy_envs.observations.hierarchical`: node rows level by level, root first,
with the depth of each.

Expected values are computed independently from mathy_core trees (a fresh
`ExpressionParser`, `.parent`/`.left`/`.right`), not from the library's own node
arrays.
"""

from typing import Dict

import numpy as np
import pytest
from mathy_core.expressions import MathTypeKeys

from mathy_envs.state import MathyHierarchicalObservation, ObservationType

from helpers import (
    EXPRESSIONS,
    MAIN,
    depth_of,
    expected_features,
    is_leaf,
    level_order,
    make_state,
    tree,
)


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
