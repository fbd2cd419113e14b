"""The fused batch kernel (`mathy_envs._engine.kernel`): each native call writes
what the library's Python path would, and says when it leaves a slot to it."""

import pickle
from typing import NamedTuple, Tuple

import numpy as np
import pytest

from mathy_envs._engine import (
    GOAL_SIMPLIFIED,
    MAX_KERNEL_THREADS,
    NATIVE_GOALS,
    SLOT_LEFT,
    SLOT_OFFER_LEFT,
    SLOT_OVER,
    SLOT_STEPPED,
    BatchKernel,
    commute_preference,
    kernel_unavailable,
    native_built,
    visit_counts,
)
from mathy_envs._engine.native import CORE, CORE_VARIABLE
from mathy_envs.envs import PolySimplify
from mathy_envs.state import MathyEnvState

native_only = pytest.mark.skipif(CORE != "native", reason="the native core is not in use")


def test_kernel_unavailable_names_the_core() -> None:
    if CORE == "native":
        assert kernel_unavailable() is None
    elif native_built():
        assert kernel_unavailable() == f"the pure-Python core is in use ({CORE_VARIABLE}=python)"
    else:
        assert kernel_unavailable() == "the native core is not built (the pure-Python core is in use)"


class _Arrays(NamedTuple):
    observations: np.ndarray
    masks: np.ndarray
    offered: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    valid: np.ndarray
    oversize: np.ndarray
    left: np.ndarray


def _kernel(env: PolySimplify, slots: int = 2, revisits: bool = False) -> Tuple[BatchKernel, _Arrays]:
    """A kernel over fresh arrays (no revisit feature, offered masks of their own)."""
    length, rules = env.max_seq_len, len(env.rules)
    head = 4 if revisits else 3
    arrays = _Arrays(
        np.zeros((slots, head + 2 * length + rules * length), np.float32),
        np.zeros((slots, rules * length), np.int8),
        np.zeros((slots, rules * length), np.int8),
        np.zeros(slots, np.float64),
        np.zeros(slots, np.bool_),
        np.zeros(slots, np.bool_),
        np.zeros(slots, np.bool_),
        np.zeros(slots, np.int64),
    )
    kernel = BatchKernel(*arrays, length, revisits, True, [seen / 3 for seen in range(8)])
    return kernel, arrays


def _expected(env: PolySimplify, state: MathyEnvState) -> Tuple[np.ndarray, np.ndarray]:
    """The flat observation (no revisit feature) and flat valid-move mask."""
    moves = env.valid_moves_array(state)
    observation = state.to_observation(
        move_mask=moves, normalize=True, max_seq_len=env.max_seq_len, obs_type="flat", revisits=False
    )
    return observation, env.flat_moves(moves)


def _load(kernel: BatchKernel, env: PolySimplify, slot: int, state: MathyEnvState) -> bool:
    """Have the kernel hold an episode of `state` (its visits as a batch keeps them)."""
    left = state.agent.moves_remaining
    return kernel.load(
        slot,
        env._expressions,
        state.agent.problem,
        left,
        visit_counts(state.agent.history, env.parser),
        (state.agent.problem, state.agent.problem),
        (0.25, 0.5),
        [float(each) for each in range(left + 1)],
        [10.0 + each for each in range(left + 1)],
    )


_SCORING = (
    [1.0, -1.0, 0.5, 0.25, 0.0, -0.5, 2.0],
    ("oversize", "own_verdict", "out_of_moves", "revisit", "rule_used"),
    True,
    -2.0,
    3,
    -7.0,
    -0.01,
)


