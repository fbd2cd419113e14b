"""PyTorch Geometric graphs from observations, `mathy_envs.pyg`.

Expected graphs come from mathy_core's own parse of the state's text, walked here;
expected masks from `env.get_valid_moves` and the Gymnasium adapter's
`info["action_mask"]`; expected actions from `env.to_action`.
"""

import sys
from typing import Any, Dict, List, Set, Tuple

import mathy_core  # noqa: F401  (first: its dependency colr warns at import time)
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

import gymnasium  # noqa: E402
from mathy_core import ConstantExpression, MathExpression  # noqa: E402
from torch_geometric.data import Batch, Data  # noqa: E402

import mathy_envs.gym  # noqa: E402,F401  (registers the mathy-* ids)
from helpers import run_python  # noqa: E402
from mathy_envs import MathyEnv, MathyEnvState, ObservationType  # noqa: E402
from mathy_envs.envs import ENV_TASKS, PolySimplify  # noqa: E402
from mathy_envs.pyg import (  # noqa: E402
    CHILD_TO_PARENT,
    PARENT_TO_CHILD,
    node_actions,
    to_pyg_batch,
    to_pyg_data,
)
from mathy_envs.time_step import is_terminal_transition  # noqa: E402
from oracles import parse  # noqa: E402

GRAPH_TYPES = (ObservationType.GRAPH, ObservationType.MESSAGE_PASSING)
Edge = Tuple[int, int, int, int]
"""(source, target, edge_type, child_side)"""


# -- independent expectations ------------------------------------------------------


def in_order(text: str) -> List[MathExpression]:
    """The nodes of mathy_core's parse of `text`, left to right."""
    nodes: List[MathExpression] = []

    def walk(node: Any) -> None:
        if node is not None:
            walk(node.left)
            nodes.append(node)
            walk(node.right)

    walk(parse(text))
    return nodes


def tree_links(nodes: List[MathExpression]) -> Set[Tuple[int, int, int]]:
    """(parent, child, side) of every link, by in-order index; side 1 = right."""
    index = {id(node): i for i, node in enumerate(nodes)}
    return {
        (index[id(node)], index[id(child)], side)
        for node in nodes
        for side, child in ((0, node.left), (1, node.right))
        if child is not None
    }


def edges_of(data: Data) -> List[Edge]:
    """Every edge of a graph with its type and side, in edge order."""
    return list(
        zip(
            data.edge_index[0].tolist(),
            data.edge_index[1].tolist(),
            data.edge_type.tolist(),
            data.child_side.tolist(),
        )
    )


def assert_same_graph(actual: Data, expected: Data) -> None:
    assert actual.num_nodes == expected.num_nodes
    assert torch.equal(actual.x, expected.x)
    assert torch.equal(actual.action_mask, expected.action_mask)
    assert edges_of(actual) == edges_of(expected)
    assert int(torch.as_tensor(actual.max_seq_len).reshape(-1)[0]) == int(
        torch.as_tensor(expected.max_seq_len).reshape(-1)[0]
    )


def valid_action_ids(env: MathyEnv, state: MathyEnvState) -> Set[int]:
    """The flat actions `get_valid_moves` allows, as `rule * max_seq_len + node`."""
    valid = np.asarray(env.get_valid_moves(state))
    return {int(r) * env.max_seq_len + int(n) for r, n in np.argwhere(valid)}


def play_states(task: str, seed: int, steps: int) -> List[Tuple[MathyEnv, MathyEnvState]]:
    """States of a seeded random game of `task`, each action picked from a pyg
    graph's mask and mapped to the env with `node_actions`."""
    env = ENV_TASKS[task](seed=seed)
    state, _ = env.get_initial_state(print_problem=False)
    rng = np.random.default_rng(seed)
    seen = [(env, state)]
    for _ in range(steps):
        data = to_pyg_data(env.state_to_observation(state, obs_type="message_passing"))
        cells = torch.nonzero(data.action_mask).tolist()
        if not cells:
            break
        node, rule = cells[int(rng.integers(len(cells)))]
        action = int(node_actions(data)[node, rule])
        state, step, _ = env.get_next_state(state, action)  # raises when invalid
        if is_terminal_transition(step):
            break
        seen.append((env, state))
    return seen


