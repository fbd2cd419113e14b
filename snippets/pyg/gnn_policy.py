"""A graph neural network picks actions for three environments at once."""

import gymnasium
import numpy as np
import torch
from torch_geometric.nn import RGCNConv

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)
from mathy_envs.pyg import node_actions, to_pyg_batch, to_pyg_data


class Policy(torch.nn.Module):
    """Scores every (node, rule) pair: two relational graph convolutions, then one
    logit per rule for each node."""

    def __init__(self, num_features: int, num_rules: int) -> None:
        super().__init__()
        # 2 * edge_type + child_side: parent->left, parent->right, and back.
        self.conv1 = RGCNConv(num_features, 32, num_relations=4)
        self.conv2 = RGCNConv(32, 32, num_relations=4)
        self.head = torch.nn.Linear(32, num_rules)

    def forward(self, graphs) -> torch.Tensor:
        relation = 2 * graphs.edge_type + graphs.child_side
        hidden = self.conv1(graphs.x, graphs.edge_index, relation).relu()
        hidden = self.conv2(hidden, graphs.edge_index, relation).relu()
        return self.head(hidden)  # (num_nodes, num_rules)


def make_env() -> gymnasium.Env:
    # published_info=True: infos also hold each step's change (printed below).
    return gymnasium.make("mathy-poly-easy-v0", obs_type="message_passing", published_info=True)


envs = gymnasium.vector.SyncVectorEnv([make_env] * 3)
obs, infos = envs.reset(seed=0)

# One environment's observation: only its real nodes, edges both ways.
first = to_pyg_data({key: value[0] for key, value in obs.items()}, reverse_edges=True)
print(first)

torch.manual_seed(0)
# Node features: type, value, time, is_leaf and the revisit feature.
policy = Policy(num_features=first.x.shape[1], num_rules=first.action_mask.shape[1])
for step in range(4):
    # The stacked vector observation becomes one batch of three graphs.
    batch = to_pyg_batch(obs, reverse_edges=True)
    if step == 0:
        print(batch)
        print(f"first node of each graph: {batch.ptr.tolist()}")
    with torch.no_grad():
        logits = policy(batch).masked_fill(~batch.action_mask, float("-inf"))
    actions = node_actions(batch)  # the env action of every (node, rule) cell
    chosen = []
    for b in range(batch.num_graphs):
        graph = slice(batch.ptr[b], batch.ptr[b + 1])
        best = int(logits[graph].flatten().argmax())
        chosen.append(int(actions[graph].flatten()[best]))
    obs, rewards, terminated, truncated, infos = envs.step(np.array(chosen))
    # An env that the step reset (its last episode ended) has no change.
    moves = ", ".join(
        f"{c.rule} at node {c.node}" if stepped else "new episode"
        for c, stepped in zip(infos["change"], infos["_change"])
    )
    print(f"step {step}: actions {chosen}: {moves}")
envs.close()
