"""`mathy_envs._engine.parsers`: making a parser, the default one, the lock that
serializes each parser's use, and parsing one text into a fresh tree."""

import threading
from typing import List

import pytest
from mathy_core import ExpressionParser

from mathy_envs._engine.parsers import default_parser, new_parser, parse_text, parser_lock
from mathy_envs._engine.tokenizing import PieceTokenizer

TEXTS = ["4x + 2y + 3 * (x + 7)", "-3x^2 - 0.5y", "x", "(2 + 3) * -x"]


@pytest.mark.parametrize("text", TEXTS)
def test_a_new_parser_builds_the_trees_mathy_core_builds(text: str) -> None:
    parser = new_parser()
    assert isinstance(parser, ExpressionParser)
    assert isinstance(parser.tokenizer, PieceTokenizer)
    ours = parse_text(parser, text)
    theirs = ExpressionParser().parse(text)
    assert str(ours) == str(theirs)
    assert [type(node) for node in ours.to_list("inorder")] == [
        type(node) for node in theirs.to_list("inorder")
    ]


def test_each_parse_is_a_fresh_tree() -> None:
    parser = new_parser()
    first = parse_text(parser, TEXTS[0])
    second = parse_text(parser, TEXTS[0])
    assert first is not second
    assert not {id(node) for node in first.to_list()} & {id(node) for node in second.to_list()}
    first.left = None  # changing one tree leaves the next parse alone
    assert str(parse_text(parser, TEXTS[0])) == TEXTS[0]


@pytest.mark.parametrize("text", ["4x +", "((x", "x ** 2"])
def test_a_text_that_does_not_parse_is_a_value_error_quoting_it(text: str) -> None:
    with pytest.raises(ValueError, match="^cannot parse problem text ") as info:
        parse_text(new_parser(), text)
    assert repr(text) in str(info.value)


def test_each_parser_has_one_lock_of_its_own() -> None:
    parser, other = new_parser(), new_parser()
    assert parser_lock(parser) is parser_lock(parser)
    assert parser_lock(parser) is not parser_lock(other)
    assert default_parser() is default_parser()
    assert parser_lock(default_parser()) is parser_lock(default_parser())


def test_parse_text_waits_for_the_parsers_lock() -> None:
    parser = new_parser()
    done: List[str] = []
    with parser_lock(parser):
        thread = threading.Thread(target=lambda: done.append(str(parse_text(parser, "4x + y"))))
        thread.start()
        thread.join(0.3)
        assert thread.is_alive() and not done
    thread.join()
    assert done == ["4x + y"]