STATES = [pair for i, task in enumerate(ENV_TASKS) for pair in play_states(task, i, 12)]


# -- one observation -------------------------------------------------------------------


@pytest.mark.parametrize("obs_type", GRAPH_TYPES)
def test_nodes_edges_and_features_are_the_tree_of_the_text(obs_type: str) -> None:
    assert len({state.agent.problem for _, state in STATES}) > 30
    for env, state in STATES:
        nodes = in_order(state.agent.problem)
        observation = state.to_observation(
            move_mask=env.get_valid_moves(state), normalize=False, obs_type=obs_type
        )
        data = to_pyg_data(observation)
        assert data.num_nodes == len(nodes) == data.x.shape[0]
        assert data.x.dtype == torch.float32 and data.x.shape[1] == 4
        assert data.edge_index.dtype == torch.long
        assert data.edge_index.shape == (2, len(nodes) - 1)
        # Row i is the i-th node from the left: its type, value and leafness.
        assert data.x[:, 0].tolist() == [float(n.type_id) for n in nodes]
        values = [
            float(n.value) if isinstance(n, ConstantExpression) else 0.0 for n in nodes
        ]
        assert data.x[:, 1].tolist() == pytest.approx(values)
        leaves = [float(n.left is None and n.right is None) for n in nodes]
        assert data.x[:, 3].tolist() == leaves
        # One parent -> child edge per link; child_side says left or right.
        expected = {(p, c, PARENT_TO_CHILD, side) for p, c, side in tree_links(nodes)}
        assert set(edges_of(data)) == expected
        assert len(edges_of(data)) == len(expected)


@pytest.mark.parametrize("obs_type", GRAPH_TYPES)
def test_reverse_edges_add_typed_child_to_parent_edges(obs_type: str) -> None:
    for env, state in STATES[::3]:
        nodes = in_order(state.agent.problem)
        links = tree_links(nodes)
        observation = env.state_to_observation(state, obs_type=obs_type)
        forward = to_pyg_data(observation)
        both = to_pyg_data(observation, reverse_edges=True)
        edges = edges_of(both)
        assert both.edge_index.shape == (2, 2 * len(links))
        assert edges[: len(links)] == edges_of(forward)
        assert set(edges[len(links) :]) == {
            (c, p, CHILD_TO_PARENT, side) for p, c, side in links
        }
        # Edge j + E is edge j reversed.
        for (s, t, _, side), (rs, rt, kind, rside) in zip(edges, edges[len(links) :]):
            assert (rs, rt, kind, rside) == (t, s, CHILD_TO_PARENT, side)
        # Messages reach the root only through the reverse edges.
        root = next(i for i, n in enumerate(nodes) if n.parent is None)
        if len(nodes) > 1:
            assert root not in forward.edge_index[1].tolist()
            assert root in both.edge_index[1].tolist()


def test_graph_and_message_passing_observations_give_the_same_graph() -> None:
    for env, state in STATES[::2]:
        for reverse in (False, True):
            graph = to_pyg_data(
                env.state_to_observation(state, obs_type="graph"), reverse_edges=reverse
            )
            passing = to_pyg_data(
                env.state_to_observation(state, obs_type="message_passing"),
                reverse_edges=reverse,
            )
            assert torch.equal(graph.x, passing.x)
            assert torch.equal(graph.action_mask, passing.action_mask)
            assert sorted(edges_of(graph)) == sorted(edges_of(passing))


