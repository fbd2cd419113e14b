"""The per-thread cache of parsed texts: what it hands over and what it keeps."""

import copy
import pickle
import threading
from typing import List

import pytest
from mathy_core import ExpressionParser
from mathy_core.rules import CommutativeSwapRule

from mathy_envs._engine.parse_cache import ExpressionCache, expression_cache
from mathy_envs._engine.parsers import new_parser, parser_lock

from oracles import parse


def test_a_text_is_parsed_once_and_the_same_entry_returned() -> None:
    cache = ExpressionCache()
    first = cache.parse("4x + 2y")
    assert cache.parse("4x + 2y") is first
    cache.parse("7 + x")
    assert cache.parse("4x + 2y") is first
    assert str(first.tree) == "4x + 2y"


def test_a_taken_tree_is_never_returned_again_even_just_after_parsing_it() -> None:
    cache = ExpressionCache()
    text = "4x + 2y + 2x"
    entry = cache.parse(text)
    node = cache.take_node(text, 1)
    assert node is entry.nodes[1]
    # The caller owns the tree now: changing it must not reach the cache.
    CommutativeSwapRule().apply_to(node.get_root())
    changed = str(node.get_root())
    assert changed != text
    again = cache.parse(text)
    assert again is not entry
    assert str(again.tree) == text and str(parse(text)) == text
    # The same for a whole tree.
    tree = cache.take_tree(text)
    assert tree is again.tree
    assert cache.parse(text) is not again


def test_a_shared_entry_hands_out_copies() -> None:
    cache = ExpressionCache()
    entry = cache.parse("4x + 2y")
    entry.shared = True
    tree = cache.take_tree("4x + 2y")
    node = cache.take_node("4x + 2y", 0)
    assert tree is not entry.tree and node.get_root() is not entry.tree
    assert cache.parse("4x + 2y") is entry


def test_clear_forgets_every_entry() -> None:
    cache = ExpressionCache()
    entry = cache.parse("4x + 2y")
    cache.clear()
    assert len(cache) == 0
    assert cache.parse("4x + 2y") is not entry


@pytest.mark.parametrize("bad", [None, 3, b"4x", ["4x"]])
def test_a_cache_rejects_what_is_not_text_after_a_hit_too(bad: object) -> None:
    cache = ExpressionCache()
    cache.parse("4x")
    with pytest.raises(ValueError, match="must be a str"):
        cache.parse(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be a str"):
        cache.take_node(bad, 0)  # type: ignore[arg-type]


def test_no_node_at_an_index_past_the_end() -> None:
    cache = ExpressionCache()
    cache.parse("4x")
    with pytest.raises(ValueError, match="no node 9"):
        cache.take_node("4x", 9)


def test_each_thread_has_its_own_default_cache_and_a_given_parser_its_own() -> None:
    mine = expression_cache()
    assert expression_cache(None) is mine
    parser = ExpressionParser()
    theirs = expression_cache(parser)
    assert theirs is not mine and theirs.parser is parser
    assert expression_cache(parser) is theirs
    seen: List[ExpressionCache] = []
    thread = threading.Thread(target=lambda: seen.append(expression_cache()))
    thread.start()
    thread.join()
    assert seen and seen[0] is not mine


def test_a_cache_given_another_parser_parses_under_that_parsers_lock() -> None:
    cache = ExpressionCache()
    parser = new_parser()
    cache.parser = parser
    assert cache.parser is parser
    done: List[str] = []
    with parser_lock(parser):
        # While another holder has the parser, the cache must wait for it.
        thread = threading.Thread(target=lambda: done.append(str(cache.parse("4x + y").tree)))
        thread.start()
        thread.join(0.3)
        assert thread.is_alive() and not done
    thread.join()
    assert done == ["4x + y"]


def test_a_cache_pickles_and_copies_empty_with_its_parser_settings() -> None:
    cache = ExpressionCache(capacity=7)
    cache.parse("4x + y")
    for copied in (pickle.loads(pickle.dumps(cache)), copy.deepcopy(cache)):
        assert len(copied) == 0 and copied._entries.capacity == 7
        assert str(copied.parse("4x + y").tree) == "4x + y"
        assert copied.take_tree("2 + x") is not None


def test_caches_sharing_entries_never_return_a_tree_another_took() -> None:
    first = ExpressionCache()
    first.parse("2x + 3x")
    second = copy.copy(first)  # shares the entries, not the last-returned one
    tree = second.take_tree("2x + 3x")
    tree.left = tree.right = None
    assert str(first.parse("2x + 3x").tree) == "2x + 3x"


def test_forget_drops_an_unshared_entry_and_keeps_a_shared_one() -> None:
    cache = ExpressionCache()
    entry = cache.parse("4x + 2x")
    cache.forget("4x + 2x")
    assert cache.parse("4x + 2x") is not entry  # parsed again
    shared = cache.parse("4x + 2x")
    shared.shared = True
    cache.forget("4x + 2x")
    cache.forget("never parsed")
    assert cache.parse("4x + 2x") is shared


@pytest.mark.parametrize("text", ["4x + 2y^2 + 2x", "xy^2 + x", "-(3x)^2 - 7", "x / 2 = 1"])
def test_an_entry_reads_as_one_tree_whose_nodes_its_layout_lists(text: str) -> None:
    # On either core (the native one makes the tree when it is first read), the
    # entry's tree is one object, its layout's nodes are that tree's in-order
    # nodes, and both equal a fresh parse.
    entry = ExpressionCache().parse(text)
    tree = entry.tree
    assert entry.tree is tree
    assert entry.layout.nodes == tuple(tree.to_list("inorder"))
    assert all(a is b for a, b in zip(entry.layout.nodes, tree.to_list("inorder")))
    assert len(entry.layout) == len(entry) == len(entry.layout.nodes)
    assert str(tree) == str(ExpressionParser().parse(text))


def test_a_node_taken_before_the_tree_was_read_belongs_to_the_taken_tree() -> None:
    cache = ExpressionCache()
    cache.parse("4x + 2x")
    node = cache.take_node("4x + 2x", 3)
    assert str(node.get_root()) == "4x + 2x" and node is node.get_root().to_list("inorder")[3]
    assert cache.take_tree("4x + 2x") is not node.get_root()  # parsed anew