@native_only
def test_load_write_and_steps_write_what_the_python_path_writes() -> None:
    env = PolySimplify(preferred_term_commute=False)
    kernel, arrays = _kernel(env)
    assert kernel.available
    assert kernel.set_scoring(*_SCORING)
    state = env.state_from_text("4x + 2y + 3x + 7", max_moves=20)
    assert _load(kernel, env, 0, state)
    assert kernel.write(0, GOAL_SIMPLIFIED, False) is False
    observation, mask = _expected(env, state)
    assert arrays.observations[0][3:].tobytes() == observation[3:].tobytes()
    assert arrays.masks[0].tobytes() == mask.tobytes()
    rng = np.random.default_rng(0)
    over = np.zeros(2, np.bool_)
    over[1] = True  # the other slot is not stepped
    taken = []
    for step in range(6):
        valid = np.argwhere(env.valid_moves_array(state))
        rule, node = (int(value) for value in valid[rng.integers(len(valid))])
        actions = np.array([rule * env.max_seq_len + node, 0], np.int64)
        status = kernel.step(actions, over, GOAL_SIMPLIFIED, False)
        assert status is not None and status.tolist()[1] == SLOT_OVER
        state, time_step, _ = env.get_next_state(state, (rule, node))
        assert status[0] in (SLOT_STEPPED, SLOT_OFFER_LEFT)
        taken.append((state.agent.problem, (rule, node)))
        observation, mask = _expected(env, state)
        nodes = 3 + 2 * env.max_seq_len
        assert arrays.observations[0][3:nodes].tobytes() == observation[3:nodes].tobytes()
        assert arrays.masks[0].tobytes() == mask.tobytes()
        # The offered moves: those least_visited_moves_array offers.
        offered = env.flat_moves(env.least_visited_moves_array(state))
        assert arrays.offered[0].tobytes() == offered.tobytes()
        assert arrays.observations[0][nodes:].tobytes() == offered.astype(np.float32).tobytes()
        left = state.agent.moves_remaining
        assert arrays.left[0] == left
        assert arrays.observations[0][2] == float(left)  # the time table, by moves left
        assert arrays.valid[0] and not arrays.oversize[0]
    assert not arrays.observations[1].any()  # the other slot untouched
    pulled = kernel.pull(0)
    assert pulled is not None
    text, left, visits, steps = pulled
    assert (text, left, steps) == (state.agent.problem, state.agent.moves_remaining, taken)
    assert visits == visit_counts(state.agent.history, env.parser)
    assert kernel.pull(0)[3] == []  # handed over once  # type: ignore[index]


@native_only
def test_the_scoring_is_read_from_the_data() -> None:
    env = PolySimplify()
    kernel, arrays = _kernel(env)
    assert kernel.set_scoring(*_SCORING)
    state = env.state_from_text("4x + 2x + 2y", max_moves=2)
    preferred = bool(commute_preference(env.rules))
    moves = np.argwhere(env.valid_moves_array(state))
    over = np.array([False, True])
    for rule, node in moves.tolist():
        assert _load(kernel, env, 0, state)
        assert kernel.write(0, GOAL_SIMPLIFIED, preferred) is not None
        status = kernel.step(
            np.array([rule * env.max_seq_len + node, 0], np.int64), over, GOAL_SIMPLIFIED, preferred
        )
        assert status is not None and status[0] != SLOT_LEFT
        after = env.get_next_state(state, (rule, node))[0]
        won = bool(env.is_goal(after, env.parse(after.agent.problem).tree))
        # Not a win, a loss or a revisit: the rule's reward of the data.
        expected = 11.0 if won else _SCORING[0][rule]
        assert arrays.rewards[0] == expected and arrays.terminated[0] == won


@native_only
def test_offer_writes_the_least_visited_moves() -> None:
    env = PolySimplify()
    preferred = bool(commute_preference(env.rules))
    kernel, arrays = _kernel(env)
    state = env.state_from_text("4x + 2y + 3x", max_moves=20)
    move = next(iter(env.move_results(state)))
    after, _, _ = env.get_next_state(state, move)
    assert _load(kernel, env, 1, after)
    assert kernel.write(1, GOAL_SIMPLIFIED, preferred) is not None
    assert sum(visit_counts(after.agent.history, env.parser).values()) == 2
    assert kernel.offer(1)
    expected = env.flat_moves(env.least_visited_moves_array(after))
    assert arrays.offered[1].tobytes() == expected.tobytes()
    assert not expected.all() and expected.any()


def test_a_slot_not_held_offers_nothing_and_a_pickle_holds_none() -> None:
    env = PolySimplify()
    kernel, _ = _kernel(env)
    assert not kernel.offer(0)
    state = env.state_from_text("4x + 2x", max_moves=5)
    loaded = _load(kernel, env, 0, state)
    assert loaded == (CORE == "native")
    assert kernel.offer(0) == loaded
    copied = pickle.loads(pickle.dumps(kernel))
    assert copied.available == kernel.available
    assert not copied.offer(0) and copied.pull(0) is None
    kernel.drop(0)
    assert not kernel.offer(0) and kernel.pull(0) is None


@native_only
def test_what_the_native_core_leaves_is_left_unchanged() -> None:
    # A float constant in an expression that is not safe: the Python path's.
    env = PolySimplify()
    kernel, arrays = _kernel(env)
    assert kernel.set_scoring(*_SCORING)
    text = "1.5x + 2x"
    state = env.state_from_text(text, max_moves=10)
    assert _load(kernel, env, 0, state)
    assert kernel.write(0, GOAL_SIMPLIFIED, True) is None
    rule, node = (int(value) for value in np.argwhere(env.valid_moves_array(state))[0])
    arrays.masks[0][rule * env.max_seq_len + node] = 1
    status = kernel.step(
        np.array([rule * env.max_seq_len + node, 0], np.int64), np.array([False, True]),
        GOAL_SIMPLIFIED, True,
    )
    assert status is not None and status[0] == SLOT_LEFT
    assert not arrays.observations.any() and not arrays.rewards.any()
    assert kernel.pull(0) == (text, 10, visit_counts(state.agent.history, env.parser), [])


