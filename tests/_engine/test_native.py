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
from typing import Any, Dict, Iterator, List, Optional, Tuple
from unittest import mock

import numpy as np
import pytest
from helpers import ENV_DIFFICULTY_CASES, MathyCoreParser, run_python, snapshot
from mathy_core import ExpressionParser

from mathy_envs import MathyEnv, MathyEnvState, problems
from mathy_envs._engine.parse_cache import expression_cache
from mathy_envs._engine.expressions import ParsedExpression
from mathy_envs.envs import ENV_TASKS
from mathy_envs._engine.native import CORE
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


# -- the native entry points check what they are given --------------------------------
#
# Every function of `mathy_envs._native` that takes a buffer, a size, an index, a
# count or a container checks it and raises ValueError, having written nothing,
# where it is out of range: none reads or writes past what it was given.


def native_expression(text: str = "4x + 2x") -> Tuple[Any, Any]:
    """`mathy_envs._native` and its parse of `text` (the test is skipped where the
    native core is not built). `4x + 2x` has two valid moves: commutative swap and
    distributive factor out at its `+`."""
    native = pytest.importorskip("mathy_envs._native", reason="the native core is not built")
    expression = native.Expression.parse(text)
    assert expression is not None
    return native, expression


def valid_moves(native: Any, expression: Any, length: int) -> np.ndarray:
    """The expression's valid-move grid as a batch holds it: `(rules, length)` int8,
    zero past its nodes (a `StepBatch` mask row, reshaped)."""
    count = len(expression)
    grid = np.zeros((native.CORE_RULES, length), np.int8)
    grid[:, :count] = np.frombuffer(expression.mask(False), np.int8).reshape(-1, count)
    return grid


def flat_rows(native: Any, length: int, fill: float = 0.25) -> Tuple[np.ndarray, np.ndarray]:
    """The rows `write_flat` and `step_flat` write (a batch's row from index 3 on and
    its mask row), filled with markers."""
    rules = native.CORE_RULES
    row = np.full(3 + 2 * length + rules * length, fill, np.float32)
    return row, np.full(rules * length, 3, np.int8)


