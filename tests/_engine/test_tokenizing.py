"""The tokenizer behind every parse: mathy_core's tokens, asked once per piece."""

from typing import Any, List, Optional, Tuple
from unittest import mock

import pytest
from mathy_core import AbsExpression, ExpressionParser, MathExpression
from mathy_core.tokenizer import TOKEN_TYPES, Token, Tokenizer

from mathy_envs import MathyEnv, envs
from mathy_envs._engine.parsers import new_parser
from mathy_envs._engine.tokenizing import PieceTokenizer

from helpers import random_play_states

ODD_TEXTS = [
    "",
    "   ",
    "4x+2y",
    "  4x  +\t2y ",
    "4x\n+ 2y\r\n- 3",
    "sgn(x) + 2",
    "sgn (x)+ sgn(y)",
    "4x – 2",
    "x^2.5 + .5 - 3.",
    "12 34",
    "ab cd",
    "4x^2 * (3y + 2)! = 7",
    "[4x + 2] / (y)",
    "1e5 + x",
    "0.0 + -0.0",
]
BAD_TEXTS = ["4x + $", "4x +\x0b 2", "x + 2\u00a0+ 3", "4x + 2y #", "é"]


def structure(node: Optional[MathExpression]) -> Any:
    """Node types, constants (with their types), names and child sides, nested."""
    if node is None:
        return None
    value = getattr(node, "value", None)
    return (
        type(node).__name__, type(value).__name__, repr(value),
        getattr(node, "identifier", None), getattr(node, "child_on_left", None),
        structure(node.left), structure(node.right),
    )


def tokens(sequence: List[Token]) -> List[Tuple[str, int]]:
    return [(token.value, token.type) for token in sequence]


def test_it_gives_mathy_cores_tokens_on_the_texts_random_play_reaches() -> None:
    texts = {state.agent.problem for _, state in random_play_states(per_env=25, seed=3)}
    assert len(texts) > 500
    reference = Tokenizer()
    pieces = PieceTokenizer()
    for _ in range(2):  # the second time, every piece is known
        for text in sorted(texts):
            assert tokens(pieces.tokenize(text)) == tokens(reference.tokenize(text)), text


@pytest.mark.parametrize("text", ODD_TEXTS)
def test_it_gives_mathy_cores_tokens_on_odd_spacing_and_characters(text: str) -> None:
    reference = Tokenizer()
    pieces = PieceTokenizer()
    for _ in range(2):
        assert tokens(pieces.tokenize(text)) == tokens(reference.tokenize(text))


@pytest.mark.parametrize("text", ODD_TEXTS)
def test_with_padding_it_gives_mathy_cores_pad_tokens(text: str) -> None:
    reference = Tokenizer(exclude_padding=False)
    assert tokens(PieceTokenizer(exclude_padding=False).tokenize(text)) == tokens(
        reference.tokenize(text)
    )


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_a_rejected_text_gets_mathy_cores_own_complaint_about_the_whole_text(
    text: str,
) -> None:
    with pytest.raises(ValueError) as expected:
        Tokenizer().tokenize(text)
    pieces = PieceTokenizer()
    pieces.tokenize("4x + 2")  # known pieces do not hide the bad one
    with pytest.raises(ValueError) as raised:
        pieces.tokenize(text)
    assert str(raised.value) == str(expected.value)


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_envs_reject_a_text_with_a_character_mathy_core_rejects(text: str) -> None:
    env: MathyEnv = envs.PolySimplify()
    with pytest.raises(ValueError, match="cannot parse problem text"):
        env.state_from_text(text)


def test_each_piece_is_tokenized_once() -> None:
    asked: List[str] = []
    tokenize = Tokenizer.tokenize

    def tracing(tokenizer: Tokenizer, buffer: str) -> List[Token]:
        asked.append(buffer)
        return tokenize(tokenizer, buffer)

    pieces = PieceTokenizer()
    with mock.patch.object(Tokenizer, "tokenize", tracing):
        pieces.tokenize("4x + 2y + 4x")
        pieces.tokenize("2y + 4x + 7")
    assert asked == ["4x", "+", "2y", "7"]


def test_the_returned_lists_are_the_callers_to_change() -> None:
    pieces = PieceTokenizer()
    first = pieces.tokenize("4x + 2y")
    first.pop(0)
    first.clear()
    assert tokens(pieces.tokenize("4x + 2y")) == tokens(Tokenizer().tokenize("4x + 2y"))


def test_the_library_parser_builds_the_trees_mathy_cores_parser_builds() -> None:
    texts = sorted({state.agent.problem for _, state in random_play_states(per_env=10, seed=5)})
    ours, reference = new_parser(), ExpressionParser()
    for text in texts + ODD_TEXTS + BAD_TEXTS:
        assert outcome(ours, text) == outcome(reference, text), text


def outcome(parser: ExpressionParser, text: str) -> Any:
    """The tree's structure, or the error's type and message."""
    try:
        return structure(parser.parse(text))
    except Exception as error:
        return type(error), str(error)
    finally:
        parser.clear_cache()


def test_a_rejected_text_raises_as_if_tokenized_whole() -> None:
    pieces = PieceTokenizer()
    with pytest.raises(ValueError) as raised:
        pieces.tokenize("4x + $")
    # No second error about the piece alone hides behind mathy_core's.
    assert raised.value.__context__ is None
    assert raised.value.__cause__ is None


def test_a_function_registered_after_use_is_read_as_one() -> None:
    pieces, reference = PieceTokenizer(), Tokenizer()
    assert tokens(pieces.tokenize("abs(x) + 2")) == tokens(reference.tokenize("abs(x) + 2"))
    pieces.functions["abs"] = AbsExpression
    reference.functions["abs"] = AbsExpression
    expected = tokens(reference.tokenize("abs(x) + 2"))
    assert ("abs", TOKEN_TYPES.Function) in expected
    assert tokens(pieces.tokenize("abs(x) + 2")) == expected


@pytest.mark.parametrize("value", [None, 4, b"4x + 2", ["4", "x"]])
def test_anything_but_a_text_is_left_to_mathy_core(value: Any) -> None:
    assert outcome_of_tokenize(PieceTokenizer(), value) == outcome_of_tokenize(
        Tokenizer(), value
    )


def outcome_of_tokenize(tokenizer: Tokenizer, value: Any) -> Any:
    try:
        return tokens(tokenizer.tokenize(value))
    except Exception as error:
        return type(error), str(error)