@pytest.mark.parametrize("obs_type", GRAPH_TYPES)
def test_action_mask_is_aligned_with_nodes_and_valid_moves(obs_type: str) -> None:
    for env, state in STATES:
        valid = np.asarray(env.get_valid_moves(state), dtype=bool)
        data = to_pyg_data(env.state_to_observation(state, obs_type=obs_type))
        assert data.action_mask.dtype == torch.bool
        assert data.action_mask.shape == (data.num_nodes, len(env.rules))
        assert np.array_equal(data.action_mask.numpy(), valid.T)
        actions = node_actions(data)
        assert actions.shape == data.action_mask.shape
        assert set(actions[data.action_mask].tolist()) == valid_action_ids(env, state)
        for node in range(data.num_nodes):
            for rule in range(len(env.rules)):
                assert env.to_action(int(actions[node, rule])) == (rule, node)


def test_probability_masks_mark_the_same_actions() -> None:
    for env, state in STATES[::4]:
        observation = state.to_observation(
            move_mask=env.get_valid_moves(state),
            obs_type="graph",
            mask_as_probabilities=True,
        )
        valid = np.asarray(env.get_valid_moves(state), dtype=bool)
        assert np.array_equal(to_pyg_data(observation).action_mask.numpy(), valid.T)


def adapter_observation(env: Any, state: Any, obs_type: str) -> Any:
    """`env.state_to_observation`, with the revisit feature the Gymnasium
    adapter adds by default and the moves it offers (no move back to a more
    visited expression)."""
    return state.to_observation(
        move_mask=env.least_visited_moves_array(state),
        max_seq_len=env.max_seq_len,
        obs_type=obs_type,
        revisits=True,
    )


@pytest.mark.parametrize("obs_type", GRAPH_TYPES)
def test_gym_observations_convert_like_the_library_ones(obs_type: str) -> None:
    env = gymnasium.make("mathy-poly-normal-v0", obs_type=obs_type, max_seq_len=64)
    inner = env.unwrapped
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(15):
        assert isinstance(obs, dict)
        data = to_pyg_data(obs, reverse_edges=True)
        expected = to_pyg_data(
            adapter_observation(inner.mathy, inner.state, obs_type),
            reverse_edges=True,
        )
        assert_same_graph(data, expected)
        flat = np.zeros(len(info["action_mask"]), bool)
        flat[node_actions(data)[data.action_mask].numpy()] = True
        assert np.array_equal(flat, info["action_mask"] == 1)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()
    env.close()


@pytest.mark.parametrize("obs_type", GRAPH_TYPES)
def test_observations_with_the_mask_inside_convert_like_plain_ones(obs_type: str) -> None:
    """`mask_in_observation=True` puts the observation under "observations";
    single and stacked ones convert as the plain observation does."""
    plain = gymnasium.make("mathy-poly-easy-v0", obs_type=obs_type, max_seq_len=48)
    masked = gymnasium.make(
        "mathy-poly-easy-v0", obs_type=obs_type, max_seq_len=48, mask_in_observation=True
    )
    assert_same_graph(
        to_pyg_data(masked.reset(seed=2)[0], reverse_edges=True),
        to_pyg_data(plain.reset(seed=2)[0], reverse_edges=True),
    )
    make = lambda **kwargs: gymnasium.make_vec(  # noqa: E731
        "mathy-poly-easy-v0", num_envs=2, obs_type=obs_type, max_seq_len=48, **kwargs
    )
    plain_batch = to_pyg_batch(make().reset(seed=2)[0])
    masked_batch = to_pyg_batch(make(mask_in_observation=True).reset(seed=2)[0])
    assert masked_batch.num_graphs == 2
    for b in range(2):
        assert_same_graph(masked_batch.get_example(b), plain_batch.get_example(b))


# -- batches ----------------------------------------------------------------------------


def make_vector_env(obs_type: str) -> "gymnasium.vector.SyncVectorEnv":
    ids = ["mathy-poly-easy-v0", "mathy-complex-easy-v0", "mathy-binomial-easy-v0"]
    return gymnasium.vector.SyncVectorEnv(
        [lambda id=id: gymnasium.make(id, obs_type=obs_type, max_seq_len=48) for id in ids]
    )


