"""The node arrays of a tree: what they hold, and what a layout lets its users do."""

import numpy as np
import pytest
from mathy_core.rules import CommutativeSwapRule

from mathy_envs._engine.parse_cache import ExpressionCache, expression_cache
from mathy_envs._engine.layout import MAX_TYPE_ID, NodeLayout
from mathy_envs._engine.parsers import new_parser

from oracles import parse
from helpers import assert_frozen_for_good


@pytest.mark.parametrize(
    "text",
    [
        "4x + 2y^2 - 7 * x", "x", "(2 + 3) * x^2 + -y", "12.5x - 0.1 + 3y", "7 + 7",
        "0.1x + 0.001 - 3400000", "-0.0 + 2x",
        "16777217x + 3 - 16777216y", "-16777217 + 2x", "5 + 5",
    ],
)
def test_layout_arrays_agree_with_the_tree(text: str) -> None:
    tree = new_parser().parse(text)
    layout = NodeLayout(tree)
    inorder = tree.to_list("inorder")
    preorder = tree.to_list("preorder")
    assert layout.nodes == tuple(inorder)
    assert [inorder[i] for i in layout.preorder] == preorder
    assert layout.type_ids.tolist() == [float(n.type_id) for n in inorder]
    values = [float(getattr(n, "value", 0.0) or 0.0) for n in inorder]
    assert np.array_equal(layout.values, np.asarray(values, np.float32))
    assert layout.is_leaf.tolist() == [
        float(n.left is None and n.right is None) for n in inorder
    ]
    types, values_pre = layout.preorder_lists()
    assert types == [n.type_id for n in preorder]
    assert values_pre == np.asarray(values, np.float32)[layout.preorder].tolist()
    assert layout.max_depth == max(_depth(n) for n in inorder)
    expected = np.asarray(values, np.float32)
    low = np.min(expected)
    span = np.max(expected) - low
    scaled = (expected - low) / span if span > 0 else np.zeros_like(expected)
    assert layout.normalized_values.dtype == np.float32
    assert np.array_equal(layout.normalized_values, scaled)
    for normalize in (False, True):
        types_pre, values_pre_array = NodeLayout(tree).preordered(normalize)
        types_in = layout.normalized_type_ids if normalize else layout.type_ids
        values_in = layout.normalized_values if normalize else layout.values
        assert types_pre.dtype == values_pre_array.dtype == np.float32
        assert np.array_equal(types_pre, types_in[layout.preorder])
        assert np.array_equal(values_pre_array, values_in[layout.preorder])


def _depth(node: object) -> int:
    depth = 0
    while getattr(node, "parent", None) is not None:
        node = node.parent  # type: ignore[attr-defined]
        depth += 1
    return depth


LAYOUT_ARRAYS = [
    "preorder", "type_ids", "values", "is_leaf", "depth", "parent", "side",
    "levelorder", "edge_index", "edge_types", "normalized_type_ids", "normalized_values",
]


@pytest.mark.parametrize("text", ["4x + 2y^2 - 7 * x", "x", "12.5x - 0.1 + 3y", "5 + 5"])
def test_a_layout_hands_out_nothing_that_can_be_changed(text: str) -> None:
    """Every caller gets the same cached layout of a text: its arrays are
    read-only, its sequences tuples, and its attributes can't be set."""
    layout = expression_cache().parse(text).layout
    arrays = {name: getattr(layout, name) for name in LAYOUT_ARRAYS}
    for normalize in (False, True):
        types, values = layout.preordered(normalize)
        arrays[f"preordered({normalize})[0]"] = types
        arrays[f"preordered({normalize})[1]"] = values
        again = layout.preordered(normalize)
        assert again[0] is types and again[1] is values  # the same two arrays
    before = {name: array.copy() for name, array in arrays.items()}
    for name, array in arrays.items():
        assert not array.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            array += 1
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 7
        assert np.array_equal(getattr(layout, name) if name in LAYOUT_ARRAYS else array, before[name])
    assert isinstance(layout.nodes, tuple)
    assert layout.shapes is not None and isinstance(layout.shapes, tuple)
    assert all(isinstance(side, tuple) for side in layout.children)
    with pytest.raises(AttributeError, match="read-only"):
        layout.values = np.zeros(3, np.float32)  # type: ignore[misc]
    with pytest.raises(AttributeError, match="read-only"):
        layout.nodes = ()  # type: ignore[misc]
    with pytest.raises(AttributeError, match="read-only"):
        del layout.nodes
    # preorder_lists gives new lists on every call.
    types_list, values_list = layout.preorder_lists()
    types_list.append(99)
    values_list[0] = 99.0
    assert layout.preorder_lists() == NodeLayout(parse(text)).preorder_lists()


