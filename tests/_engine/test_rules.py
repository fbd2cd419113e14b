"""`mathy_envs._engine.rules`: the core rules and the tables masks read about them."""

from typing import Any, List

import numpy as np
import pytest
from mathy_core.rules import DistributiveFactorOutRule

from mathy_envs.envs import PolySimplify
from mathy_envs._engine.rules import EXPRESSION_TYPES, are_core_rules, core_rules

from oracles import parse


def test_every_node_type_the_parser_builds_is_in_the_table() -> None:
    texts = ["4x + 2 - 3y * -z", "x^2 / 7 = 5!", "sgn(y) + x"]
    built = {type(node) for text in texts for node in parse(text).to_list("inorder")}
    assert built <= EXPRESSION_TYPES


# -- are_core_rules: when the native core may answer for the rules ----------------------


def test_the_core_rules_are_core_rules_with_either_commute_setting() -> None:
    assert are_core_rules(core_rules())
    assert are_core_rules(core_rules(preferred_term_commute=True))


def test_changed_rule_lists_are_not_core_rules() -> None:
    class MyFactorOut(DistributiveFactorOutRule):
        pass

    swapped = core_rules()
    swapped[2], swapped[3] = swapped[3], swapped[2]
    subclassed = core_rules()
    subclassed[3] = MyFactorOut()
    with_attribute = core_rules()
    with_attribute[0].note = "mine"  # type: ignore[attr-defined]
    with_setting = core_rules()
    with_setting[4].__dict__.update({next(iter(with_setting[4].__dict__), "x"): object()})
    for rules in [core_rules()[:6], swapped, subclassed, with_attribute, with_setting, []]:
        assert not are_core_rules(rules)


@pytest.mark.parametrize("method", ["can_apply_to", "apply_to"])
def test_a_patched_rule_class_is_mathy_cores_to_answer(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rule class whose method a user replaced is no longer the one the native
    # core reproduces: steps must call the user's method.
    calls: List[str] = []
    original = getattr(DistributiveFactorOutRule, method)

    def patched(self: DistributiveFactorOutRule, node: Any) -> Any:
        calls.append(str(node))
        return original(self, node)

    monkeypatch.setattr(DistributiveFactorOutRule, method, patched)
    assert not are_core_rules(core_rules())
    env = PolySimplify()
    state = env.state_from_text("4x + 2x + 7", max_moves=5)
    factor = [type(rule) for rule in env.rules].index(DistributiveFactorOutRule)
    node = int(np.flatnonzero(env.valid_moves_array(state)[factor])[0])
    calls.clear()
    out, _, _ = env.get_next_state(state, (factor, node))
    assert out.agent.problem == "(4 + 2) * x + 7"
    assert calls, method


# -- the core rule table: the one statement of the core rules' order and settings --------


def test_core_rules_are_the_tables_rows_in_order() -> None:
    from mathy_envs._engine.rules import CORE_RULE_NAMES, CORE_RULE_TABLE

    for preferred in (False, True):
        made = core_rules(preferred_term_commute=preferred)
        assert [type(rule) for rule in made] == [row.kind for row in CORE_RULE_TABLE]
        assert [type(rule).__name__ for rule in made] == list(CORE_RULE_NAMES)
        for rule, row in zip(made, CORE_RULE_TABLE):
            # Every setting is mathy_core's default but the row's preference.
            defaults = vars(row.kind())
            if row.preference is None:
                assert vars(rule) == defaults
            else:
                assert getattr(rule, row.preference) is preferred
                assert vars(rule).keys() == defaults.keys()


def test_commute_index_and_preference_come_from_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mathy_envs._engine import rules as table

    row = table.CORE_RULE_TABLE[table.COMMUTE_INDEX]
    assert row.kind.__name__ == "CommutativeSwapRule" and row.preference == "preferred"
    assert [row.preference is not None for row in table.CORE_RULE_TABLE].count(True) == 1
    rules = core_rules()
    assert table.commute_preference(rules) is False
    setattr(rules[table.COMMUTE_INDEX], row.preference, True)
    assert table.commute_preference(rules) is True
    # commute_preference reads the attribute the table names.
    monkeypatch.setattr(table, "_PREFERENCE", "not_a_setting")
    assert table.commute_preference(rules) is None