@pytest.mark.parametrize("obs_type", GRAPH_TYPES)
@pytest.mark.parametrize("reverse", [False, True])
def test_vector_observations_batch_like_separate_ones(obs_type: str, reverse: bool) -> None:
    envs = make_vector_env(obs_type)
    obs, infos = envs.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(12):
        batch = to_pyg_batch(obs, reverse_edges=reverse)
        assert isinstance(batch, Batch) and batch.num_graphs == 3
        assert batch.ptr.tolist()[-1] == batch.num_nodes
        separate = [
            to_pyg_data({key: value[b] for key, value in obs.items()}, reverse_edges=reverse)
            for b in range(3)
        ]
        assert_same_graph(batch, Batch.from_data_list(separate))
        actions = node_actions(batch)
        chosen = []
        for b in range(3):
            sub_env = envs.envs[b].unwrapped
            graph = batch.get_example(b)
            assert_same_graph(graph, separate[b])
            if not infos.get("oversize", np.zeros(3, bool))[b]:
                own = adapter_observation(sub_env.mathy, sub_env.state, obs_type)
                assert_same_graph(graph, to_pyg_data(own, reverse_edges=reverse))
            # The batch's actions of graph b are env b's valid actions.
            start, end = batch.ptr[b], batch.ptr[b + 1]
            mask = batch.action_mask[start:end]
            assert set(actions[start:end][mask].tolist()) == set(
                np.flatnonzero(infos["action_mask"][b]).tolist()
            )
            valid = actions[start:end][mask].tolist()
            chosen.append(int(valid[int(rng.integers(len(valid)))]) if valid else 0)
        obs, _, _, _, infos = envs.step(np.array(chosen))
    envs.close()


def test_a_list_of_observations_batches_in_order() -> None:
    pairs = STATES[:5]
    observations: List[Any] = [
        env.state_to_observation(state, obs_type=GRAPH_TYPES[i % 2])
        for i, (env, state) in enumerate(pairs)
    ]
    observations[1] = observations[1].to_dict()
    batch = to_pyg_batch(observations, reverse_edges=True)
    assert batch.num_graphs == 5
    assert batch.max_seq_len.tolist() == [env.max_seq_len for env, _ in pairs]
    for b, observation in enumerate(observations):
        assert_same_graph(batch.get_example(b), to_pyg_data(observation, reverse_edges=True))
        nodes = batch.ptr[b + 1] - batch.ptr[b]
        assert nodes == len(in_order(pairs[b][1].agent.problem))
    assert to_pyg_batch(tuple(observations)).num_graphs == 5


def test_a_gnn_layer_scores_every_node_and_rule_of_a_batch() -> None:
    from torch_geometric.nn import GCNConv

    envs = make_vector_env("message_passing")
    obs, infos = envs.reset(seed=11)
    batch = to_pyg_batch(obs, reverse_edges=True)
    torch.manual_seed(0)
    conv = GCNConv(batch.num_node_features, 16)
    head = torch.nn.Linear(16, batch.action_mask.shape[1])
    hidden = conv(batch.x, batch.edge_index).relu()
    logits = head(hidden).masked_fill(~batch.action_mask, float("-inf"))
    assert hidden.shape == (batch.num_nodes, 16)
    assert logits.shape == batch.action_mask.shape
    actions = node_actions(batch)
    for b in range(batch.num_graphs):
        start, end = batch.ptr[b], batch.ptr[b + 1]
        best = int(logits[start:end].flatten().argmax())
        action = int(actions[start:end].flatten()[best])
        assert infos["action_mask"][b][action] == 1
    envs.close()


# -- errors -----------------------------------------------------------------------------


def one(obs_type: str = "graph") -> Dict[str, Any]:
    env = PolySimplify(seed=5)
    state, _ = env.get_initial_state(print_problem=False)
    observation = env.state_to_observation(state, max_seq_len=32, obs_type=obs_type)
    return dict(observation.to_dict())


