"""`mathy_envs._engine.admission`: `admit` checks a freshly parsed text against the
supported limits and marks it safe (the core rules are known to be exact on it)
or not, and whether it holds an equation."""

from fractions import Fraction

import pytest
from mathy_core import ExpressionParser, MathExpression

from mathy_envs._engine.admission import SAFE_CONSTANT, SAFE_SIZE, admit
from mathy_envs.envs import PolySimplify
from mathy_envs._engine.expressions import ParsedExpression

from oracles import Undefined as NoValue
from oracles import numeric_value, parse, undefined_everywhere


def admitted(text: str) -> ParsedExpression:
    """A new entry of `text`, parsed by a fresh mathy_core parser, after `admit`."""
    entry = ParsedExpression(text, ExpressionParser().parse(text))
    admit(entry)
    return entry


@pytest.mark.parametrize(
    "text", ["4x + 2y^2 - 3x", "x", "-x + 2", "-x^2 + 1", "x - 3y", f"{SAFE_CONSTANT}x + 2"]
)
def test_small_polynomials_are_safe(text: str) -> None:
    entry = admitted(text)
    assert entry.safe is True
    assert entry.has_equation is False


@pytest.mark.parametrize(
    "text",
    [
        f"{SAFE_CONSTANT + 1}x + 2",  # products of such constants can pass MAX_CONSTANT
        "0.5x + 1",  # not a whole constant
        "-(x + 2)",  # a negated sum
        "x - (y + 2)",  # subtracting a sum
        "x / 2 + 1",
        "x^y",
        "x^1",
        "2^x",
        "5!",
    ],
)
def test_texts_the_core_rules_may_mishandle_are_not_safe(text: str) -> None:
    entry = admitted(text)
    assert entry.safe is False
    assert entry.has_equation is False


def test_a_tree_of_more_than_safe_size_nodes_is_not_safe() -> None:
    terms = (SAFE_SIZE + 1) // 2  # a sum of n terms has 2n - 1 nodes
    fits = admitted(" + ".join(["x"] * terms))
    assert len(fits) <= SAFE_SIZE and fits.safe is True
    too_big = admitted(" + ".join(["x"] * (terms + 1)))
    assert len(too_big) > SAFE_SIZE and too_big.safe is False


def test_an_equation_is_marked_and_not_safe() -> None:
    entry = admitted("2x = 4")
    assert entry.has_equation is True
    assert entry.safe is False


@pytest.mark.parametrize(
    "text, message",
    [
        ("1" + "0" * 40 + "x", "MAX_CONSTANT"),
        ("1/0 + x", "not finite"),
    ],
)
def test_values_out_of_the_supported_range_are_value_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        admitted(text)
    assert repr(text) in str(info.value)  # the message quotes the text


@pytest.mark.parametrize(
    "text, reason",
    [
        # sgn(x) - 2 is -3, -2 or -1: negative for every x.
        ("(sgn(x) - 2)^0.5", "negative number to a fractional power for every value"),
        ("(sgn(x) - 2)^0.1 + x", "negative number to a fractional power for every value"),
        ("(sgn(x) - 4^0.5 + 0.5)^0.5", "negative number to a fractional power for every value"),
        # sgn(x) - 1 is never > 0: negative, or 0 to a negative power.
        ("x + (sgn(x) - 1)^-0.5", "negative number to a fractional power for every value"),
        # x - x - 1 is -1: 0^-1.
        ("0^(x - x - 1)", "0 to a negative power"),
        ("x + (y - y)^(2x - x - x - 3)", "0 to a negative power"),
        ("0^(sgn(x) - 2)", "0 to a negative power for every value"),
    ],
)
def test_texts_whose_only_undefined_part_hides_behind_sgn_or_a_variable_exponent_are_refused(
    text: str, reason: str
) -> None:
    assert undefined_everywhere(parse(text), seed=1)
    with pytest.raises(ValueError, match=f"is not finite: .*{reason}") as info:
        admitted(text)
    assert repr(text) in str(info.value)
    with pytest.raises(ValueError, match="is not finite"):
        PolySimplify().state_from_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "(sgn(x) - 2)^2",  # a whole power
        "(sgn(x) - 2)^x",  # a whole x gives a value
        "sgn(x)^0.5",  # 0 or 1 for x >= 0
        "(sgn(x) - 1)^0.5",  # 0 for x > 0
        "(sgn(x) + 1)^-0.5",  # for x >= 0
        "1 / (sgn(x)^2 + 1 - 1)",  # for x != 0
        "0^(x - x)",  # 0^0 is 1
        "0^x",  # for x > 0
        "0^(sgn(x) + 1)",  # for x >= 0
    ],
)
def test_texts_with_a_value_somewhere_are_admitted(text: str) -> None:
    tree = parse(text)
    assert any(_has_value(tree, Fraction(x)) for x in (-2, -1, 0, 1, 2))
    admitted(text)
    PolySimplify().state_from_text(text)


def _has_value(tree: MathExpression, x: Fraction) -> bool:
    """Whether the tree has a real value at the point (the oracle's)."""
    try:
        numeric_value(tree, {"x": x})
        return True
    except NoValue:
        return False
