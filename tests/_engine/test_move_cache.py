"""`mathy_envs._engine.move_cache`: an env's masks and move results by text, and
the rewrite, refusal and value check of moves, on whichever core is in use."""

from typing import List

import numpy as np
import pytest
from mathy_core import BaseRule, ExpressionParser

from mathy_envs import MathyEnv
from mathy_envs._engine import (
    MoveCache,
    check_equations,
    check_value_kept,
    core_rules,
    expression_cache,
    fitting_nodes,
    in_mask,
    move_refusal,
    parse_text,
    rewrite_move,
    tree_mask,
)
from mathy_envs._engine.move_cache import NO_RULE


def _parser() -> ExpressionParser:
    return ExpressionParser()


def _mathy_core_result(
    parser: ExpressionParser, rules: List[BaseRule], text: str, rule: int, node: int
) -> str:
    """What mathy_core's rule makes of a fresh parse of `text`."""
    from mathy_envs._engine import apply_rule

    change = apply_rule(parse_text(parser, text), rules[rule], node, text)
    assert change.result is not None
    return str(change.result.get_root())


TEXTS = ["4x + 2y + 3x", "2 * (x + 3)", "(x + 2)(x + 3)", "x^2 * x^3 + 7"]


@pytest.mark.parametrize("text", TEXTS)
def test_masks_are_kept_per_text_and_read_only(text: str) -> None:
    cache, parser, rules = MoveCache(), _parser(), core_rules()
    mask = cache.mask(text, rules, parser)
    assert cache.mask(text, rules, parser) is mask
    assert not mask.flags.writeable
    assert mask.shape == (len(rules), len(expression_cache(parser).parse(text)))
    cache.clear()
    again = cache.mask(text, rules, parser)
    assert again is not mask
    np.testing.assert_array_equal(again, mask)


@pytest.mark.parametrize("text", TEXTS)
def test_results_are_each_valid_moves_text_and_kept_with_their_mask(text: str) -> None:
    cache, parser, rules = MoveCache(), _parser(), core_rules()
    mask = cache.mask(text, rules, parser)
    results = cache.results(text, rules, parser, mask)
    assert [(rule, node) for rule, node, _ in results] == [
        (int(r), int(n)) for r, n in zip(*np.nonzero(mask))
    ]
    for rule, node, out in results:
        assert out == _mathy_core_result(parser, rules, text, rule, node)
    assert cache.results(text, rules, parser, mask) is results
    # A result computed for another mask is not read.
    other = mask.copy()
    assert cache.results(text, rules, parser, other) is not results


def test_a_mask_of_an_equation_names_the_env_that_refuses_it() -> None:
    cache, parser = MoveCache(), _parser()
    assert cache.mask("x = 2 + 3", core_rules(), parser).any()
    with pytest.raises(ValueError, match="MathyEnv does not support equations"):
        MoveCache().mask("x = 2 + 3", core_rules(), parser, False, MathyEnv)


def test_tree_mask_is_the_mask_of_the_trees_text() -> None:
    parser, rules = _parser(), core_rules()
    tree = parse_text(parser, "4x + 2x")
    np.testing.assert_array_equal(
        tree_mask(tree, tree, rules, None, parser), MoveCache().mask("4x + 2x", rules, parser)
    )
    only_first = tree_mask(tree, tree, rules, [type(rules[0])], parser)
    assert not only_first[1:].any()


def test_in_mask_is_false_out_of_range() -> None:
    mask = np.array([[0, 1], [1, 0]], dtype=np.int8)
    assert in_mask(mask, (0, 1)) and in_mask(mask, (1, 0))
    assert not in_mask(mask, (0, 0))
    for move in [(-1, 0), (0, -1), (2, 0), (0, 2)]:
        assert not in_mask(mask, move)


@pytest.mark.parametrize("text", TEXTS)
def test_rewrite_move_writes_what_mathy_core_writes(text: str) -> None:
    parser, rules = _parser(), core_rules()
    expressions = expression_cache(parser)
    for rule, node in zip(*np.nonzero(MoveCache().mask(text, rules, parser))):
        out, change = rewrite_move(expressions, rules, text, (int(rule), int(node)))
        expected = _mathy_core_result(parser, rules, text, int(rule), int(node))
        assert out == expected
        assert change.rule is rules[rule]
        assert change.result is not None and str(change.result.get_root()) == expected


def test_move_refusal_says_why_and_hands_out_a_copy() -> None:
    parser, rules = _parser(), core_rules()
    expressions = expression_cache(parser)
    text = "4x + 2x"
    nodes = len(expressions.parse(text))
    reason, change = move_refusal(expressions, rules, text, (len(rules), 0))
    assert f"rule index {len(rules)} is out of range" in reason
    assert change.rule is NO_RULE and change.node is None
    reason, change = move_refusal(expressions, rules, text, (0, nodes))
    assert f"node index {nodes} is out of range [0, {nodes})" in reason
    assert change.rule is rules[0] and change.node is None
    reason, change = move_refusal(expressions, rules, text, (0, 0))
    assert "can't be applied to node 0" in reason
    assert change.node is not None and change.node is not expressions.parse(text).nodes[0]
    assert str(change.node) == str(expressions.parse(text).nodes[0])


def test_check_value_kept() -> None:
    expressions = expression_cache(_parser())
    check_value_kept(expressions, "4x + 2x", "6x")
    with pytest.raises(ValueError, match="expression value changed"):
        check_value_kept(expressions, "4x + 2x", "7x")
    with pytest.raises(ValueError, match="expression domain narrowed"):
        check_value_kept(expressions, "x^3", "x^3 * x^0.5 * x^0.5 / x")


def test_fitting_nodes_and_check_equations() -> None:
    expressions = expression_cache(_parser())
    assert fitting_nodes(expressions, "4x + 2x", 7) == 7
    with pytest.raises(ValueError, match="has 7 nodes, more than max_seq_len=6"):
        fitting_nodes(expressions, "4x + 2x", 6)
    check_equations(expressions, "4x + 2x", MathyEnv)
    with pytest.raises(ValueError, match="MathyEnv does not support equations"):
        check_equations(expressions, "x = 2", MathyEnv)


def test_an_env_keeps_its_caches_in_one_move_cache_that_pickles() -> None:
    import pickle

    from mathy_envs.envs import PolySimplify

    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 3x")
    results = env.move_results(state)
    assert isinstance(env.__dict__["_moves"], MoveCache)
    assert not {"_masks", "_results"} & env.__dict__.keys()
    copy = pickle.loads(pickle.dumps(env))
    assert isinstance(copy.__dict__["_moves"], MoveCache)
    assert copy.move_results(state) == results
    # A pickle of an env from before the MoveCache (its two caches apart) loads.
    old = dict(env.__getstate__())
    del old["_moves"]
    old["_masks"] = object()
    old["_results"] = object()
    restored = PolySimplify.__new__(PolySimplify)
    restored.__setstate__(old)
    assert isinstance(restored.__dict__["_moves"], MoveCache)
    assert "_masks" not in restored.__dict__ and "_results" not in restored.__dict__
    assert restored.move_results(state) == results
