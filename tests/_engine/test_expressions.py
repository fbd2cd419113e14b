"""`mathy_envs._engine.expressions`: `ParsedExpression` (a text, its tree and the tree's
node arrays) and `private_entry`, the copy user code is given. Entries come from
a cache of their own (`ExpressionCache`), never the shared one."""

from mathy_core import ExpressionParser
from mathy_core.rules import DistributiveFactorOutRule

from mathy_envs._engine.parse_cache import ExpressionCache
from mathy_envs._engine.expressions import ParsedExpression, private_entry


def test_nodes_are_the_trees_nodes_in_action_order() -> None:
    text = "4x + 2y + 3 * (x + 7)"
    tree = ExpressionParser().parse(text)
    entry = ParsedExpression(text, tree)
    assert entry.text == text and entry.tree is tree
    assert list(entry.nodes) == tree.to_list("inorder")
    assert len(entry) == len(tree.to_list("inorder")) == 13
    # A new entry is neither admitted as safe nor shared until told so.
    assert entry.safe is False and entry.shared is False and entry.has_equation is False


def test_rewrite_applies_a_rule_to_a_copy_and_leaves_the_entry_alone() -> None:
    entry = ExpressionCache().parse("4x + 2x")
    root_index = [str(node) for node in entry.nodes].index("4x + 2x")
    for _ in range(2):  # the second time from the untouched tree again
        change = entry.rewrite(DistributiveFactorOutRule(), root_index)
        assert change.result is not None
        assert str(change.result.get_root()) == "(4 + 2) * x"
        assert str(entry.tree) == "4x + 2x"
        assert [str(node) for node in entry.nodes][root_index] == "4x + 2x"


def test_a_private_entry_is_the_same_text_over_a_tree_of_its_own() -> None:
    cache = ExpressionCache()
    for text, safe, has_equation in (("4x + 2y + 2x", True, False), ("2x = 4", False, True)):
        entry = cache.parse(text)
        private = private_entry(entry)
        assert private is not entry and private.text == text
        assert entry.safe is private.safe is safe
        assert entry.has_equation is private.has_equation is has_equation
        assert str(private.tree) == str(entry.tree) == text
        assert not {id(node) for node in private.nodes} & {id(node) for node in entry.nodes}
        # Whatever the holder of the private entry does to its tree, the
        # cached entry keeps describing the text.
        for node in private.nodes:
            node.left, node.right = node.right, node.left
        assert str(entry.tree) == text
        assert cache.parse(text) is entry
