"""Proofs that every generated problem can be won within its move budget, and the
file that records them (`tests/data/winnability.json`).

A proof is a sequence of `(rule, node)` actions that, replayed with
`get_next_state` from the generated start state, ends in a win: found by the
exhaustive search of `search.py` (`guided_win`) when it finishes within its cap
(a finished search with no win proves the problem unwinnable), and otherwise by
the swarm planner, and for the few problems neither wins by one longer search.

Searching takes minutes, so the proofs are recorded once: the default test run
replays them (`check_win`: every action valid under the mask, no episode end
before the last one, the last a win, the value kept, within the budget), and the
slow job (`pytest -m slow`) searches again and checks that it finds the same
proofs. After a change that changes the problems or the wins (a generator, the
rules, the scoring), write the file again and review its diff:

    python tests/winnability.py           # search every problem, rewrite the file
    python tests/winnability.py -j 1      # the same on one process
"""

import argparse
import json
import multiprocessing
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any, Dict, Hashable, Iterator, List, Optional, Sequence, Tuple, Type, Union

if __name__ == "__main__":  # run as a script: import helpers as pytest does
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from mathy_core import (
    AddExpression,
    ConstantExpression,
    ExpressionParser,
    MathExpression,
    MultiplyExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)

from mathy_envs.env import MathyEnv
from mathy_envs.envs import ENV_TASKS
from mathy_envs._engine.parse_cache import parse
from mathy_envs.state import MathyEnvState
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs._engine.terms import sum_terms, term_kind
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import ActionType, MathyEnvDifficulty, MathyEnvProblemArgs

from search import guided_win

RECORD = Path(__file__).resolve().parent / "data" / "winnability.json"
"""The recorded proofs."""
RECORD_COMMAND = "python tests/winnability.py"
"""What rewrites `RECORD` (said in every failure that asks for it)."""

PROBLEMS = 100
"""Problems checked per env and difficulty: those of seeds 0 to PROBLEMS - 1."""
CHUNKS = 5
"""Test cases each env and difficulty is split into in the slow job (for
pytest-xdist)."""
SEARCH_CAP = 5000
"""Distinct texts the exhaustive search may visit before the swarm takes over."""
LAST_SEARCH_CAP = 60_000
"""Distinct texts of the last, longer search, for the few problems that need
deep searches (long products with many coefficients to pass along)."""
SWARM_CONFIGS = (
    SwarmConfig(n_walkers=64, max_iters=200, seed=0),
    SwarmConfig(n_walkers=128, max_iters=400, seed=1),
)
"""Swarm runs tried in turn when the search is too big."""

Case = Tuple[str, MathyEnvDifficulty]
"""A task (its `ENV_TASKS` name) and a difficulty."""
Problem = Tuple[int, MathyEnvState]
"""A seed and the start state it generates."""


def cases() -> List[Case]:
    """Every env and difficulty, in a fixed order."""
    return [(task, difficulty) for task in ENV_TASKS for difficulty in MathyEnvDifficulty]


def case_id(case: Case) -> str:
    task, difficulty = case
    return f"{task}-{difficulty.value}"


def generated(
    env_class: Type[MathyEnv], difficulty: MathyEnvDifficulty, seeds: Sequence[int]
) -> List[Problem]:
    """The start states the env's generator draws for `seeds`."""
    env = env_class()
    states = []
    for seed in seeds:
        state, _ = env.get_initial_state(
            MathyEnvProblemArgs(difficulty), print_problem=False, seed=seed
        )
        states.append((seed, state))
    return states


def chunk_seeds(chunk: int) -> range:
    per_chunk = PROBLEMS // CHUNKS
    return range(chunk * per_chunk, (chunk + 1) * per_chunk)


# -- the search ---------------------------------------------------------------------


