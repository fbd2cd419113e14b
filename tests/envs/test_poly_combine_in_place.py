"""PolyCombineInPlace's generator, `combine_in_place`, and its check
`combines_in_two_moves` (in `mathy_envs/envs/poly_combine_in_place.py`).

Generated problems are re-parsed with a fresh mathy_core `ExpressionParser` and
terms compared with mathy_core's `terms_are_like` (`oracles`), so the
expectations do not come from `mathy_envs._engine.terms`. The env itself is tested in
`test_builtin_envs.py`.
"""

from typing import List

import numpy as np
import pytest
from mathy_core import BaseRule, get_terms
from mathy_core.rules import ConstantsSimplifyRule, DistributiveFactorOutRule
from oracles import like_pairs, parse, simplified

from mathy_envs.envs.poly_combine_in_place import combine_in_place, combines_in_two_moves
from mathy_envs._engine.expressions import ParsedExpression
from mathy_envs._engine.parse_cache import parse as parse_for_env
from mathy_envs.problems import join_terms, rand_int, rand_templates, rand_term, rand_unlike_terms

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


def _two_moves_in_mathy_core(text: str) -> bool:
    """`combines_in_two_moves` straight from mathy_core: each rule applied to a
    fresh tree at each node it applies to, the texts parsed again."""
    factor_out, add_constants = DistributiveFactorOutRule(), ConstantsSimplifyRule()

    def moves(text: str, rule: BaseRule) -> List[str]:
        texts = []
        for index, node in enumerate(parse(text).to_list("inorder")):
            if rule.can_apply_to(node):
                fresh = parse(text).to_list("inorder")[index]
                texts.append(str(rule.apply_to(fresh).result.get_root()))
        return texts

    return any(
        simplified(parse(second))
        for first in moves(text, factor_out)
        for second in moves(first, add_constants)
    )


def _candidates(seed: int, count: int) -> List[str]:
    """Sums as `combine_in_place` builds them (kept or not), and sums with a like
    pair anywhere, or two."""
    rng = np.random.default_rng(seed)
    texts = []
    for index in range(count):
        num_terms = rand_int(rng, 3, 9)
        like = rand_templates(rng, 1)
        terms, _ = rand_unlike_terms(rng, num_terms - 2, like, constant_probability=0.3)
        pair = [rand_term(rng, like[0]) for _ in range(2)]
        if index % 3 == 0:
            terms.insert(rand_int(rng, 0, len(terms)), " + ".join(pair))
        else:
            for term in pair:
                terms.insert(rand_int(rng, 0, len(terms)), term)
        texts.append(join_terms(rng, terms, ("+", "-") if index % 5 == 0 else ("+",), 0.3))
    return texts


def test_combines_in_two_moves_answers_as_mathy_core() -> None:
    """Over generated sums, `combines_in_two_moves` (the native core's masks,
    rewrites and verdicts where it parsed the texts) says what mathy_core's
    rules and trees say, and so does its pure-Python path."""
    answers = []
    for text in _candidates(3, 300):
        expected = _two_moves_in_mathy_core(text)
        assert combines_in_two_moves(parse_for_env(text)) is expected, text
        assert combines_in_two_moves(ParsedExpression(text, parse(text))) is expected, text
        answers.append(expected)
    assert 30 < sum(answers) < len(answers) - 30
