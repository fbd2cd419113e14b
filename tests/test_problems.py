"""The shared term primitives of `mathy_envs.problems`: plain functions of a
`numpy.random.Generator` that every env's generator is built from.

The generators themselves live beside their envs and are tested beside their
env tests (`tests/envs/test_<env>.py`; what all of them promise in
`tests/envs/test_generators.py`). Terms are re-parsed with a fresh mathy_core
`ExpressionParser` and compared with mathy_core's `terms_are_like`, so the
expectations do not come from `mathy_envs._engine.terms`.
"""

import warnings
from typing import Any, Callable, List, Optional

import numpy as np
import pytest
from mathy_core import MathExpression, get_term_ex, get_terms, terms_are_like
from oracles import parse

from mathy_envs import MathyEnvDifficulty, MathyEnvProblemArgs, problems
from mathy_envs._engine.expressions import ParsedExpression
from mathy_envs._engine.native import CORE
from mathy_envs._engine.parse_cache import parse as parse_for_env
from mathy_envs._engine.terms import factor_out_applies, like_terms_grouped
from mathy_envs.envs import PolySimplify, poly_simplify
from mathy_envs.problems import (
    COMMON_VARIABLES,
    MAX_ATTEMPTS,
    MAX_NODES,
    VARIABLES,
    GeneratedProblem,
    chance,
    defaults_of,
    join_terms,
    rand_coefficient,
    rand_int,
    rand_templates,
    rand_term,
    rand_unlike_terms,
    rand_variable,
    retry,
    shuffled,
    term_text,
    tree_check,
)
from mathy_envs._engine.terms import is_simplified


def test_rand_int_includes_both_ends() -> None:
    rng = np.random.default_rng(0)
    drawn = {rand_int(rng, 2, 5) for _ in range(200)}
    assert drawn == {2, 3, 4, 5}
    assert rand_int(rng, 7, 7) == 7
    assert isinstance(rand_int(rng, 0, 3), int)


def test_chance_draws_once_and_respects_its_probability() -> None:
    rng, twin = np.random.default_rng(4), np.random.default_rng(4)
    assert chance(rng, 1.0) is True
    assert chance(rng, 0.0) is False
    twin.random(2)  # one draw each
    assert rng.random() == twin.random()
    hits = sum(chance(rng, 0.25) for _ in range(2000))
    assert 400 < hits < 600


def test_variables_and_coefficients() -> None:
    assert "e" not in VARIABLES and "i" not in VARIABLES
    rng = np.random.default_rng(1)
    common = {rand_variable(rng, common=True) for _ in range(200)}
    assert common == set(COMMON_VARIABLES)
    anywhere = {rand_variable(rng) for _ in range(2000)}
    assert anywhere == set(VARIABLES)
    coefficients = {rand_coefficient(rng, 2, 4) for _ in range(100)}
    assert coefficients == {2, 3, 4}


@pytest.mark.parametrize(
    "coefficient,variable,exponent,text",
    [(4, "x", 2, "4x^2"), (None, "x", 2, "x^2"), (4, "x", None, "4x"),
     (None, "x", None, "x"), (4, None, None, "4"), (4, None, 3, "4")],
)
def test_term_text(coefficient: object, variable: object, exponent: object, text: str) -> None:
    assert term_text(coefficient, variable, exponent) == text  # type: ignore[arg-type]


def test_rand_term_follows_its_template() -> None:
    rng = np.random.default_rng(2)
    for _ in range(50):
        always = get_term_ex(parse(rand_term(rng, ("y", 3), coefficient_probability=1.0)))
        assert always is not None
        assert always.variable == "y" and always.exponent == 3
        assert always.coefficient is not None and 2 <= always.coefficient <= 12
    assert rand_term(rng, ("k", None), coefficient_probability=0.0) == "k"


def test_rand_templates_are_distinct_and_avoid_exclude() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        exclude = rand_templates(rng, 3)
        kinds = rand_templates(rng, 6, exclude)
        assert len(set(kinds)) == 6
        assert not set(kinds) & set(exclude)
        for variable, exponent in kinds:
            assert variable in VARIABLES
            assert exponent is None or 2 <= exponent <= problems.MAX_EXPONENT
    common = rand_templates(rng, 2, common=True, exponent_probability=0.0)
    assert all(v in COMMON_VARIABLES and e is None for v, e in common)
    kinds_there_are = len(VARIABLES) * problems.MAX_EXPONENT  # no exponent, or 2..4
    with pytest.raises(ValueError):
        rand_templates(rng, kinds_there_are + 1)