def disorder(expression: Union[str, MathExpression]) -> int:
    """How far an expression (or a text) looks from simplified, to order the
    search (any number would do; a good one only makes wins come sooner).

    For every kind of term of the sum, the terms of other kinds between its
    first and last one; and for every term, what `term_disorder` counts."""
    tree = parse(expression).tree if isinstance(expression, str) else expression
    kinds = []
    total = 0
    for term in sum_terms(tree):
        kind, count = term_disorder(term)
        kinds.append(kind)
        total += count
    return total + spread(kinds)


def spread(kinds: Sequence[Hashable]) -> int:
    """For every kind, the items of other kinds between its first and last one."""
    total = 0
    for kind in set(kinds):
        places = [index for index, other in enumerate(kinds) if other == kind]
        total += places[-1] - places[0] + 1 - len(places)
    return total


_TERM_DISORDER: Dict[str, Tuple[Hashable, int]] = {}
"""`term_disorder` by the term's text (the same terms recur in most texts of a
search)."""


def term_disorder(term: MathExpression) -> Tuple[Hashable, int]:
    """The term's kind (`term_kind`; a term that is not a simple term is a kind of
    its own, named by its text) and its disorder: its repeated variables, its
    constants beyond the first (leaving out exponents and the constants of a
    sum such as the factored `(3 + 11) * x`, which a single move adds up), and
    for every product in it with a factor that is a sum holding a variable, the
    terms of that sum (each still to be multiplied out, as in
    `(x + 2)(x + 3)`)."""
    key = str(term)
    known = _TERM_DISORDER.get(key)
    if known is not None:
        return known
    # Read from the term's text, so the answer depends on the text alone (not on
    # the shape of the tree it came from) and the search on nothing else.
    term = ExpressionParser().parse(key)
    kind = term_kind(term)
    if isinstance(kind, tuple) and kind[:1] == ("not-a-term",):
        kind = ("not-a-term", key)
    constants = [
        constant
        for constant in term.find_type(ConstantExpression)
        if not isinstance(constant.parent, (AddExpression, PowerExpression))
    ]
    names = [str(variable.identifier) for variable in term.find_type(VariableExpression)]
    count = max(0, len(constants) - 1) + len(names) - len(set(names))
    for product in term.find_type(MultiplyExpression):
        for factor in (product.left, product.right):
            if isinstance(factor, (AddExpression, SubtractExpression)) and factor.find_type(
                VariableExpression
            ):
                count += len(sum_terms(factor))
    if len(_TERM_DISORDER) >= 100_000:
        _TERM_DISORDER.clear()
    _TERM_DISORDER[key] = (kind, count)
    return kind, count


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


def find_win(
    env: MathyEnv,
    state: MathyEnvState,
    search_cap: int = SEARCH_CAP,
    last_search_cap: int = LAST_SEARCH_CAP,
) -> Tuple[Optional[List[ActionType]], str]:
    """The actions of a win from `state` within `state.max_moves` and an empty
    text, or None and why no win could be proven."""
    search = guided_win(env, state, disorder, search_cap)
    if search.won:
        assert replay_wins(env, state, search.actions)
        return search.actions, ""
    if search.unwinnable:
        return None, f"no sequence of moves wins (exhaustive search, {search.texts} texts)"
    for config in SWARM_CONFIGS:
        solution = swarm_solve(state, config, env)
        if solution.solved:
            assert len(solution.actions) <= state.max_moves
            assert replay_wins(env, state, solution.actions)
            return [(int(rule), int(node)) for rule, node in solution.actions], ""
    if last_search_cap > search_cap:
        search = guided_win(env, state, disorder, last_search_cap)
        if search.won:
            assert replay_wins(env, state, search.actions)
            return search.actions, ""
        if search.unwinnable:
            return None, f"no sequence of moves wins (exhaustive search, {search.texts} texts)"
    return None, (
        f"search too big (> {max(search_cap, last_search_cap)} texts) and the "
        f"swarm found no win in {len(SWARM_CONFIGS)} runs"
    )


