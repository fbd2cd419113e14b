"""PolyCombineInPlace's generator, `combine_in_place`, and its check
`combines_in_two_moves` (in `mathy_envs/envs/poly_combine_in_place.py`).

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser` and
terms compared with mathy_core's `terms_are_like` (`oracles`), so the
expectations do not come from `mathy_envs._engine.terms`. The env itself is tested in
`test_builtin_envs.py`.
"""

import numpy as np
import pytest
from mathy_core import get_terms
from oracles import like_pairs, parse

from mathy_envs.envs.poly_combine_in_place import combine_in_place, combines_in_two_moves
from mathy_envs._engine.parse_cache import parse as parse_for_env

SAMPLES = 40
MAX_NODES = 128


# -- the generator, combine_in_place (mathy_envs/envs/poly_combine_in_place.py) --------


@pytest.mark.parametrize("num_terms", [3, 6, 9, 12, 16, 22])
def test_combine_in_place(num_terms: int) -> None:
    rng = np.random.default_rng(num_terms)
    for _ in range(SAMPLES):
        text, complexity = combine_in_place(rng, num_terms)
        tree = parse(text)
        terms = get_terms(tree)
        assert complexity == len(terms) == num_terms, text
        ((i, j),) = like_pairs(terms)
        assert j == i + 1, text  # exactly one like pair, and it is adjacent
        assert len(tree.to_list()) <= MAX_NODES
        assert combines_in_two_moves(parse_for_env(text)), text


def test_combine_in_place_parentheses_knob() -> None:
    rng = np.random.default_rng(4)
    never = [combine_in_place(rng, 10, parenthesize_probability=0.0).text for _ in range(20)]
    assert not any("(" in text for text in never)
    always = [combine_in_place(rng, 10, parenthesize_probability=1.0).text for _ in range(20)]
    assert all("(" in text for text in always)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("4x + 2x + y", True),  # factor out, then 4 + 2
        ("y + 4x + 2x", True),
        ("2x + 3x", True),
        ("x^2 + 3x^2 + x", True),  # (1 + 3) * x^2 + x -> 4x^2 + x
        ("4x + y + 2x", False),  # not adjacent: factor out does not apply
        ("4x + 2x + 3x", False),  # a third like term is left over
        ("4x + 2x + y + 3y", False),  # two pairs
        ("x + y", False),  # nothing to combine
        ("4x + 2y", False),
    ],
)
def test_combines_in_two_moves(text: str, expected: bool) -> None:
    assert combines_in_two_moves(parse_for_env(text)) is expected