def test_offer_checks_its_length_and_buffers() -> None:
    native, expression = native_expression()
    count = len(expression)
    length = count + 2
    grid = valid_moves(native, expression, length)
    valid = grid.reshape(-1)
    moves = expression.apply_mask(grid[:, :count])
    assert len(moves) >= 2
    # The move of the highest rule leads to a text visited more than the others'.
    rule, node, text = max(moves)
    visits = {text: 3}

    # A valid call, as the batch makes it: the offered cells are the valid ones
    # (whatever they held), less that move's, in both rows.
    offered = np.full(valid.shape, 9, np.int8)
    values = valid.astype(np.float32)
    assert expression.offer(valid, visits, offered, values, length)
    wanted = valid.copy()
    wanted[rule * length + node] = 0
    assert offered.tobytes() == wanted.tobytes()
    assert values.tobytes() == wanted.astype(np.float32).tobytes()
    # With no more visited result, every valid move is offered.
    assert expression.offer(valid, {}, offered, values, length)
    assert offered.tobytes() == valid.tobytes()

    # Views of 7 cells of bigger arrays, and lengths that do not fit: nothing
    # past the views may change.
    big = np.full(4096, 0x5A, np.int8)
    big_values = np.full(4096, 7.0, np.float32)
    small, small_values = big[:7], big_values[:7]
    roomy, roomy_values = big[7:], big_values[7:]
    before, before_values = big.tobytes(), big_values.tobytes()
    calls = [
        (small, small_values, length),  # both too small
        (roomy, small_values, length),  # the values too small
        (small, roomy_values, length),  # the offered cells too small
        (roomy, roomy_values, -1),  # a negative length
        (roomy, roomy_values, 0),  # no length
        (roomy, roomy_values, length + 1),  # not whole rows of valid
        (roomy, roomy_values, length * native.CORE_RULES // 2 + 1),  # ditto
    ]
    for flags, floats, size in calls:
        with pytest.raises(ValueError, match="offer"):
            expression.offer(valid, visits, flags, floats, size)
        assert big.tobytes() == before and big_values.tobytes() == before_values, size

    def refused(cells: Any, flags: Any, floats: Any, seen: Any = visits, size: int = length) -> None:
        with pytest.raises(ValueError, match="offer"):
            expression.offer(cells, seen, flags, floats, size)
        assert big.tobytes() == before and big_values.tobytes() == before_values

    cells = valid.size
    flags, floats = big[:cells], big_values[:cells]
    # More rows than there are rules.
    taller = np.zeros((native.CORE_RULES + 1, length), np.int8)
    taller[: native.CORE_RULES] = grid
    refused(taller.reshape(-1), big[: cells + length], big_values[: cells + length])
    # Buffers of the wrong kind: read-only, float values that are not float32,
    # valid cells of another shape or item size.
    locked = big[:cells].copy()
    locked.flags.writeable = False
    refused(valid, locked, floats)
    locked_values = big_values[:cells].copy()
    locked_values.flags.writeable = False
    refused(valid, flags, locked_values)
    refused(valid, flags, np.zeros(cells, np.int32))
    refused(grid, flags, floats)
    refused(valid.astype(np.int16), flags, floats)
    # Visits that are not counts of texts.
    refused(valid, flags, floats, {text: "3"})
    refused(valid, flags, floats, {3: 3})
    assert locked.tobytes() == before[:cells]
    assert locked_values.tobytes() == before_values[: 4 * cells]


def test_offer_reads_the_visits_as_they_were_when_called() -> None:
    # A count's conversion (`__index__`) is Python code that may change the dict
    # (here: empty it, freeing its keys) while the offer reads it: the offer
    # reads the items as they were when called.
    native, expression = native_expression()
    count = len(expression)
    grid = valid_moves(native, expression, count)
    valid = grid.reshape(-1)
    rule, node, text = max(expression.apply_mask(grid))
    visits: Dict[Any, Any] = {}

    class Emptying:
        def __index__(self) -> int:
            visits.clear()
            return 1

    visits["".join([text[:2], text[2:]])] = 5  # a key only the dict holds
    visits["no such text"] = Emptying()
    offered = np.zeros_like(valid)
    values = np.zeros(valid.size, np.float32)
    assert expression.offer(valid, visits, offered, values, count)
    wanted = valid.copy()
    wanted[rule * count + node] = 0
    assert offered.tobytes() == wanted.tobytes()
    assert visits == {}


def test_offer_copies_between_overlapping_rows() -> None:
    native, expression = native_expression()
    count = len(expression)
    valid = valid_moves(native, expression, count).reshape(-1)
    cells = valid.size
    shared = np.zeros(cells + 1, np.int8)
    shared[1:] = valid
    values = np.zeros(cells, np.float32)
    # The offered row starts one cell before the valid row, in the same array.
    assert expression.offer(shared[1:], {}, shared[:-1], values, count)
    assert shared[:-1].tobytes() == valid.tobytes()


def test_apply_mask_checks_the_mask_against_the_rules_and_the_tree() -> None:
    native, expression = native_expression()
    count = len(expression)
    mask = valid_moves(native, expression, count)
    rules, nodes = np.nonzero(mask)
    assert expression.apply_mask(mask) == [
        (rule, node, expression.apply(rule, node))
        for rule, node in zip(rules.tolist(), nodes.tolist())
    ]
    for shape, cell in (
        ((native.CORE_RULES + 1, count), (native.CORE_RULES, 0)),  # a rule past the last
        ((native.CORE_RULES, count + 1), (0, count)),  # a node past the tree
    ):
        bigger = np.zeros(shape, np.int8)
        bigger[: native.CORE_RULES, :count] = mask
        bigger[cell] = 1
        with pytest.raises(ValueError, match="apply_mask"):
            expression.apply_mask(bigger)
    for wrong in (mask.reshape(-1), mask.astype(np.int32)):
        with pytest.raises(ValueError, match="apply_mask"):
            expression.apply_mask(wrong)


def test_build_checks_its_classes_and_counter() -> None:
    from mathy_envs._engine.native_parse import KINDS

    native, expression = native_expression()
    root, nodes = expression.build(KINDS, 10)
    assert nodes[root].parent is None and len(nodes) >= len(expression)
    for counter in (-1, 2**63 - len(nodes)):  # ids below 1, or past int64
        with pytest.raises(ValueError, match="counter"):
            expression.build(KINDS, counter)
    for wrong in (KINDS[:-1], (int,) + KINDS[1:]):
        with pytest.raises(ValueError, match="classes"):
            expression.build(wrong, 0)
    # A class object.__new__ can't make (here `type`) used to crash the
    # interpreter: asked in a child process.
    code = (
        "from mathy_envs import _native\n"
        "from mathy_envs._engine.native_parse import KINDS\n"
        "try:\n"
        "    _native.Expression.parse('4x + 2x').build((type,) * len(KINDS), 0)\n"
        "except ValueError as error:\n"
        "    print('ValueError', error)\n"
    )
    child = run_python("-c", code)
    assert child.returncode == 0 and child.stdout.startswith("ValueError"), child


def test_admission_checks_its_limit() -> None:
    from mathy_envs._engine.admission import SAFE_CONSTANT

    native, expression = native_expression("4x + 2x - 40000")
    safe, _, _, _, constants = expression.admission(SAFE_CONSTANT)
    assert not safe and constants == [40000]
    for limit in (-1, -(2**63)):
        with pytest.raises(ValueError, match="admission"):
            expression.admission(limit)


def test_check_moves_checks_its_limits_and_text() -> None:
    from mathy_envs._engine.admission import MOVE_LIMITS
    from mathy_envs.limits import MAX_TEXT_LENGTH

    text = "4x^(1 + 1) + 2x"
    native, expression = native_expression(text)
    verdicts = expression.check_moves(text, False, list(MOVE_LIMITS))
    assert len(verdicts) == native.CORE_RULES * len(expression) and 1 in verdicts
    bad = [list(MOVE_LIMITS)[:-1], list(MOVE_LIMITS) + [1], [0] + list(MOVE_LIMITS)[1:]]
    for limits in bad + [list(MOVE_LIMITS)[:-1] + [10**6]]:
        with pytest.raises(ValueError, match="check_moves"):
            expression.check_moves(text, False, limits)
    # The text the points are seeded with is the expression's, within the limits.
    with pytest.raises(ValueError, match="max_text_length"):
        expression.check_moves(text + " " * MAX_TEXT_LENGTH, False, list(MOVE_LIMITS))
    with pytest.raises(TypeError):
        expression.check_moves(text, None, list(MOVE_LIMITS))


def test_rewrite_values_checks_its_points_and_roots_first() -> None:
    native, expression = native_expression()
    point = [1] * 52
    assert expression.rewrite_values(3, 3, [point], 1, "p") is not None
    # A move that does not apply (or is out of range) gives None, as `apply`
    # does, but only once the points and roots are known good.
    for rule, node in ((3, 3), (0, 0), (native.CORE_RULES, 0), (0, 99)):
        for points, roots in (([point[:3]], 1), ([point], 0), ([point, [1] * 53], 1)):
            with pytest.raises(ValueError, match="rewrite_values"):
                expression.rewrite_values(rule, node, points, roots, "p")
    assert expression.rewrite_values(0, 0, [point], 1, "p") is None


def test_write_flat_checks_its_rows_and_limits() -> None:
    from mathy_envs._engine.admission import SAFE_CONSTANT, SAFE_SIZE
    from mathy_envs._engine.layout import MAX_TYPE_ID

    native, expression = native_expression()
    length = len(expression) + 3
    row, mask = flat_rows(native, length)
    assert expression.write_flat(False, SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID, row, mask) is False
    written = row.tobytes(), mask.tobytes()
    assert mask.tobytes() == valid_moves(native, expression, length).tobytes()

    def refused(*args: Any) -> None:
        row, mask = flat_rows(native, length)
        unwritten = row.tobytes(), mask.tobytes()
        with pytest.raises(ValueError, match="write_flat"):
            expression.write_flat(False, *args[:3], *(args[3:] or (row, mask)))
        assert (row.tobytes(), mask.tobytes()) == unwritten

    refused(-1, SAFE_SIZE, MAX_TYPE_ID)
    refused(SAFE_CONSTANT, -1, MAX_TYPE_ID)
    refused(SAFE_CONSTANT, SAFE_SIZE, 0)
    refused(SAFE_CONSTANT, SAFE_SIZE, -5)
    row, mask = flat_rows(native, length)
    locked, locked_mask = row.copy(), mask.copy()
    locked.flags.writeable = locked_mask.flags.writeable = False
    refused(SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID, locked, mask)
    refused(SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID, row, locked_mask)
    assert row.tobytes() == flat_rows(native, length)[0].tobytes()
    refused(SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID, row[:-1], mask)
    refused(SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID, row, mask[:-1])
    # The valid call again writes what it wrote.
    row, mask = flat_rows(native, length)
    expression.write_flat(False, SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID, row, mask)
    assert (row.tobytes(), mask.tobytes()) == written


def test_step_flat_checks_its_rows_and_limits_before_the_move() -> None:
    from mathy_envs._engine.admission import SAFE_CONSTANT, SAFE_SIZE
    from mathy_envs._engine.layout import MAX_TYPE_ID

    native, expression = native_expression()
    length = len(expression) + 3
    limits = (SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID)
    row, mask = flat_rows(native, length)
    made = expression.step_flat(3, 3, False, *limits, row, mask)
    assert made is not None and made[1] == expression.apply(3, 3)
    # A move that does not apply gives None, writing nothing.
    row, mask = flat_rows(native, length)
    unwritten = row.tobytes(), mask.tobytes()
    for rule, node in ((0, 0), (native.CORE_RULES, 3), (3, -1), (3, 99)):
        assert expression.step_flat(rule, node, False, *limits, row, mask) is None
    assert (row.tobytes(), mask.tobytes()) == unwritten

    locked = row.copy()
    locked.flags.writeable = False
    bad_calls = [
        (limits, row[:-1], mask),
        (limits, row, mask[:-2]),
        (limits, locked, mask),
        ((-1, SAFE_SIZE, MAX_TYPE_ID), row, mask),
        ((SAFE_CONSTANT, -1, MAX_TYPE_ID), row, mask),
        ((SAFE_CONSTANT, SAFE_SIZE, 0), row, mask),
    ]
    for move in ((3, 3), (0, 0)):  # one that applies, one that does not
        for values, rows, masks in bad_calls:
            with pytest.raises(ValueError, match="step_flat"):
                expression.step_flat(*move, False, *values, rows, masks)
            assert (row.tobytes(), mask.tobytes()) == unwritten


# -- the bridge: which compiled module it takes (mathy_envs._engine.native) --------------


class FakeCore:
    """A compiled module's own names, as `select_core` reads them."""

    def __init__(self, names: Optional[Tuple[str, ...]], count: Optional[int] = None) -> None:
        if names is not None:
            self.CORE_RULE_NAMES = names
            self.CORE_RULES = len(names) if count is None else count


def test_the_built_core_implements_the_rule_table() -> None:
    from mathy_envs._engine.native import native_built, import_native, rule_table_mismatch
    from mathy_envs._engine.rules import CORE_RULE_NAMES, core_rules

    if not native_built():
        pytest.skip("the native core is not built")
    module = import_native()
    assert module.CORE_RULE_NAMES == CORE_RULE_NAMES
    assert module.CORE_RULES == len(core_rules())
    assert rule_table_mismatch(module, CORE_RULE_NAMES) is None


def test_a_compiled_core_with_another_rule_table_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from mathy_envs._engine.native import rule_table_mismatch, select_core
    from mathy_envs._engine.rules import CORE_RULE_NAMES

    names = CORE_RULE_NAMES
    reordered = (names[1], names[0]) + names[2:]
    good = FakeCore(names)
    assert select_core("auto", lambda: good, names) is good  # type: ignore[arg-type,return-value]
    assert select_core("native", lambda: good, names) is good  # type: ignore[arg-type,return-value]
    assert select_core("python", lambda: good, names) is None  # type: ignore[arg-type,return-value]
    for bad in [FakeCore(reordered), FakeCore(names[:-1]), FakeCore(names, 8), FakeCore(None)]:
        why = rule_table_mismatch(bad, names)  # type: ignore[arg-type]
        assert why is not None and "rebuild" in why and len(why) < 700
        caplog.clear()
        with caplog.at_level("WARNING", logger="mathy_envs"):
            assert select_core("auto", lambda: bad, names) is None  # type: ignore[arg-type,return-value]
        assert "running on the pure-Python core" in caplog.text
        with pytest.raises(ImportError, match="MATHY_ENVS_CORE=native, but mathy_envs' native core implements"):
            select_core("native", lambda: bad, names)  # type: ignore[arg-type,return-value]


def test_a_compiled_core_that_is_not_built_is_the_python_core_or_an_error() -> None:
    from mathy_envs._engine.native import select_core

    def missing() -> Any:
        raise ImportError("not here")

    assert select_core("auto", missing, ("A",)) is None
    with pytest.raises(ImportError, match="native core is not built .not here."):
        select_core("native", missing, ("A",))


def test_a_fresh_process_refuses_a_compiled_core_with_another_table() -> None:
    # A compiled module whose rule table is not rules.py's (here a stand-in put
    # where the import finds it first, naming the rules in reverse).
    from mathy_envs._engine.native import CORE_VARIABLE
    from mathy_envs._engine.rules import CORE_RULE_NAMES

    code = (
        "import sys, types\n"
        "fake = types.ModuleType('mathy_envs._native')\n"
        f"fake.CORE_RULE_NAMES = {CORE_RULE_NAMES[::-1]!r}\n"
        f"fake.CORE_RULES = {len(CORE_RULE_NAMES)}\n"
        "fake.Expression = type('Expression', (), {'parse': staticmethod(lambda text: None)})\n"
        "sys.modules['mathy_envs._native'] = fake\n"
        "import mathy_envs._engine.native as native\n"
        "print(native.CORE)\n"
    )
    auto = run_python("-c", code, env={CORE_VARIABLE: "auto"})
    assert auto.returncode == 0 and auto.stdout.strip() == "python", auto.stderr
    assert "not the library's" in auto.stderr
    native = run_python("-c", code, env={CORE_VARIABLE: "native"})
    assert native.returncode != 0
    assert "MATHY_ENVS_CORE=native, but mathy_envs' native core implements" in native.stderr
    # The same process with the real table takes the module.
    right = code.replace(repr(CORE_RULE_NAMES[::-1]), repr(CORE_RULE_NAMES))
    same = run_python("-c", right, env={CORE_VARIABLE: "native"})
    assert same.returncode == 0 and same.stdout.strip() == "native", same.stderr


def test_native_expression_is_the_type_of_native_parses() -> None:
    from mathy_envs._engine import NativeExpression, parse
    from mathy_envs._engine.native import NATIVE

    entry = parse("4x + 2x")
    if NATIVE is None:
        assert entry.native is None
        with pytest.raises(TypeError):
            NativeExpression()
    else:
        assert NativeExpression is NATIVE.Expression
        assert isinstance(entry.native, NativeExpression)


def test_the_stand_in_of_an_unbuilt_core_is_a_module_not_found() -> None:
    # Where no extension was built, importing mathy_envs._native loads the
    # stand-in: it must fail as a missing module does (ModuleNotFoundError), so
    # that `pytest.importorskip` and `except ModuleNotFoundError` see no core.
    import runpy
    from pathlib import Path

    import mathy_envs

    stand_in = Path(mathy_envs.__file__).parent / "_native.py"
    with pytest.raises(ModuleNotFoundError, match="not here, only its stand-in"):
        runpy.run_path(str(stand_in), run_name="mathy_envs._native")