@native_only
def test_bad_arguments_are_refused() -> None:
    env = PolySimplify()
    kernel, arrays = _kernel(env)
    with pytest.raises(ValueError, match="set_scoring first"):
        kernel._native.step(  # type: ignore[union-attr]
            np.zeros(2, np.int64), np.zeros(2, np.bool_), 0, True, 1, 1, 1
        )
    assert not kernel.set_scoring(_SCORING[0], ("oversize", "a check of mine"), *_SCORING[2:])
    assert not kernel.set_scoring([10**20], (), *_SCORING[2:])
    assert kernel.set_scoring(*_SCORING)
    with pytest.raises(ValueError, match="slot 2 is out of range"):
        kernel.offer(2)
    with pytest.raises(ValueError, match="actions and over must hold 2"):
        kernel.step(np.zeros(3, np.int64), np.zeros(3, np.bool_), GOAL_SIMPLIFIED, True)
    with pytest.raises(ValueError, match="num_threads"):
        kernel.step(np.zeros(2, np.int64), np.zeros(2, np.bool_), GOAL_SIMPLIFIED, True, 0)
    with pytest.raises(ValueError, match="goal must be one of"):
        kernel.step(np.zeros(2, np.int64), np.zeros(2, np.bool_), "a goal of mine", True)
    with pytest.raises(TypeError):
        kernel.step(np.zeros(2, np.int32), np.zeros(2, np.bool_), GOAL_SIMPLIFIED, True)  # type: ignore[arg-type]
    # Arrays of the wrong shape or a read-only one: refused when made.
    with pytest.raises(ValueError, match="columns"):
        BatchKernel(arrays.observations[:, 1:].copy(), *arrays[1:], env.max_seq_len, False, True, [0.0])
    frozen = arrays.rewards.copy()
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        BatchKernel(*arrays[:3], frozen, *arrays[4:], env.max_seq_len, False, True, [0.0])
    # A state out of the kernel's range is not held.
    state = env.state_from_text("4x + 2x", max_moves=5)
    assert not kernel.load(0, env._expressions, "4x + 2x", 5, {}, ("4x + 2x",) * 2, (0.0, 0.0), [0.0], [0.0])
    assert kernel.pull(0) is None
    assert _load(kernel, env, 0, state)


def test_the_kernel_names_agree_with_the_native_core() -> None:
    from mathy_envs._engine.native import NATIVE
    from mathy_envs.rewards import SCORING_ORDER

    if NATIVE is None:
        pytest.skip("the native core is not in use")
    assert set(NATIVE.GOAL_NAMES) == set(NATIVE_GOALS)
    assert set(NATIVE.SCORING_CHECKS) == set(SCORING_ORDER)
    assert NATIVE.MAX_THREADS == MAX_KERNEL_THREADS


def test_a_core_refused_for_its_rule_table_is_the_reason_everywhere() -> None:
    # A compiled module with another table of core rules (one built from other
    # sources), under the default MATHY_ENVS_CORE: the batch's reason and the
    # version line name the table, not a choice the user did not make.
    import os
    import subprocess
    import sys

    code = (
        "import sys, types\n"
        "fake = types.ModuleType('mathy_envs._native')\n"
        "fake.CORE_RULE_NAMES = ('ConstantsSimplifyRule',)\n"
        "fake.CORE_RULES = 1\n"
        "sys.modules['mathy_envs._native'] = fake\n"
        "from mathy_envs._engine import CORE\n"
        "from mathy_envs.batch import StepBatch\n"
        "from mathy_envs.cli import version_line\n"
        "from mathy_envs.envs import PolySimplify\n"
        "print(CORE)\n"
        "print(StepBatch(PolySimplify(), 1).native_reason)\n"
        "print(version_line())\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != CORE_VARIABLE}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=120
    )
    assert result.returncode == 0, result.stderr
    core, reason, version = result.stdout.splitlines()
    assert core == "python"
    assert reason.startswith("the pure-Python core is in use: mathy_envs' native core implements")
    assert CORE_VARIABLE not in reason
    assert version.endswith(", pure-Python core: the native core's table of core rules is not the library's)")


@native_only
def test_a_visit_count_that_changes_the_visits_is_read_safely() -> None:
    env = PolySimplify()
    kernel, _ = _kernel(env)
    text = "4x + 2y"
    visits: dict = {}

    class Clearing:
        def __index__(self) -> int:
            visits.clear()  # frees the key, but for the kernel's hold on it
            return 1

    key = "".join(["4x", " + 2y"]) + "Z" * 4000
    visits[key] = Clearing()  # type: ignore[assignment]
    assert kernel.load(0, env._expressions, text, 3, visits, (text, text), (0.0, 0.0), [0.0] * 4, [1.0] * 4)
    pulled = kernel.pull(0)
    assert pulled is not None and pulled[2] == {key: 1}