def unwinnable_reason(
    env: MathyEnv,
    state: MathyEnvState,
    search_cap: int = SEARCH_CAP,
    last_search_cap: int = LAST_SEARCH_CAP,
) -> Optional[str]:
    """None when a replayed win within `state.max_moves` proves the state winnable,
    else why it could not be proven."""
    actions, reason = find_win(env, state, search_cap, last_search_cap)
    return None if actions is not None else reason


def assert_winnable(
    env: MathyEnv, problems: Sequence[Problem], label: str
) -> List[List[ActionType]]:
    """A win of each problem, found by `find_win`; fails naming every problem
    without one."""
    wins: List[List[ActionType]] = []
    failures = []
    for seed, state in problems:
        actions, reason = find_win(env, state)
        if actions is None:
            failures.append(f"seed {seed}: {state.agent.problem!r} ({reason})")
        else:
            wins.append(actions)
    assert not failures, f"{label}: unwinnable problems:\n" + "\n".join(failures)
    return wins


# -- the check of a recorded win ----------------------------------------------------


def check_win(env: MathyEnv, state: MathyEnvState, actions: Sequence[ActionType]) -> Optional[str]:
    """None when `actions` played from the start state `state` win: every action
    is valid under the state's mask, none but the last ends the episode, the last
    is a win (a terminal transition with a positive reward, and the env calls the
    state it reaches terminal), the expression keeps its value
    (`env.finalize_state`) and there are at most `state.max_moves` of them; else
    what is wrong."""
    if not actions:
        return "no actions"
    if len(actions) > state.max_moves:
        return f"{len(actions)} actions, more than the {state.max_moves} moves allowed"
    for index, action in enumerate(actions):
        rule, node = action
        mask = env.valid_moves_array(state)
        if not (0 <= rule < mask.shape[0] and 0 <= node < mask.shape[1] and mask[rule, node]):
            return f"action {index} {action} is not valid in {state.agent.problem!r}"
        state, time_step, _ = env.get_next_state(state, action)
        if is_terminal_transition(time_step):
            if index != len(actions) - 1:
                return f"the episode ends at action {index} of {len(actions)}"
            if not time_step.reward > 0:
                return f"the episode ends in a loss (reward {time_step.reward})"
            if not env.is_terminal_state(state):
                return f"the env does not call the last state {state.agent.problem!r} terminal"
            try:
                env.finalize_state(state)
            except ValueError as error:
                return f"the value changed: {error}"
            return None
    return f"no win after the last action (at {state.agent.problem!r})"


# -- the record ---------------------------------------------------------------------


def inputs() -> Dict[str, Any]:
    """What the recorded proofs depend on: the library versions, the problems and
    the search's settings."""
    return {
        "mathy_envs": version("mathy_envs"),
        "mathy_core": version("mathy_core"),
        "numpy": version("numpy"),
        "problems": f"seeds 0 to {PROBLEMS - 1} of each task and difficulty",
        "search": {
            "search_cap": SEARCH_CAP,
            "last_search_cap": LAST_SEARCH_CAP,
            "swarm": [
                {"n_walkers": c.n_walkers, "max_iters": c.max_iters, "seed": c.seed}
                for c in SWARM_CONFIGS
            ],
        },
    }


Entry = Tuple[str, int, List[ActionType]]
"""A recorded problem: its text, its move budget and the actions of its win."""


def encode_actions(actions: Sequence[ActionType]) -> str:
    """`[(3, 5), (0, 12)]` -> `"3:5 0:12"`."""
    return " ".join(f"{rule}:{node}" for rule, node in actions)


def decode_actions(text: str) -> List[ActionType]:
    return [(int(rule), int(node)) for rule, node in (a.split(":") for a in text.split())]


