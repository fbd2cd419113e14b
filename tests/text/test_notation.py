"""Natural notation: texts are read with the precedence everyone uses, written so
that mathy_core reads the same expression, and refused with a reason otherwise."""

import pytest
from helpers import HOSTILE_REPLIES, time_limit

from mathy_envs.envs import PolySimplify
from mathy_envs.limits import MAX_NESTING
from mathy_envs.text.notation import read_math

ENV = PolySimplify()


@pytest.mark.parametrize(
    "written,meant",
    [
        # Juxtaposition binds like *, ^ binds tighter than both.
        ("(10 + 5)z^2", "(10 + 5) * (z^2)"),
        ("x(x + 9)", "x * (x + 9)"),
        ("3x(x + 1)", "(3 * x) * (x + 1)"),
        ("2(x + 1)^2", "2 * ((x + 1)^2)"),
        ("(x + 1)(x - 2)", "(x + 1) * (x - 2)"),
        ("x(y + 1)^2", "x * ((y + 1)^2)"),
        ("2xy^2", "2 * x * (y^2)"),
        ("x^2y", "(x^2) * y"),
        ("-x^2", "-(x^2)"),
        ("-2^2", "-(2^2)"),
        ("2^3^2", "2^(3^2)"),
        ("x^-2", "x^(-2)"),
        ("2x/3", "(2 * x) / 3"),
        ("a - b - c", "(a - b) - c"),
        ("2 * -x", "2 * (-x)"),
        ("a * 4x^2", "a * (4 * (x^2))"),
        # Other spellings.
        ("x**2 + 3·x", "x^2 + 3 * x"),
        ("x² − 2x", "x^2 - 2 * x"),
        ("\\left(x + 1\\right) \\cdot 3", "(x + 1) * 3"),
        ("\\frac{x + 1}{2}", "(x + 1) / 2"),
        ("x^{2} \\times [y + 1]", "x^2 * (y + 1)"),
        ("12 ÷ 4", "12 / 4"),
    ],
)
def test_natural_forms_are_read_with_the_standard_precedence(written: str, meant: str) -> None:
    text = read_math(written)
    # The same value as the explicit form, and mathy_core reads the text as
    # written here the same way (the reader checks the tree it parses).
    assert ENV.has_same_value(text, read_math(meant))


def test_mathy_cores_misreadings_are_read_right() -> None:
    # mathy_core reads `(10 + 5)z^2` as `z^2 * (10 + 5) * z` and `2xy^2` as
    # `2 * y^2 * x * y`: other values.
    assert not ENV.has_same_value("(10 + 5)z^2", "15z^2")
    assert ENV.has_same_value(read_math("(10 + 5)z^2"), "15z^2")
    assert not ENV.has_same_value("2xy^2", "2 * x * y^2")
    assert ENV.has_same_value(read_math("2xy^2"), "2 * x * y^2")
    assert read_math("(10 + 5)z^2") == "(10 + 5) * z^2"


@pytest.mark.parametrize(
    "written,reason",
    [
        ("x2", "write a number before what it multiplies"),
        ("(x + 1)2", "write a number before what it multiplies"),
        ("2 3", "two numbers side by side"),
        ("a / 4x", "divides by a product written without an operator"),
        ("x +", "ends where a number, variable or '(' was expected"),
        ("(x + 1", "unclosed"),
        ("x + 1)", "unmatched"),
        ("(x + 1]", "closes '(' with ']'"),
        ("x = 2", "is an equation"),
        ("x = 2 = y", "is an equation"),
        ("\\sqrt{x}", "\\sqrt"),
        ("x % 2", "'%'"),
        ("", "has no expression"),
        ("\\frac{x}", "\\frac without"),
        ("(" * (MAX_NESTING + 1) + "x" + ")" * (MAX_NESTING + 1), "nested more than"),
        (" + ".join(["x"] * 300), "levels deep"),
    ],
)
def test_what_is_not_one_expression_is_refused_with_a_reason(written: str, reason: str) -> None:
    with pytest.raises(ValueError) as raised:
        read_math(written)
    assert reason in str(raised.value)
    assert len(str(raised.value)) < 600


def test_equations_are_read_where_the_env_has_them() -> None:
    assert read_math("2x = 4", equations=True) == "2 * x = 4"
    with pytest.raises(ValueError, match="more than one '='"):
        read_math("x = 2 = y", equations=True)


@pytest.mark.parametrize("name", list(HOSTILE_REPLIES))
def test_reading_takes_time_linear_in_the_text(name: str) -> None:
    text = HOSTILE_REPLIES[name][:2048]
    with time_limit(2.0):
        try:
            read_math(text)
        except ValueError:
            pass
