"""The two cores give the same episodes, step by step, bit for bit.

An env whose parser the native core does not read as its own (here a subclass of
mathy_core's `ExpressionParser`) runs every step on the pure-Python core: mathy_core's
trees, masks, rewrites and goal checks; its problem generator is made to judge its
candidates on that parser's entries too. The same env with the library's parser
runs on the core in use (the native one where it is built; with
`MATHY_ENVS_CORE=python` both run on mathy_core and this only checks that two
parsers agree). Both play the same
seeded problems with the same actions, valid and invalid; every problem, mask, next
state, change, reward, discount, step type, time-step observation, verdict and
observation array of every registered type must be the same, arrays to the byte.
"""

import random
from contextlib import contextmanager
from typing import Any, Iterator, List, Optional, Tuple
from unittest import mock

import numpy as np
import pytest
from helpers import ENV_DIFFICULTY_CASES, MathyCoreParser, snapshot
from mathy_core import ExpressionParser

from mathy_envs import MathyEnv, MathyEnvState, problems
from mathy_envs.caches import expression_cache
from mathy_envs.expressions import ParsedExpression
from mathy_envs.envs import ENV_TASKS
from mathy_envs.native import CORE
from mathy_envs.observations.registry import observation_types
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs


@contextmanager
def mathy_core_generation(parser: ExpressionParser) -> Iterator[List[ParsedExpression]]:
    """While open, the problem generators judge their candidate texts on the
    entries of `parser`'s cache (mathy_core's, for a `MathyCoreParser`) instead of
    the default parser's; yields the entries they were given."""
    given: List[ParsedExpression] = []

    def parse(text: str, _: Optional[ExpressionParser] = None) -> ParsedExpression:
        entry = expression_cache(parser).parse(text)
        given.append(entry)
        return entry

    with mock.patch.object(problems, "parse", parse):
        yield given


def assert_identical(mine: Any, theirs: Any, where: str) -> None:
    """Equal values of equal types; arrays of one dtype and shape, byte for byte
    (so -0.0 and 0.0, or two NaNs of different bits, are told apart)."""
    assert type(mine) is type(theirs), (where, type(mine), type(theirs))
    if isinstance(mine, np.ndarray):
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, where
        assert mine.tobytes() == theirs.tobytes(), where
    elif isinstance(mine, (tuple, list)):
        assert len(mine) == len(theirs), where
        for index, (a, b) in enumerate(zip(mine, theirs)):
            assert_identical(a, b, f"{where}[{index}]")
    elif isinstance(mine, float):
        assert np.float64(mine).tobytes() == np.float64(theirs).tobytes(), where
    else:
        assert mine == theirs, where


def assert_same_state(
    envs: Tuple[MathyEnv, MathyEnv], states: Tuple[MathyEnvState, MathyEnvState], where: str
) -> None:
    native_env, python_env = envs
    mine, theirs = states
    assert snapshot(mine) == snapshot(theirs), where
    assert_identical(mine.to_np(), theirs.to_np(), f"{where}: state")
    assert_identical(
        native_env.valid_moves_array(mine), python_env.valid_moves_array(theirs), f"{where}: mask"
    )
    # The text of every valid move (the native core's `apply_mask`) and the
    # moves offered against revisits.
    assert native_env.move_results(mine) == python_env.move_results(theirs), f"{where}: results"
    assert_identical(
        native_env.least_visited_moves_array(mine),
        python_env.least_visited_moves_array(theirs),
        f"{where}: offered moves",
    )
    for kind in observation_types():
        assert_identical(
            native_env.state_to_observation(mine, obs_type=kind),
            python_env.state_to_observation(theirs, obs_type=kind),
            f"{where}: {kind} observation",
        )
    assert_identical(
        native_env.state_to_observation(mine),
        python_env.state_to_observation(theirs),
        f"{where}: MathyObservation",
    )


