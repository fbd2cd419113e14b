"""Every generated problem of every env and difficulty can be won within its move
budget (`state.max_moves`).

Each problem is proven winnable by a sequence of moves that, replayed with
`get_next_state`, ends in a win (see `winnability.py`): found by the exhaustive
search of `search.py` when it finishes within its cap (a finished search with no
win proves the problem unwinnable), and otherwise by the swarm planner. A
problem neither of them wins fails the test.

The search is `guided_win`, which takes the moves into the least disordered
texts first (`disorder`: like terms spread apart, constants and variables not yet
combined, products of sums not yet multiplied out) and so reaches the wins of
long problems after far fewer texts than the breadth-first `shortest_win`; when
it finishes without a win it has searched every text within the move budget,
just as `shortest_win` does. The few problems that neither it (within
`SEARCH_CAP`) nor the swarm wins get one longer search.

Searching every problem takes minutes, so its wins are recorded in
`tests/data/winnability.json`: the default run regenerates the problems from the
same seeds, checks they are the recorded ones and replays the recorded wins
(`check_win`); the slow job (`-m slow`) searches again and checks that it finds
the recorded wins. `python tests/winnability.py` writes the record again.
"""

from typing import Dict, List, Tuple

import pytest
from helpers import valid_actions
from search import SearchResult, guided_win, shortest_win
from winnability import (
    CHUNKS,
    PROBLEMS,
    RECORD,
    RECORD_COMMAND,
    Entry,
    assert_winnable,
    case_id,
    cases,
    check_win,
    chunk_seeds,
    disorder,
    generated,
    inputs,
    load_record,
    mismatches,
    replay_wins,
    unwinnable_reason,
)

from mathy_envs.envs import ENV_TASKS, ComplexSimplify, PolyHaystackLikeTerms
from mathy_envs.state import MathyEnvState
from mathy_envs.types import MathyEnvDifficulty

Record = Tuple[Dict[str, object], Dict[str, List[Entry]]]

REWRITE = (
    f"if the change is meant, write the record again with `{RECORD_COMMAND}` "
    "and review its diff"
)


@pytest.fixture(scope="module")
def record() -> Record:
    """The recorded inputs and wins (`tests/data/winnability.json`)."""
    return load_record()


def recorded_wins(record: Record, task: str, difficulty: MathyEnvDifficulty) -> List[Entry]:
    key = case_id((task, difficulty))
    wins = record[1]
    assert key in wins, f"{RECORD.name} holds no wins of {key}: write them with `{RECORD_COMMAND}`"
    return wins[key]


# -- the recorded wins, replayed -----------------------------------------------------


def test_the_record_is_of_these_envs_and_this_search(record: Record) -> None:
    recorded, wins = record
    assert sorted(wins) == sorted(map(case_id, cases())), f"envs or difficulties changed: {REWRITE}"
    current = inputs()
    assert recorded["problems"] == current["problems"], REWRITE
    assert recorded["search"] == current["search"], f"the search changed: {REWRITE}"


CASES = cases()


@pytest.mark.parametrize("task, difficulty", CASES, ids=[case_id(case) for case in CASES])
def test_recorded_wins_of_the_generated_problems_replay(
    task: str, difficulty: MathyEnvDifficulty, record: Record
) -> None:
    env_class = ENV_TASKS[task]
    problems = generated(env_class, difficulty, range(PROBLEMS))
    recorded = recorded_wins(record, task, difficulty)
    changed = mismatches(problems, recorded)
    assert not changed, (
        f"{task} {difficulty.value}: the generator no longer draws the recorded problems "
        f"(recorded with {record[0]}); {REWRITE}:\n" + "\n".join(changed[:20])
    )
    env = env_class()
    failures = []
    for (seed, state), (_, _, actions) in zip(problems, recorded):
        reason = check_win(env, state, actions)
        if reason is not None:
            failures.append(f"seed {seed}: {state.agent.problem!r}: {reason}")
    assert not failures, (
        f"{task} {difficulty.value}: recorded wins that no longer win (run the slow "
        f"job, `pytest -m slow tests/test_winnability.py`, to search again; {REWRITE}):\n"
        + "\n".join(failures)
    )


# -- the search, again (slow) --------------------------------------------------------

SEARCH_CASES = [
    (task, difficulty, chunk) for task, difficulty in CASES for chunk in range(CHUNKS)
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "task, difficulty, chunk",
    SEARCH_CASES,
    ids=[f"{task}-{difficulty.value}-{chunk}" for task, difficulty, chunk in SEARCH_CASES],
)
def test_generated_problems_are_winnable(
    task: str, difficulty: MathyEnvDifficulty, chunk: int, record: Record
) -> None:
    """The search proves every problem winnable, and finds the recorded wins."""
    env_class = ENV_TASKS[task]
    problems = generated(env_class, difficulty, chunk_seeds(chunk))
    wins = assert_winnable(env_class(), problems, f"{task} {difficulty.value}")
    recorded = recorded_wins(record, task, difficulty)[
        chunk_seeds(chunk).start : chunk_seeds(chunk).stop
    ]
    found = [
        (state.agent.problem, state.max_moves, actions)
        for (_, state), actions in zip(problems, wins)
    ]
    differ = [
        f"seed {seed}: {text!r}: found {actions}, recorded {entry[2]} ({entry[0]!r})"
        for (seed, _), (text, _, actions), entry in zip(problems, found, recorded)
        if (text, actions) != (entry[0], entry[2])
    ]
    assert len(recorded) == len(found) and not differ, (
        f"{task} {difficulty.value}: the search finds other wins than the recorded "
        f"ones (recorded with {record[0]}); {REWRITE}:\n" + "\n".join(differ)
    )


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
    # The guided search reaches this win through two texts: give it fewer.
    for search in (shortest_win(env, state, 5), guided_win(env, state, disorder, 2)):
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