def test_join_terms() -> None:
    rng = np.random.default_rng(5)
    assert join_terms(rng, ["4x", "2y", "z"]) == "4x + 2y + z"
    assert join_terms(rng, ["4x"]) == "4x"
    minus = join_terms(rng, ["4x", "2y", "z"], ops=("-",))
    assert minus == "4x - 2y - z"
    for _ in range(50):
        terms = ["a", "b", "c", "d", "f"]
        text = join_terms(rng, terms, parenthesize_probability=1.0)
        assert text.count("(") == 1  # a run of two or more, never all of them
        inner = text[text.index("(") + 1 : text.index(")")]
        assert 2 <= len(inner.split(" + ")) < len(terms)
        assert text.replace("(", "").replace(")", "") == " + ".join(terms)
    # two terms are never parenthesized: a run would be all of them
    assert join_terms(rng, ["a", "b"], parenthesize_probability=1.0) == "a + b"


def test_shuffled_is_a_permutation() -> None:
    rng = np.random.default_rng(6)
    items = ["a", "b", "c", "d", "f", "g"]
    orders = {tuple(shuffled(rng, items)) for _ in range(50)}
    assert all(sorted(order) == items for order in orders)
    assert len(orders) > 10


def test_rand_unlike_terms() -> None:
    rng = np.random.default_rng(7)
    constants = 0
    for _ in range(60):
        exclude = rand_templates(rng, 1)
        terms, kinds = rand_unlike_terms(rng, 5, exclude, constant_probability=0.5)
        assert len(terms) == 5
        assert not set(kinds) & set(exclude)
        trees = get_terms(parse(" + ".join(terms)))
        assert len(trees) == 5
        plain = [t for t in terms if t.isdigit()]
        assert len(plain) <= 1 and len(kinds) == 5 - len(plain)
        constants += len(plain)
        for i in range(5):
            for j in range(i + 1, 5):
                assert not terms_are_like(trees[i], trees[j]), terms
    assert 10 < constants < 50
    assert rand_unlike_terms(rng, 0) == ([], [])


def test_retry_returns_the_first_accepted_problem() -> None:
    texts = iter(["4x + 2y", "4x + 2x", "x + x"])
    calls: List[str] = []

    def build() -> GeneratedProblem:
        calls.append("build")
        return GeneratedProblem(next(texts), 2)

    problem = retry(build, tree_check(is_simplified), "family")
    assert problem == GeneratedProblem("4x + 2x", 2)
    assert len(calls) == 2
    text, complexity = problem  # a plain (text, complexity) pair
    assert (text, complexity) == ("4x + 2x", 2)


def test_retry_gives_up_naming_the_family() -> None:
    calls = 0

    def build() -> GeneratedProblem:
        nonlocal calls
        calls += 1
        return GeneratedProblem("4x", 1)

    with pytest.raises(ValueError, match="my_family"):
        retry(build, lambda parsed: True, "my_family")
    assert calls == MAX_ATTEMPTS


def test_retry_rejects_problems_with_too_many_nodes() -> None:
    long = " + ".join(["x"] * MAX_NODES)  # 2 * MAX_NODES - 1 nodes
    short = " + ".join(["x"] * 3)
    texts = iter([long, short])
    seen: List[ParsedExpression] = []

    def rejects(parsed: ParsedExpression) -> bool:
        seen.append(parsed)
        return False

    problem = retry(lambda: GeneratedProblem(next(texts), 1), rejects, "long")
    assert problem.text == short
    assert len(seen) == 1  # the long one never reached `rejects`


def test_moved_generators_still_import_from_problems_with_a_warning() -> None:
    from mathy_envs.envs.poly_simplify import simplify_terms

    with pytest.warns(DeprecationWarning, match="mathy_envs.envs.poly_simplify"):
        moved = problems.simplify_terms  # type: ignore[attr-defined]
    assert moved is simplify_terms
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError):
            problems.no_such_generator  # type: ignore[attr-defined]  # noqa: B018
    assert "simplify_terms" not in problems.__all__


# -- tree_check: the library's predicates from the parsed text ------------------------


def _sums(seed: int, count: int) -> List[str]:
    """Sums of random terms, some with like terms, some factored or grouped."""
    rng = np.random.default_rng(seed)
    texts = []
    for _ in range(count):
        kinds = rand_templates(rng, rand_int(rng, 1, 4), common=True)
        terms = [rand_term(rng, kinds[int(rng.integers(len(kinds)))]) for _ in range(rand_int(rng, 1, 7))]
        text = join_terms(rng, terms, ("+", "-", "*"), 0.4)
        if chance(rng, 0.2):
            text = f"({text}) * {rand_term(rng, kinds[0])}"
        texts.append(text)
    return texts


