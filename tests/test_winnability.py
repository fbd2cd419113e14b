"""Every generated problem of every env and difficulty can be won within its move
budget (`state.max_moves`).

Each problem is proven winnable by a sequence of moves that, replayed with
`get_next_state`, ends in a win: found by the exhaustive search of `search.py`
when it finishes within its cap (a finished search with no win proves the
problem unwinnable), and otherwise by the swarm planner. A problem neither of
them wins fails the test.

The search here is `guided_win`, which visits the least disordered texts first
(`disorder`: like terms spread apart, constants and variables not yet combined)
and so reaches the wins of long problems after far fewer texts than the
breadth-first `shortest_win`; when it finishes without a win it has searched
every text within the move budget, just as `shortest_win` does. The few problems
that neither it (within `SEARCH_CAP`) nor the swarm wins get one longer search.
"""

from typing import List, Optional, Sequence, Tuple, Type

import pytest
from mathy_core import (
    AddExpression,
    ConstantExpression,
    PowerExpression,
    VariableExpression,
)
from helpers import valid_actions
from search import SearchResult, guided_win, shortest_win

from mathy_envs.env import MathyEnv
from mathy_envs.envs import ENV_TASKS, ComplexSimplify, PolyHaystackLikeTerms
from mathy_envs.parsing import parse
from mathy_envs.state import MathyEnvState
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs.terms import sum_terms, term_kind
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import ActionType, MathyEnvDifficulty, MathyEnvProblemArgs

PROBLEMS = 100
"""Problems checked per env and difficulty."""
CHUNKS = 5
"""Test cases each env and difficulty is split into (for pytest-xdist)."""
SEARCH_CAP = 2000
"""Distinct texts the exhaustive search may visit before the swarm takes over."""
LAST_SEARCH_CAP = 60_000
"""Distinct texts of the last, longer search, for the few problems that need
deep searches (long products with many coefficients to pass along)."""
SWARM_CONFIGS = (
    SwarmConfig(n_walkers=64, max_iters=200, seed=0),
    SwarmConfig(n_walkers=128, max_iters=400, seed=1),
)
"""Swarm runs tried in turn when the search is too big."""


def disorder(text: str) -> int:
    """How far a text looks from simplified, to order the search (any number
    would do; a good one only makes wins come sooner).

    For every kind of term of the sum, the terms of other kinds between its
    first and last one; and for every term, its repeated variables and its
    constants beyond the first (leaving out exponents and the constants of a
    sum such as the factored `(3 + 11) * x`, which a single move adds up)."""
    terms = sum_terms(parse(text).tree)
    kinds = [term_kind(term) for term in terms]
    total = 0
    for kind in set(kinds):
        places = [index for index, other in enumerate(kinds) if other == kind]
        total += places[-1] - places[0] + 1 - len(places)
    for term in terms:
        constants = [
            constant
            for constant in term.find_type(ConstantExpression)
            if not isinstance(constant.parent, (AddExpression, PowerExpression))
        ]
        names = [str(variable.identifier) for variable in term.find_type(VariableExpression)]
        total += max(0, len(constants) - 1) + len(names) - len(set(names))
    return total


def replay_wins(env: MathyEnv, state: MathyEnvState, actions: Sequence[ActionType]) -> bool:
    """Replaying `actions` from `state` ends in a win on the last action (and in no
    terminal transition before it)."""
    if not actions:
        return False
    for index, action in enumerate(actions):
        state, time_step, _ = env.get_next_state(state, action)
        if is_terminal_transition(time_step):
            return index == len(actions) - 1 and time_step.reward > 0
    return False


def unwinnable_reason(
    env: MathyEnv,
    state: MathyEnvState,
    search_cap: int = SEARCH_CAP,
    last_search_cap: int = LAST_SEARCH_CAP,
) -> Optional[str]:
    """None when a replayed win within `state.max_moves` proves the state winnable,
    else why it could not be proven."""
    search = guided_win(env, state, disorder, search_cap)
    if search.won:
        assert replay_wins(env, state, search.actions)
        return None
    if search.unwinnable:
        return f"no sequence of moves wins (exhaustive search, {search.texts} texts)"
    for config in SWARM_CONFIGS:
        solution = swarm_solve(state, config, env)
        if solution.solved:
            assert len(solution.actions) <= state.max_moves
            assert replay_wins(env, state, solution.actions)
            return None
    if last_search_cap > search_cap:
        search = guided_win(env, state, disorder, last_search_cap)
        if search.won:
            assert replay_wins(env, state, search.actions)
            return None
        if search.unwinnable:
            return f"no sequence of moves wins (exhaustive search, {search.texts} texts)"
    return (
        f"search too big (> {max(search_cap, last_search_cap)} texts) and the "
        f"swarm found no win in {len(SWARM_CONFIGS)} runs"
    )


def generated(
    env_class: Type[MathyEnv], difficulty: MathyEnvDifficulty, seeds: Sequence[int]
) -> List[Tuple[int, MathyEnvState]]:
    env = env_class()
    states = []
    for seed in seeds:
        state, _ = env.get_initial_state(
            MathyEnvProblemArgs(difficulty), print_problem=False, seed=seed
        )
        states.append((seed, state))
    return states