@native_only
def test_the_natives_refuse_what_would_corrupt_them() -> None:
    env = PolySimplify()
    kernel, arrays = _kernel(env)
    native = kernel._native
    assert native is not None
    text = "4x + 2y"
    parsed = env._expressions.parse(text).native
    for count in (-1, 2**62, 2**63 - 1):
        with pytest.raises(ValueError, match="visit count"):
            native.load(0, parsed, text, 2, {text: count}, text, text, 0.0, 0.0, [0.0] * 3, [0.0] * 3)
    with pytest.raises(ValueError, match="UTF-8"):
        native.load(0, parsed, text, 2, {"\ud800": 1}, text, text, 0.0, 0.0, [0.0] * 3, [0.0] * 3)
    assert native.pull(0) is None  # nothing was held
    with pytest.raises(ValueError, match="limits"):
        native.write(0, 0, True, 1, 1, 0)
    # Arrays sharing bytes are refused when made.
    cells = arrays.masks.shape[1]
    shared = np.zeros(4 * cells + 8, np.int8)
    masks = shared[: 2 * cells].reshape(2, cells)
    offered = shared[3 : 3 + 2 * cells].reshape(2, cells)
    with pytest.raises(ValueError, match="an array of its own"):
        BatchKernel(arrays.observations, masks, offered, *arrays[3:], env.max_seq_len, False, True, [0.0])
    flags = np.zeros(5, np.bool_)
    with pytest.raises(ValueError, match="must not overlap"):
        BatchKernel(*arrays[:4], flags[:2], flags[1:3], *arrays[6:], env.max_seq_len, False, True, [0.0])
    with pytest.raises(ValueError, match="an array of its own"):
        BatchKernel(*arrays[:2], arrays.masks, *arrays[3:], env.max_seq_len, False, True, [0.0])
    single = BatchKernel(*arrays[:2], arrays.masks, *arrays[3:], env.max_seq_len, False, False, [0.0])
    with pytest.raises(ValueError, match="without mask_revisits"):
        single.offer(0)
    # An array made read-only after the kernel was made: refused before any step.
    assert kernel.set_scoring(*_SCORING)
    state = env.state_from_text(text, max_moves=5)
    assert _load(kernel, env, 0, state)
    assert kernel.write(0, GOAL_SIMPLIFIED, True) is not None
    arrays.rewards.flags.writeable = False
    action = int(np.flatnonzero(arrays.masks[0])[0])
    with pytest.raises(ValueError, match="writable"):
        kernel.step(np.array([action, 0], np.int64), np.array([False, True]), GOAL_SIMPLIFIED, True)
    arrays.rewards.flags.writeable = True
    assert kernel.pull(0) == (text, 5, visit_counts(state.agent.history, env.parser), [])


@native_only
def test_a_call_while_another_thread_steps_is_refused_not_a_crash() -> None:
    import threading

    env = PolySimplify()
    kernel, arrays = _kernel(env, slots=256)
    assert kernel.set_scoring(*_SCORING)
    state = env.state_from_text("4x + 2y + 3x + 7 + 9y + 2z + z", max_moves=50)
    for slot in range(256):
        assert _load(kernel, env, slot, state)
        assert kernel.write(slot, GOAL_SIMPLIFIED, True) is not None
    over = np.zeros(256, np.bool_)
    done = threading.Event()
    refused = []

    def steps() -> None:
        rng = np.random.default_rng(1)
        for _ in range(30):
            actions = np.array(
                [int(rng.choice(np.flatnonzero(row))) if row.any() else 0 for row in arrays.masks],
                np.int64,
            )
            kernel.step(actions, over, GOAL_SIMPLIFIED, True, 2)
        done.set()

    worker = threading.Thread(target=steps)
    worker.start()
    while not done.is_set():
        for call in (lambda: kernel.pull(3), lambda: kernel.drop(5), lambda: kernel.offer(7)):
            try:
                call()
            except ValueError as error:
                assert "another thread is using this batch" in str(error)
                refused.append(error)
    worker.join()
    assert kernel.pull(0) is not None  # still usable


def test_exact_keys_tell_every_float_apart() -> None:
    from mathy_envs._engine import exact_key

    assert exact_key(0.0) != exact_key(-0.0)
    assert exact_key((1, (0.5, "a"))) == exact_key((1, (0.5, "a")))
    assert exact_key((1, (0.5, "a"))) != exact_key((1, (-0.5, "a")))
    assert exact_key(float("nan")) == exact_key(float("nan"))
    assert exact_key((1, 2.0)) != exact_key((1, 2))  # a float is not the int it equals
