"""The search for the moves that give a written line: fewest first, around
texts to avoid, within a budget, and the grain's checks."""

import pytest

from mathy_envs.envs import PolyHaystackLikeTerms, PolySimplify
from mathy_envs.text.reach import AUTO, AUTO_STEPS, SearchBudget, check_grain, grain_for, moves_to

ENV = PolySimplify()
STATE = ENV.state_from_text("4x + 2y + 3x")


def _result(path: object) -> str:
    assert isinstance(path, list), path
    state = STATE
    for action in path:
        state, _, _ = ENV.get_next_state(state, action)
    return state.agent.problem


def test_the_fewest_moves_to_a_written_line_are_found() -> None:
    path = moves_to(ENV, STATE, "2y + 7x", 3)
    assert isinstance(path, list) and len(path) == 3 and _result(path) == "2y + 7x"
    # Written another way (a product by juxtaposition), the same moves.
    assert moves_to(ENV, STATE, "2y + (4 + 3)x", 2) == path[:2]
    assert "no 2 valid moves give it" in str(moves_to(ENV, STATE, "2y + 7x", 2))


def test_texts_to_avoid_are_not_passed_through() -> None:
    path = moves_to(ENV, STATE, "2y + 7x", 3)
    assert isinstance(path, list)
    first = _result(path[:1])
    around = moves_to(ENV, STATE, "2y + 7x", 3, avoid={first})
    assert isinstance(around, list) and _result(around[:1]) != first or isinstance(around, str)


def test_a_search_stops_when_the_budget_is_spent() -> None:
    budget = SearchBudget(5)
    reason = moves_to(ENV, STATE, "2y + 7x", 3, budget=budget)
    assert isinstance(reason, str) and "budget is spent" in reason and budget.left == 0
    plenty = SearchBudget(1000)
    assert isinstance(moves_to(ENV, STATE, "2y + 7x", 3, budget=plenty), list)
    assert 0 < plenty.left < 1000


def test_grains_are_checked_and_auto_resolved_per_env() -> None:
    assert grain_for(ENV, AUTO) is None and grain_for(PolyHaystackLikeTerms(), AUTO) == AUTO_STEPS == 3
    assert grain_for(ENV, 3) == 3 and grain_for(ENV, None) is None
    with pytest.raises(ValueError, match="does not take free derivations"):
        grain_for(PolyHaystackLikeTerms(), None)
    with pytest.raises(ValueError, match="steps_per_line must be"):
        grain_for(ENV, "all")
    for bad in (0, 5, True, 2.0):
        with pytest.raises(ValueError, match="steps_per_line must be"):
            check_grain(bad)  # type: ignore[arg-type]
