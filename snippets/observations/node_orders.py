"""The three node orders, checked against the observations that use them."""

import mathy_envs  # before mathy_core, which needs it first on Python 3.13
from mathy_core import ExpressionParser, MathExpression

from mathy_envs import MathyEnvState
from mathy_envs.state import (
    MathyGraphObservation,
    MathyHierarchicalObservation,
    ObservationType,
)

problem = "4x + 2y^2"
tree: MathExpression = ExpressionParser().parse(problem)

in_order = tree.to_list("inorder")  # action order: node i is mask column i
pre_order = tree.to_list("preorder")  # flat observations and MathyObservation
level_order = []  # hierarchical observations: root first, then level by level
level = [tree]
while level:
    level_order.extend(level)
    level = [c for node in level for c in (node.left, node.right) if c is not None]


def names(nodes: list) -> str:
    return " ".join(node.name for node in nodes)


print(f"in-order    {names(in_order)}")
print(f"pre-order   {names(pre_order)}")
print(f"level order {names(level_order)}")

# Compare with the raw node type ids (feature column 0) of the observations.
state = MathyEnvState(problem=problem)
n = len(in_order)
graph = state.to_observation(
    obs_type=ObservationType.GRAPH, normalize=False, max_seq_len=16
)
hier = state.to_observation(
    obs_type=ObservationType.HIERARCHICAL, normalize=False, max_seq_len=16
)
flat = state.to_observation(obs_type=ObservationType.FLAT, normalize=False, max_seq_len=16)
assert isinstance(graph, MathyGraphObservation)
assert isinstance(hier, MathyHierarchicalObservation)
assert graph.node_features[:n, 0].tolist() == [node.type_id for node in in_order]
assert hier.node_features[:n, 0].tolist() == [node.type_id for node in level_order]
assert flat[3 : 3 + n].tolist() == [node.type_id for node in pre_order]
print(f"depths      {hier.level_indices[:n].tolist()}")