CASES = [
    (task, difficulty, chunk)
    for task in ENV_TASKS
    for difficulty in MathyEnvDifficulty
    for chunk in range(CHUNKS)
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "task, difficulty, chunk",
    CASES,
    ids=[f"{task}-{difficulty.value}-{chunk}" for task, difficulty, chunk in CASES],
)
def test_generated_problems_are_winnable(
    task: str, difficulty: MathyEnvDifficulty, chunk: int
) -> None:
    per_chunk = PROBLEMS // CHUNKS
    seeds = range(chunk * per_chunk, (chunk + 1) * per_chunk)
    env_class = ENV_TASKS[task]
    assert_winnable(
        env_class(), generated(env_class, difficulty, seeds), f"{task} {difficulty.value}"
    )


def assert_winnable(
    env: MathyEnv, states: Sequence[Tuple[int, MathyEnvState]], label: str
) -> None:
    failures = []
    for seed, state in states:
        reason = unwinnable_reason(env, state)
        if reason is not None:
            failures.append(f"seed {seed}: {state.agent.problem!r} ({reason})")
    assert not failures, f"{label}: unwinnable problems:\n" + "\n".join(failures)


# -- the search itself --------------------------------------------------------------


def complex_state(text: str, max_moves: int) -> Tuple[ComplexSimplify, MathyEnvState]:
    env = ComplexSimplify()
    return env, env.state_from_text(text, max_moves)


@pytest.mark.parametrize(
    "text",
    ["h^4 * 10f^3 * f^3", "a^2 * r * a^2 * a^2", "7x * q^3 * q^3 * x"],
)
def test_known_unwinnable_problem_fails(text: str) -> None:
    env, state = complex_state(text, 8 * (text.count("*") + 1))
    search = shortest_win(env, state)
    assert search.unwinnable and not search.too_big
    guided = guided_win(env, state, disorder)
    assert guided.unwinnable and guided.texts == search.texts
    reason = unwinnable_reason(env, state)
    assert reason is not None and "no sequence of moves wins" in reason


def test_known_unwinnable_problem_fails_without_the_search() -> None:
    # With the search capped, the swarm does not find a win either, so a
    # generated problem like this one still fails the test.
    env, state = complex_state("h^4 * 10f^3 * f^3", 24)
    reason = unwinnable_reason(env, state, search_cap=1, last_search_cap=1)
    assert reason is not None and "swarm found no win" in reason


def test_unwinnable_generated_problem_fails_the_check() -> None:
    # The check of the generated problems reports this problem as it would one
    # the generator made.
    env, state = complex_state("h^4 * 10f^3 * f^3", 24)
    with pytest.raises(AssertionError, match="h\\^4 \\* 10f\\^3 \\* f\\^3"):
        assert_winnable(env, [(0, state)], "complex easy")


@pytest.mark.parametrize(
    "text, moves",
    [("4x * 2y^2 * 7q", 2), ("3a * a^2 * 5b", 3), ("x^2 * x^2", 2)],
)
def test_search_finds_the_shortest_win(text: str, moves: int) -> None:
    env, state = complex_state(text, 24)
    search = shortest_win(env, state)
    assert search.moves == moves and search.complete
    assert len(search.actions) == moves
    assert replay_wins(env, state, search.actions)
    # One move fewer is not enough: the search proves it.
    assert shortest_win(env, env.state_from_text(text, moves - 1)).unwinnable


def test_search_respects_the_move_budget() -> None:
    env, state = complex_state("3a * a^2 * 5b", 3)
    assert shortest_win(env, state).moves == 3
    assert shortest_win(env, env.state_from_text("3a * a^2 * 5b", 2)).unwinnable


def test_search_reports_too_big() -> None:
    env, state = complex_state("3a * a^2 * 5b", 24)
    for search in (shortest_win(env, state, 5), guided_win(env, state, disorder, 5)):
        assert search.too_big and not search.won and not search.unwinnable


def test_guided_search_wins_long_sums() -> None:
    env = ENV_TASKS["poly-grouping"]()
    text = "x + 5f + x + 11x + 7x + 2x + 9x + 8m^3 + t + 8l + 2x + 5j + 2x + 4g^2 + 9y"
    state = env.state_from_text(text, 60)
    assert disorder(text) > 0
    search = guided_win(env, state, disorder)
    assert search.won and search.moves is not None and search.moves <= 60
    assert replay_wins(env, state, search.actions)


def test_search_sees_wins_that_depend_on_the_last_action() -> None:
    # The haystack win depends on where the last action acted, not only on the
    # text it produced: a move that leaves the text a dedupe has already seen can
    # still win.
    env = PolyHaystackLikeTerms()
    state = env.state_from_text("4x + 2y + 9k + 3x", 1)
    search = shortest_win(env, state)
    assert search.moves == 1
    assert replay_wins(env, state, search.actions)
    winning = [
        action
        for action in valid_actions(env, state)
        if env.get_next_state(state, action)[1].reward > 0
    ]
    losing = [action for action in valid_actions(env, state) if action not in winning]
    assert winning and losing


def test_search_result_flags() -> None:
    assert SearchResult(None, True, 3).unwinnable
    assert SearchResult(None, False, 3).too_big
    assert SearchResult(2, True, 3).won