def load_record(path: Path = RECORD) -> Tuple[Dict[str, Any], Dict[str, List[Entry]]]:
    """The recorded inputs and, by `case_id`, the problems in seed order."""
    if not path.exists():
        raise AssertionError(f"{path} is missing: write it with `{RECORD_COMMAND}`")
    data = json.loads(path.read_text())
    wins = {
        key: [(text, int(moves), decode_actions(actions)) for text, moves, actions in entries]
        for key, entries in data["wins"].items()
    }
    return data["inputs"], wins


def dump_record(wins: Dict[str, List[Entry]]) -> str:
    """The record as text: sorted keys, one problem a line, so the same proofs
    always give the same bytes and a diff shows the problems that changed."""
    lines = [
        "{",
        '"about": '
        + json.dumps(
            "Winning actions (rule:node) of the generated problems, by env and "
            f"difficulty, in seed order; written by `{RECORD_COMMAND}`"
        )
        + ",",
        '"inputs": ' + json.dumps(inputs(), sort_keys=True) + ",",
        '"wins": {',
    ]
    keys = sorted(wins)
    for k, key in enumerate(keys):
        lines.append(json.dumps(key) + ": [")
        entries = wins[key]
        for i, (text, moves, actions) in enumerate(entries):
            comma = "," if i < len(entries) - 1 else ""
            lines.append(json.dumps([text, moves, encode_actions(actions)]) + comma)
        lines.append("]" + ("," if k < len(keys) - 1 else ""))
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def mismatches(problems: Sequence[Problem], recorded: Sequence[Entry]) -> List[str]:
    """Where the generated problems differ from the recorded ones."""
    found = []
    if len(recorded) != len(problems):
        found.append(f"{len(recorded)} problems recorded, {len(problems)} generated")
    for (seed, state), (text, moves, _) in zip(problems, recorded):
        if (state.agent.problem, state.max_moves) != (text, moves):
            found.append(
                f"seed {seed}: generated {state.agent.problem!r} ({state.max_moves} moves),"
                f" recorded {text!r} ({moves} moves)"
            )
    return found


def _search_case(case: Tuple[str, str, int]) -> Tuple[str, int, List[Entry], float]:
    task, difficulty_value, chunk = case
    difficulty = MathyEnvDifficulty(difficulty_value)
    start = time.perf_counter()
    env_class = ENV_TASKS[task]
    problems = generated(env_class, difficulty, chunk_seeds(chunk))
    label = f"{task} {difficulty.value}"
    wins = assert_winnable(env_class(), problems, label)
    entries = [
        (state.agent.problem, state.max_moves, actions)
        for (_, state), actions in zip(problems, wins)
    ]
    return f"{task}-{difficulty.value}", chunk, entries, time.perf_counter() - start


def record(processes: int, path: Path = RECORD) -> None:
    """Search every problem (on `processes` processes) and write `path`."""
    jobs = [
        (task, difficulty.value, chunk)
        for task, difficulty in cases()
        for chunk in range(CHUNKS)
    ]
    chunks: Dict[str, Dict[int, List[Entry]]] = {}

    def results() -> Iterator[Tuple[str, int, List[Entry], float]]:
        if processes == 1:
            yield from map(_search_case, jobs)
            return
        with multiprocessing.Pool(processes) as pool:
            yield from pool.imap_unordered(_search_case, jobs)

    start = time.perf_counter()
    for key, chunk, entries, seconds in results():
        chunks.setdefault(key, {})[chunk] = entries
        print(f"{key} chunk {chunk}: {seconds:.1f}s", flush=True)
    wins = {
        key: [entry for chunk in sorted(parts) for entry in parts[chunk]]
        for key, parts in chunks.items()
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_record(wins))
    print(f"wrote {path} in {time.perf_counter() - start:.0f}s")


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-j", "--processes", type=int, default=multiprocessing.cpu_count(),
        help="processes to search on (default: one per core)",
    )
    args = parser.parse_args(argv)
    record(args.processes)


if __name__ == "__main__":
    main()
