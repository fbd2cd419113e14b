"""`mathy_envs.admission`: `admit` checks a freshly parsed text against the
supported limits and marks it safe (the core rules are known to be exact on it)
or not, and whether it holds an equation."""

import pytest
from mathy_core import ExpressionParser

from mathy_envs.admission import SAFE_CONSTANT, SAFE_SIZE, admit
from mathy_envs.expressions import ParsedExpression


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