@pytest.mark.parametrize(
    "predicate", [is_simplified, factor_out_applies, like_terms_grouped],
    ids=lambda f: f.__name__,
)
def test_tree_check_of_library_predicates_answers_as_the_tree(
    predicate: Callable[[MathExpression], bool]
) -> None:
    check = tree_check(predicate)
    verdicts = set()
    treeless = 0
    texts = _sums(11, 400)
    for text in texts:
        parsed = parse_for_env(text)
        built = "tree" in vars(parsed)
        expected = predicate(parse(text))  # a fresh mathy_core tree
        assert check(parsed) is expected, text
        treeless += not built and "tree" not in vars(parsed)
        # and without the native parse (the pure-Python core)
        assert check(ParsedExpression(text, parse(text))) is expected, text
        verdicts.add(expected)
    assert verdicts == {True, False}
    # the native core answered: no tree was made for the check
    if CORE == "native":
        assert treeless > len(texts) // 2


# -- the native core's draws never skip code of yours ----------------------------------

NORMAL = MathyEnvProblemArgs(difficulty=MathyEnvDifficulty.normal)


def _poly_texts(count: int = 20) -> List[str]:
    env = PolySimplify()
    env.seed(12)
    return [env.problem_fn(NORMAL).text for _ in range(count)]


def test_a_replaced_generator_function_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: List[str] = []

    def counted(*args: Any, **kwargs: Any) -> str:
        made = rand_term(*args, **kwargs)
        calls.append(made)
        return made

    monkeypatch.setattr(poly_simplify, "rand_term", counted)
    texts = _poly_texts(5)
    assert calls and all(term in " ".join(texts) for term in calls)


def test_changed_defaults_of_a_generator_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # Parenthesize whenever there are 3 terms or more (normal has 4 to 7).
    defaults = poly_simplify.simplify_terms.__defaults__
    assert defaults is not None
    monkeypatch.setattr(poly_simplify.simplify_terms, "__defaults__", (*defaults[:-1], 1.0))
    assert all("(" in text for text in _poly_texts())


def test_replaced_code_of_a_primitive_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    def fixed(
        coefficient: Optional[int] = None,
        variable: Optional[str] = None,
        exponent: Optional[int] = None,
    ) -> str:
        return "7q"

    monkeypatch.setattr(problems.term_text, "__code__", fixed.__code__)
    for text in _poly_texts(5):
        assert set(text.replace("(", "").replace(")", "").split(" + ")) == {"7q"}


def test_native_family_draws_what_python_draws() -> None:
    # The family's draw itself, on the env's knobs, against the Python branch of
    # its generator.
    for seed in range(30):
        drawn_rng, python_rng = np.random.default_rng(seed), np.random.default_rng(seed)
        low, high = poly_simplify.TERM_COUNTS[MathyEnvDifficulty.hard]
        chances = defaults_of(
            poly_simplify.simplify_terms,
            "noise_probability", "shuffle_probability", "parenthesize_probability",
        )
        drawn = poly_simplify._NATIVE.draw(drawn_rng, (low, high), chances, ("+",))
        expected = poly_simplify.simplify_terms(python_rng, rand_int(python_rng, low, high))
        if CORE == "native":
            assert drawn == expected
            assert drawn_rng.bit_generator.state == python_rng.bit_generator.state
        else:
            assert drawn is None


def test_replaced_code_of_an_engine_check_the_generators_call_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # tree_check (and the engine's checks it hands out) are the generators'
    # code too: a PolyGroupLikeTerms generator whose check rejects nothing
    # keeps the first sum it builds, grouped or not.
    from mathy_envs.envs import poly_group_like_terms

    def keeps_all(predicate: Callable[[MathExpression], bool]) -> Callable[[Any], bool]:
        return lambda parsed: False

    def draws() -> List[str]:
        rng = np.random.default_rng(14)
        return [
            poly_group_like_terms.poly_group_like_terms_problem(rng, NORMAL).text
            for _ in range(30)
        ]

    before = draws()
    monkeypatch.setattr(problems.tree_check, "__code__", keeps_all.__code__)
    assert draws() != before


def test_an_equal_default_of_another_kind_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    class Always(float):
        """Equal to the default, but more than any draw."""

        def __gt__(self, other: object) -> bool:
            return True

    defaults = rand_term.__defaults__
    assert defaults == (0.8,)
    monkeypatch.setattr(rand_term, "__defaults__", (Always(0.8),))
    # Every term gets a coefficient: `rng.random() < Always(0.8)` is True.
    for text in _poly_texts(10):
        for term in text.replace("(", "").replace(")", "").split(" + "):
            assert term[0].isdigit(), text


def test_operators_of_your_own_kind_are_read_by_python() -> None:
    calls: List[int] = []

    class Ops(List[str]):
        def __getitem__(self, index: Any) -> Any:
            calls.append(index)
            return super().__getitem__(index)

    rng = np.random.default_rng(0)
    poly_simplify.poly_simplify_problem(rng, NORMAL, ops=Ops(["+", "-"]))
    assert calls
    # A str of operators is a sequence of one-character operators, as Python reads it.
    texts = [poly_simplify.poly_simplify_problem(rng, NORMAL, ops="+-").text for _ in range(20)]
    assert any(" - " in text for text in texts) and any(" + " in text for text in texts)