def play_both(task: str, difficulty: MathyEnvDifficulty, episodes: int, seed: int) -> int:
    """Play `episodes` seeded episodes of `task` on both cores; the steps taken."""
    made: List[MathyEnv] = []
    for parser in (None, MathyCoreParser()):
        env = ENV_TASKS[task](seed=seed, invalid_action_response="penalize")
        if parser is not None:
            env.parser = parser
        made.append(env)
    native_env, python_env = made
    pair = (native_env, python_env)
    rng = random.Random(seed)
    steps = 0
    for episode in range(episodes):
        args = MathyEnvProblemArgs(difficulty)
        mine, problem = native_env.get_initial_state(args, print_problem=False)
        with mathy_core_generation(python_env.parser) as generated:
            theirs, their_problem = python_env.get_initial_state(args, print_problem=False)
        assert generated and not any(entry.native for entry in generated)
        assert problem == their_problem
        text = mine.agent.problem
        # Each env really runs on the core it is meant to.
        assert python_env._expressions.parse(text).native is None
        assert (native_env._expressions.parse(text).native is not None) == (CORE == "native")
        assert_same_state(pair, (mine, theirs), f"{task} {problem.text}")
        for move in range(mine.max_moves):
            mask = native_env.valid_moves_array(mine)
            valid = np.argwhere(mask)
            if len(valid) == 0:
                break
            if move % 7 == 6:  # now and then an invalid action
                action = (rng.randrange(-1, mask.shape[0] + 1), rng.randrange(-1, mask.shape[1] + 2))
            else:
                rule, node = valid[rng.randrange(len(valid))]
                action = (int(rule), int(node))
            where = f"{task} episode {episode} step {move} {mine.agent.problem!r} {action}"
            mine, step, change = native_env.get_next_state(mine, action)
            theirs, their_step, their_change = python_env.get_next_state(theirs, action)
            steps += 1
            assert_identical(tuple(step), tuple(their_step), f"{where}: time step")
            assert change.rule is not None and their_change.rule is not None
            assert type(change.rule) is type(their_change.rule), where
            assert (change.result is None) == (their_change.result is None), where
            if change.result is not None and their_change.result is not None:
                assert str(change.result.get_root()) == str(their_change.result.get_root())
            assert_same_state(pair, (mine, theirs), where)
            if is_terminal_transition(step):
                break
        native_env.finalize_state(mine)
        python_env.finalize_state(theirs)
    return steps


CASES = ENV_DIFFICULTY_CASES


@pytest.mark.parametrize("task,difficulty", CASES)
def test_both_cores_play_the_same_episodes(task: str, difficulty: MathyEnvDifficulty) -> None:
    # Every episode takes at least one step (a generated problem is never won).
    assert play_both(task, difficulty, episodes=3, seed=11) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("task,difficulty", CASES)
def test_both_cores_play_the_same_longer_runs(task: str, difficulty: MathyEnvDifficulty) -> None:
    assert play_both(task, difficulty, episodes=12, seed=101) >= 12


def generate_both(task: str, difficulty: MathyEnvDifficulty, count: int, seed: int) -> int:
    """Draw `count` seeded problems of `task` judged on both cores; the number of
    candidates the generators rejected on the way."""
    native_env = ENV_TASKS[task](seed=seed)
    python_env = ENV_TASKS[task](seed=seed)
    python_env.parser = MathyCoreParser()
    args = MathyEnvProblemArgs(difficulty)
    rejected = 0
    for index in range(count):
        mine = native_env.generate_problem(args)
        with mathy_core_generation(python_env.parser) as generated:
            theirs = python_env.generate_problem(args)
        assert mine == theirs, (task, difficulty, index)
        rejected += len(generated) - 1
    return rejected


@pytest.mark.parametrize("task,difficulty", CASES)
def test_both_cores_generate_the_same_problems(task: str, difficulty: MathyEnvDifficulty) -> None:
    generate_both(task, difficulty, count=40, seed=5)


@pytest.mark.slow
def test_both_cores_reject_the_same_candidates_over_many_problems() -> None:
    rejected = sum(
        generate_both(task, difficulty, count=300, seed=6)
        for task in ENV_TASKS
        for difficulty in MathyEnvDifficulty
    )
    # Rejections are rare: the sample is large enough to meet some.
    assert rejected >= 20, rejected
