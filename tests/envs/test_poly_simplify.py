"""PolySimplify: wins, budgets, generated problems, seeding, and
its generator `simplify_terms` (in `mathy_envs/envs/poly_simplify.py`)."""

import json
from typing import Any, List

import numpy as np
import pytest
from mathy_core import get_terms, has_like_terms
from mathy_core.rules import ConstantsSimplifyRule, DistributiveFactorOutRule
from oracles import like_pairs
from oracles import simplified as simplified_tree

from mathy_envs import MathyEnv
from mathy_envs.envs import MATHY_BUILTIN_ENVS, PolySimplify
from mathy_envs.envs.poly_simplify import simplify_terms
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import (
    EnvRewards,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)

from helpers import is_last, is_mid, run_python
from oracles import parse, simplified

NAMESPACE = "mathy.polynomials.simplify"
TERM_RANGES = {
    MathyEnvDifficulty.easy: (2, 5),
    MathyEnvDifficulty.normal: (4, 7),
    MathyEnvDifficulty.hard: (4, 9),
}


def test_namespace_and_registration() -> None:
    env = PolySimplify()
    assert env.get_env_namespace() == NAMESPACE
    assert PolySimplify in MATHY_BUILTIN_ENVS
    state, problem = env.get_initial_state()
    assert problem.type == NAMESPACE
    assert state.agent.problem_type == NAMESPACE


def test_keeps_default_rules_and_accepts_env_kwargs() -> None:
    env = PolySimplify(max_seq_len=64, invalid_action_response="penalize", seed=3)
    assert env.max_seq_len == 64
    assert env.invalid_action_response == "penalize"
    assert [type(r) for r in env.rules] == [type(r) for r in MathyEnv.core_rules()]
    assert env.ops == ["+"]
    assert PolySimplify(["+", "-"]).ops == ["+", "-"]


@pytest.mark.parametrize("text", ["4x + 2y", "4x", "x + y", "4x^2 + 3x + 7", "12"])
def test_simplified_states_win(text: str) -> None:
    assert simplified(parse(text))
    env = PolySimplify()
    start = env.state_from_text(text, max_moves=10)
    step = env.get_state_transition(start)
    assert is_last(step)
    assert step.reward == env.get_win_signal(start) == 2.0  # no moves used yet
    assert step.discount == 0.0
    later = start.get_out_state(text, (1, 0), 3)
    step = env.get_state_transition(later)
    assert is_last(step)
    assert step.reward == pytest.approx(1.0 + 1.0 / 7.0)
    assert step.reward == env.get_win_signal(later)
    assert env.is_terminal_state(later)


@pytest.mark.parametrize(
    "text", ["4x + 2x", "2 * 4x + y", "x + x", "4x + 2y + 3x", "x * 4 + y", "(2 + 3) * x"]
)
def test_unsimplified_states_do_not_win(text: str) -> None:
    assert not simplified(parse(text))
    env = PolySimplify()
    step = env.get_state_transition(env.state_from_text(text))
    assert is_mid(step)
    assert step.reward < 1.0
    assert not env.is_terminal_state(env.state_from_text(text))


def only_column(text: str, rule_index: int) -> int:
    env = PolySimplify()
    row = env.get_valid_moves(env.state_from_text(text))[rule_index]
    assert row.count(1) == 1
    return row.index(1)


def test_real_play_win() -> None:
    env = PolySimplify()
    factor = [type(r) for r in env.rules].index(DistributiveFactorOutRule)
    constants = [type(r) for r in env.rules].index(ConstantsSimplifyRule)
    state = env.state_from_text("4x + 2x + y", max_moves=12)
    state, step, _ = env.get_next_state(state, (factor, only_column("4x + 2x + y", factor)))
    assert state.agent.problem == "(4 + 2) * x + y"
    assert is_mid(step) and step.reward == EnvRewards.HELPFUL_MOVE
    column = only_column(state.agent.problem, constants)
    state, step, _ = env.get_next_state(state, (constants, column))
    assert state.agent.problem == "6x + y"
    assert is_last(step)
    # t = 12 > 10 and c = 2 < 6: bonus doubled, 1 + 2/2 = 2.0
    assert step.reward == pytest.approx(2.0)
    assert step.reward == env.get_win_signal(state)


def test_max_moves_is_four_times_complexity() -> None:
    env = PolySimplify(seed=2)
    for complexity in (2, 5, 9):
        problem = MathyEnvProblem("4x + 2x", complexity, NAMESPACE)
        assert env.max_moves_fn(problem, MathyEnvProblemArgs()) == complexity * 4
    for difficulty in MathyEnvDifficulty:
        for _ in range(10):
            state, problem = env.get_initial_state(MathyEnvProblemArgs(difficulty))
            assert state.max_moves == problem.complexity * 4
            assert state.agent.moves_remaining == problem.complexity * 4


@pytest.mark.parametrize("difficulty", list(MathyEnvDifficulty))
def test_term_counts_per_difficulty(difficulty: MathyEnvDifficulty) -> None:
    low, high = TERM_RANGES[difficulty]
    env = PolySimplify(seed=17)
    counts = set()
    for _ in range(200):
        state, problem = env.get_initial_state(MathyEnvProblemArgs(difficulty))
        terms = len(get_terms(parse(problem.text)))
        assert low <= terms <= high, problem
        assert problem.complexity == terms, problem
        assert problem.type == NAMESPACE
        assert "-" not in problem.text  # default ops are ["+"]
        counts.add(terms)
    # over 200 problems every count in the range shows up
    assert counts == set(range(low, high + 1))


