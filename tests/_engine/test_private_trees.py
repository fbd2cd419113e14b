"""User code is given private copies of parsed trees, never the cached ones."""

from typing import List

import numpy as np
from mathy_core import MathExpression

from mathy_envs._engine.expressions import ParsedExpression
from mathy_envs.envs import PolySimplify


def test_a_tree_from_env_parse_is_the_callers_own() -> None:
    env = PolySimplify()
    text = "9x + 4y + 9x + 2"  # its own text: a failure can't leak into other tests
    state = env.state_from_text(text)
    mask = env.valid_moves_array(state).copy()
    parsed = env.parse(text)
    for node in parsed.nodes:
        node.left, node.right = node.right, node.left
    assert str(parsed.tree) != text
    assert np.array_equal(env.valid_moves_array(env.state_from_text(text)), mask)
    assert env.parse(text).tree is not parsed.tree
    assert str(env.parse(text).tree) == text
    # A step from that text rewrites the untouched tree, not the caller's.
    action = tuple(int(i) for i in np.argwhere(mask)[0])
    after, _, _ = env.get_next_state(state, action)
    assert str(parsed.tree) != text and after.agent.problem != str(parsed.tree)


def test_a_user_rejection_test_is_given_a_private_parse() -> None:
    from mathy_envs.problems import GeneratedProblem, retry, tree_check

    text = "8x + 6y + 8x"  # its own text: a failure can't leak into other tests
    seen: List[MathExpression] = []

    def vandal(tree: MathExpression) -> bool:
        seen.append(tree)
        tree.left = None  # breaks the tree it is given
        return False

    def rejects(parsed: ParsedExpression) -> bool:
        parsed.tree.right = None
        return False

    for test in (tree_check(vandal), rejects):
        problem = retry(lambda: GeneratedProblem(text, 3), test, "tests")
        assert problem.text == text
    env = PolySimplify()
    assert str(env.parse(text).tree) == text
    state = env.state_from_text(text)
    assert env.valid_moves_array(state).sum() > 0