def changed(obs_type: str, **fields: Any) -> Dict[str, Any]:
    observation = one(obs_type)
    observation.update(fields)
    return observation


def padding_edge(obs_type: str) -> Dict[str, Any]:
    observation = one(obs_type)
    n = observation["num_nodes"]
    if obs_type == "graph":
        observation["adjacency"] = observation["adjacency"].copy()
        observation["adjacency"][0, n] = 1.0
    else:
        observation["edge_index"] = observation["edge_index"].copy()
        observation["edge_index"][1, 0] = n
    return observation


def padding_mask() -> Dict[str, Any]:
    observation = one()
    observation["action_mask"] = observation["action_mask"].copy()
    observation["action_mask"][observation["num_nodes"]] = 1.0
    return observation


def without(key: str, obs_type: str = "graph") -> Dict[str, Any]:
    observation = one(obs_type)
    del observation[key]
    return observation


BAD_OBSERVATIONS = {
    "flat array": (lambda: np.zeros(40, np.float32), "graph or message_passing"),
    "hierarchical": (
        lambda: PolySimplify(seed=5).state_to_observation(
            PolySimplify(seed=5).get_initial_state(print_problem=False)[0],
            obs_type="hierarchical",
        ),
        "graph or message_passing",
    ),
    "hierarchical dict": (lambda: one("hierarchical"), "neither"),
    "plain lists": (
        lambda: PolySimplify(seed=5).state_to_observation(
            PolySimplify(seed=5).get_initial_state(print_problem=False)[0]
        ),
        "graph or message_passing",
    ),
    "text": (lambda: "2x + 3x", "graph or message_passing"),
    "both kinds": (lambda: {**one("graph"), **one("message_passing")}, "both"),
    "no mask": (lambda: without("action_mask"), "action_mask"),
    "no edge count": (lambda: without("num_edges", "message_passing"), "num_edges"),
    "too many nodes": (lambda: changed("graph", num_nodes=33), "num_nodes"),
    "no nodes": (lambda: changed("graph", num_nodes=0), "num_nodes"),
    "bool count": (lambda: changed("graph", num_nodes=True), "num_nodes"),
    "float count": (lambda: changed("graph", num_nodes=3.0), "num_nodes"),
    "mask length": (lambda: changed("graph", action_mask=np.ones(50)), "multiple"),
    "mask at padding": (padding_mask, "padding"),
    "nan features": (
        lambda: changed("graph", node_features=np.full((32, 4), np.nan)),
        "NaN",
    ),
    "text features": (lambda: changed("graph", node_features="abc"), "numeric"),
    "adjacency shape": (lambda: changed("graph", adjacency=np.zeros((32, 31))), "(32, 32)"),
    "adjacency values": (lambda: changed("graph", adjacency=-np.eye(32)), "0s and 1s"),
    "negative mask": (
        lambda: changed("graph", action_mask=-np.ones(7 * 32, np.float32)),
        "[0, 1]",
    ),
    "graph edge at padding": (lambda: padding_edge("graph"), "padding"),
    "message edge at padding": (lambda: padding_edge("message_passing"), "outside"),
    "edge count": (lambda: changed("message_passing", num_edges=65), "num_edges"),
    "edge index rows": (
        lambda: changed("message_passing", edge_index=np.zeros((3, 64), np.int64)),
        "(2, K)",
    ),
    "edge types length": (
        lambda: changed("message_passing", edge_types=np.zeros(10, np.int64)),
        "edge_types",
    ),
    "edge type value": (
        lambda: changed("message_passing", edge_types=np.full(64, 2, np.int64)),
        "left child",
    ),
}


