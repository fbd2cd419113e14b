"""`mathy_envs.observations.build`: `observe` and `plain_observation`, the entry
points every observation goes through: the default `max_seq_len`, a given problem
hash, the plain-list `MathyObservation`, and the private layout a custom type is
given (nothing it does changes what later observations see).

Expected values are computed independently from mathy_core trees (a fresh
`ExpressionParser`, `to_list(...)`), not from the library's own node arrays.
"""

from typing import Any, Dict, List, Tuple

import numpy as np
import pytest
from mathy_core import ConstantExpression, ExpressionParser

from mathy_envs import MathyEnvState, MathyObservation, envs
from mathy_envs.envs import PolySimplify
from mathy_envs.observations import (
    FLAT,
    GRAPH,
    ObservationInputs,
    ObservationKind,
    ObservationType,
    observe,
    plain_observation,
    problem_hash,
    register_observation,
    unregister_observation,
)

from helpers import ALL_TYPES, MAIN, make_state, raw_value, tree


def test_observe_takes_a_kind_an_observation_type_or_a_name() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 2x")
    mask = env.valid_moves_array(state)
    by_kind = observe(state, GRAPH, mask)
    for name in (ObservationType.GRAPH, "graph"):
        by_name = observe(state, name, mask)
        for ours, theirs in zip(by_kind, by_name):
            assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("kind", [None, 3, "graphs", object()])
def test_observe_of_an_unknown_kind_is_a_value_error(kind: object) -> None:
    state = MathyEnvState(problem="4x + 2x")
    with pytest.raises(ValueError, match="Unknown observation type"):
        observe(state, kind)  # type: ignore[call-overload]


@pytest.mark.parametrize("state", ["4x + 2x", None, 7])
def test_observe_and_plain_observation_of_a_non_state_are_value_errors(state: object) -> None:
    with pytest.raises(ValueError, match="expected a MathyEnvState"):
        observe(state, FLAT)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="expected a MathyEnvState"):
        plain_observation(state)  # type: ignore[arg-type]


def test_the_plain_observation_of_a_state_carries_its_own_problem_hash() -> None:
    class Tagged(MathyEnvState):
        def get_problem_hash(self) -> List[float]:
            return [0.5, 0.25]

    state = Tagged(problem="4x + 2x", problem_type="ns")
    assert state.to_mathy_observation().type == [0.5, 0.25]
    plain = MathyEnvState(problem="4x + 2x", problem_type="ns")
    assert plain.to_mathy_observation().type == list(problem_hash("ns"))
    assert plain_observation(plain).type == list(problem_hash("ns"))


# -- defaults and a given problem hash -----------------------------------------


def test_flat_default_max_seq_len_is_128() -> None:
    state = make_state(MAIN, num_rules=2)
    assert state.to_observation().shape == (3 + 2 * 128 + 2 * 128,)
    graph = state.to_observation(obs_type=ObservationType.GRAPH)
    assert graph.node_features.shape == (128, 4)


def test_hash_type_overrides_flat_hash() -> None:
    obs = make_state(MAIN).to_observation(hash_type=[0.25, 0.75], max_seq_len=16)
    assert obs[:2].tolist() == [0.25, 0.75]


# -- MathyObservation ----------------------------------------------------------


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


def test_too_many_nodes_mathy_observation_raises_value_error() -> None:
    state = make_state(MAIN, num_rules=2)
    with pytest.raises(ValueError, match=r"13.*max_seq_len=5|max_seq_len=5.*13"):
        state.to_mathy_observation(max_seq_len=5)


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


# -- custom observation types can't change what later observations see ---------


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
    from mathy_envs._engine.layout import NodeLayout

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
