"""`mathy_envs.rules`: the core rules and the tables masks read about them."""

from mathy_envs.rules import EXPRESSION_TYPES

from oracles import parse


def test_every_node_type_the_parser_builds_is_in_the_table() -> None:
    texts = ["4x + 2 - 3y * -z", "x^2 / 7 = 5!", "sgn(y) + x"]
    built = {type(node) for text in texts for node in parse(text).to_list("inorder")}
    assert built <= EXPRESSION_TYPES