@pytest.mark.parametrize("name", list(BAD_OBSERVATIONS))
def test_bad_observations_raise_value_error(name: str) -> None:
    make, words = BAD_OBSERVATIONS[name]
    observation = make()
    with pytest.raises(ValueError, match="observation") as error:
        to_pyg_data(observation)
    assert words in str(error.value)
    assert len(str(error.value)) < 400
    # In a list, the message names the observation's position.
    with pytest.raises(ValueError, match="observation 1") as error:
        to_pyg_batch([one(), observation])


def stacked(count: int = 2) -> Dict[str, Any]:
    singles = [one("message_passing") for _ in range(count)]
    return {key: np.stack([s[key] for s in singles]) for key in singles[0]}


def test_stacked_and_single_observations_go_to_their_own_function() -> None:
    with pytest.raises(ValueError, match="to_pyg_batch"):
        to_pyg_data(stacked())
    with pytest.raises(ValueError, match="to_pyg_data"):
        to_pyg_batch(one())
    assert to_pyg_batch(stacked(2)).num_graphs == 2


@pytest.mark.parametrize(
    "observations, words",
    [
        ([], "empty"),
        (None, "must be a list"),
        ("graph", "must be a list"),
        ({**stacked(2), "num_nodes": np.array([3, 3, 3])}, "stacks 2"),
        ({**stacked(2), "action_mask": np.zeros(7 * 32)}, "stacks 2"),
        ({key: value[:0] for key, value in stacked(2).items()}, "0 observations"),
    ],
    ids=["empty", "none", "text", "num_nodes", "unstacked mask", "zero"],
)
def test_bad_batches_raise_value_error(observations: Any, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        to_pyg_batch(observations)


def test_a_batch_needs_one_rule_count() -> None:
    fewer = PolySimplify(seed=5, rules=PolySimplify().rules[:3])
    state, _ = fewer.get_initial_state(print_problem=False)
    other = fewer.state_to_observation(state, max_seq_len=32, obs_type="graph")
    with pytest.raises(ValueError, match="rule counts"):
        to_pyg_batch([one(), other])


@pytest.mark.parametrize("flag", [None, 1, "yes"])
def test_reverse_edges_must_be_a_bool(flag: Any) -> None:
    with pytest.raises(ValueError, match="reverse_edges"):
        to_pyg_data(one(), reverse_edges=flag)
    with pytest.raises(ValueError, match="reverse_edges"):
        to_pyg_batch([one()], reverse_edges=flag)


def test_node_actions_are_on_the_graph_s_device() -> None:
    """A graph moved to another device (a GPU; here PyTorch's "meta" device, which
    every install has) gets its actions there, for a Data and a Batch alike."""
    envs = make_vector_env("graph")
    obs, _ = envs.reset(seed=1)
    batch = to_pyg_batch(obs)
    for data in (batch, batch.get_example(0)):
        moved = node_actions(data.to("meta"))
        assert moved.device.type == "meta"
        assert moved.shape == node_actions(data).shape
    envs.close()


@pytest.mark.parametrize("value", [None, np.zeros(3), "data"])
def test_node_actions_needs_a_converted_graph(value: Any) -> None:
    with pytest.raises(ValueError, match="to_pyg_data"):
        node_actions(value)
    with pytest.raises(ValueError, match="to_pyg_data"):
        node_actions(Data(x=torch.zeros(2, 4)))


# -- optional dependencies ---------------------------------------------------------------


def test_importing_mathy_envs_does_not_import_torch() -> None:
    code = (
        "import sys, mathy_envs, mathy_envs.pyg, mathy_envs.gym\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'torch_geometric')]\n"
        "assert not loaded, loaded\n"
    )
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr


def test_a_missing_torch_geometric_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in list(sys.modules):
        if name.split(".")[0] == "torch_geometric":
            monkeypatch.setitem(sys.modules, name, None)
    observation = one()
    for call in (
        lambda: to_pyg_data(observation),
        lambda: to_pyg_batch([observation]),
        lambda: node_actions(None),
    ):
        with pytest.raises(ImportError, match="pip install torch torch_geometric"):
            call()