def test_the_arrays_of_a_layout_stay_read_only_when_computed_in_any_order() -> None:
    # Some arrays are computed from others (normalized from raw values, edge types
    # from sides): whichever is read first, every one comes out read-only.
    for first in LAYOUT_ARRAYS:
        layout = NodeLayout(parse("4x + 2y^2 - 7 * (x + 3)"))
        getattr(layout, first)
        for name in LAYOUT_ARRAYS:
            assert not getattr(layout, name).flags.writeable, (first, name)


def test_a_layout_whose_tree_a_step_took_never_describes_the_rewritten_tree() -> None:
    cache = ExpressionCache()
    text = "4x + 2y + 2x"
    layout = cache.parse(text).layout
    fresh = NodeLayout(parse(text))
    node = cache.take_node(text, 3)
    CommutativeSwapRule().apply_to(node.get_root())
    assert str(node.get_root()) != text
    # Shapes were not computed before the tree left: they never will be, rather
    # than be read from the rewritten nodes. The rest was read when it was made.
    assert layout.shapes is None
    for name in LAYOUT_ARRAYS:
        assert np.array_equal(getattr(layout, name), getattr(fresh, name)), name
    assert layout.children == fresh.children
    # A layout whose shapes were computed keeps them.
    computed = cache.parse(text).layout
    assert computed.shapes == fresh.shapes
    CommutativeSwapRule().apply_to(cache.take_node(text, 3).get_root())
    assert computed.shapes == fresh.shapes


# -- feature rows, pre-ordered rows and adjacency indexes: made in Python, equal to numpy's ---


LAYOUT_TEXTS = [
    "4x + 2y^2 - 7 * x", "x", "(2 + 3) * x^2 + -y", "12.5x - 0.1 + 3y", "7 + 7",
    "0.1x + 0.001 - 3400000", "-0.0 + 2x", "16777217x + 3 - 16777216y",
    "-16777217 + 2x", "5 + 5", "999999999x - 999999999", "3 / 7 + 0.3333333333x",
]


def _numpy_scaled(values: "np.ndarray") -> "np.ndarray":
    """Min-max scaling in float32 throughout, as numpy computes it."""
    low = values.min()
    span = values.max() - low
    return np.zeros_like(values) if span <= 0 else (values - low) / span


def _bits(array: "np.ndarray") -> list:
    return np.ascontiguousarray(array, dtype=np.float32).view(np.uint32).tolist()


@pytest.mark.parametrize("text", LAYOUT_TEXTS)
def test_feature_rows_and_preordered_are_numpys_float32_numbers(text: str) -> None:
    layout = NodeLayout(new_parser().parse(text))
    types = np.asarray([float(t) for t in layout._type_ids], dtype=np.float32)
    values = np.asarray(layout._values, dtype=np.float32)
    leaves = np.asarray(layout.is_leaf, dtype=np.float32)
    for normalize in (True, False):
        want_types = types / np.float32(MAX_TYPE_ID) if normalize else types
        want_values = _numpy_scaled(values) if normalize else values
        rows = layout.feature_rows(normalize)
        assert rows.shape == (len(layout), 4) and rows.dtype == np.float32
        assert _bits(rows[:, 0]) == _bits(want_types)
        assert _bits(rows[:, 1]) == _bits(want_values)
        assert _bits(rows[:, 2]) == _bits(np.zeros(len(layout)))
        assert _bits(rows[:, 3]) == _bits(leaves)
        pre_types, pre_values = layout.preordered(normalize)
        assert _bits(pre_types) == _bits(want_types[layout.preorder])
        assert _bits(pre_values) == _bits(want_values[layout.preorder])
        # The arrays the observations read agree with them too.
        assert _bits(rows[:, 0]) == _bits(layout.normalized_type_ids if normalize else layout.type_ids)
        assert _bits(rows[:, 1]) == _bits(layout.normalized_values if normalize else layout.values)


def test_feature_rows_and_preordered_are_shared_and_stay_read_only() -> None:
    layout = NodeLayout(new_parser().parse("4x + 2y^2 - 7"))
    for array in (layout.feature_rows(True), *layout.preordered(True)):
        with pytest.raises(ValueError):
            array[0] = 5.0
        assert_frozen_for_good(array)
    assert layout.feature_rows(True) is layout.feature_rows(True)
    assert layout.preordered(False)[0] is layout.preordered(False)[0]


@pytest.mark.parametrize("text", LAYOUT_TEXTS)
@pytest.mark.parametrize("length", [16, 128])
def test_adjacency_index_marks_the_edges(text: str, length: int) -> None:
    layout = NodeLayout(new_parser().parse(text))
    by_index = np.zeros((length, length), np.float32)
    by_index.put(layout.adjacency_index(length), 1.0)
    by_edges = np.zeros((length, length), np.float32)
    parents, children = layout.edge_index
    by_edges[parents, children] = 1.0
    assert np.array_equal(by_index, by_edges)
    assert int(by_index.sum()) == len(layout) - 1
    assert not layout.adjacency_index(length).flags.writeable