@pytest.mark.parametrize("difficulty", list(MathyEnvDifficulty))
def test_generated_problems_are_never_won_at_the_first_step(
    difficulty: MathyEnvDifficulty,
) -> None:
    env = PolySimplify(seed=23)
    for _ in range(200):
        state, problem = env.get_initial_state(MathyEnvProblemArgs(difficulty))
        assert not simplified(parse(problem.text)), problem
        assert has_like_terms(parse(problem.text)), problem
        step = env.get_state_transition(state)
        assert not is_terminal_transition(step), problem
        assert env.get_agent_actions_count(state) > 0


def test_generated_problems_vary() -> None:
    env = PolySimplify(seed=8)
    texts = [env.get_initial_state()[1].text for _ in range(100)]
    assert len(set(texts)) > 80
    assert any("(" in text for text in texts)  # sometimes parenthesized


SUBPROCESS_CODE = """
import json
from mathy_envs.envs import PolySimplify
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs
env = PolySimplify(seed=7)
texts = [env.get_initial_state()[1].text for _ in range(20)]
hard = PolySimplify(seed=7)
args = MathyEnvProblemArgs(MathyEnvDifficulty.hard)
texts += [hard.get_initial_state(args)[1].text for _ in range(20)]
print(json.dumps(texts))
"""


def in_process_texts() -> List[str]:
    env = PolySimplify(seed=7)
    texts = [env.get_initial_state()[1].text for _ in range(20)]
    hard = PolySimplify(seed=7)
    args = MathyEnvProblemArgs(MathyEnvDifficulty.hard)
    texts += [hard.get_initial_state(args)[1].text for _ in range(20)]
    return texts


@pytest.mark.parametrize("hash_seed", ["0", "12345"])
def test_problems_reproducible_across_processes(hash_seed: str) -> None:
    result = run_python("-c", SUBPROCESS_CODE, hash_seed=hash_seed)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == in_process_texts()


def test_problems_reproducible_in_process() -> None:
    assert in_process_texts() == in_process_texts()
    env = PolySimplify()
    first = env.get_initial_state(seed=7)[1].text
    assert first == in_process_texts()[0]


def test_ops_with_subtraction() -> None:
    env = PolySimplify(ops=["+", "-"], seed=5)
    texts = [env.get_initial_state()[1].text for _ in range(60)]
    assert any(" - " in text for text in texts)
    assert any(" + " in text for text in texts)
    for text in texts:
        # still a well-formed, unsimplified sum of terms
        assert not simplified(parse(text))
    minus_only = PolySimplify(ops=["-"], seed=5)
    for _ in range(20):
        text = minus_only.get_initial_state()[1].text
        assert " + " not in text
        assert " - " in text


def test_seeded_random_agent_wins_some_easy_episodes() -> None:
    env = PolySimplify(seed=0)
    rng = np.random.default_rng(0)
    wins = 0
    episodes = 30
    for _ in range(episodes):
        state, _ = env.get_initial_state()
        while True:
            mask = np.asarray(env.get_valid_moves(state))
            rules, nodes = np.nonzero(mask)
            choice = int(rng.integers(len(rules)))
            state, step, _ = env.get_next_state(
                state, (int(rules[choice]), int(nodes[choice]))
            )
            if is_terminal_transition(step):
                break
        if simplified(parse(state.agent.problem)):
            wins += 1
            assert step.reward == env.get_win_signal(state)
            assert step.reward > 1.0
        else:
            assert step.reward == EnvRewards.LOSE
        env.finalize_state(state)
    assert wins >= 3


def test_env_random_action_agent_is_reproducible() -> None:
    def play(seed: int) -> List[Any]:
        env = PolySimplify(seed=seed)
        log: List[Any] = []
        for _ in range(5):
            state, _ = env.get_initial_state()
            while True:
                action = env.random_action(parse(state.agent.problem))
                state, step, _ = env.get_next_state(state, action)
                log.append((tuple(action), state.agent.problem, step.reward))
                if is_terminal_transition(step):
                    break
        return log

    assert play(3) == play(3)


# -- the generator, simplify_terms (mathy_envs/envs/poly_simplify.py) ------------------
# Expectations from mathy_core (`oracles`): `simplified_tree` is the documented
# "simplified" of a tree, like `simplified` above is of a text.

SAMPLES = 40


@pytest.mark.parametrize("num_terms", range(2, 10))
def test_simplify_terms(num_terms: int) -> None:
    rng = np.random.default_rng(num_terms)
    for _ in range(SAMPLES):
        text, complexity = simplify_terms(rng, num_terms)
        tree = parse(text)
        terms = get_terms(tree)
        assert complexity == len(terms) == num_terms, text
        assert like_pairs(terms), text
        assert not simplified_tree(tree), text
        assert " - " not in text


def test_simplify_terms_ops_and_shapes() -> None:
    rng = np.random.default_rng(1)
    plus_minus = [simplify_terms(rng, 6, ops=("+", "-")).text for _ in range(60)]
    assert any(" - " in text for text in plus_minus)
    assert any(" + " in text for text in plus_minus)
    minus = [simplify_terms(rng, 4, ops=("-",)).text for _ in range(30)]
    assert all(" + " not in text and " - " in text for text in minus)
    for text in plus_minus + minus:
        assert not simplified_tree(parse(text)), text
    texts = [simplify_terms(rng, 7).text for _ in range(100)]
    assert any("(" in text for text in texts)  # sometimes parenthesized
    never = [
        simplify_terms(rng, 7, parenthesize_probability=0.0).text for _ in range(40)
    ]
    assert not any("(" in text for text in never)
