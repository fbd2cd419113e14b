"""The fused batch kernel (`mathy_envs._engine.kernel`): each native call writes
what the library's Python path would, and says when it leaves a slot to it."""

import pickle
from typing import Any, Tuple

import numpy as np
import pytest

from mathy_envs._engine import (
    FlatKernel,
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


def _kernel(env: PolySimplify, slots: int = 2) -> Tuple[FlatKernel, Any]:
    """A kernel over fresh arrays: (kernel, (rows, masks, offered))."""
    length, rules = env.max_seq_len, len(env.rules)
    rows = np.zeros((slots, 3 + 2 * length + rules * length), np.float32)
    masks = np.zeros((slots, rules * length), np.int8)
    offered = np.zeros_like(masks)
    kernel = FlatKernel(
        list(rows),
        list(masks),
        list(offered),
        [row[3 + 2 * length :] for row in rows],
        length,
    )
    return kernel, (rows, masks, offered)


def _expected(env: PolySimplify, state: MathyEnvState) -> Tuple[np.ndarray, np.ndarray]:
    """The flat observation (no revisit feature) and flat valid-move mask."""
    moves = env.valid_moves_array(state)
    observation = state.to_observation(
        move_mask=moves, normalize=True, max_seq_len=env.max_seq_len, obs_type="flat", revisits=False
    )
    return observation, env.flat_moves(moves)


@native_only
def test_start_and_steps_write_what_the_python_path_writes() -> None:
    env = PolySimplify(preferred_term_commute=False)
    kernel, (rows, masks, _) = _kernel(env)
    state = env.state_from_text("4x + 2y + 3x + 7", max_moves=20)
    assert kernel.start(0, env._expressions, state.agent.problem, False)
    observation, mask = _expected(env, state)
    assert rows[0][3:].tobytes() == observation[3:].tobytes()
    assert masks[0].tobytes() == mask.tobytes()
    rng = np.random.default_rng(0)
    for step in range(6):
        valid = np.argwhere(env.valid_moves_array(state))
        rule, node = (int(value) for value in valid[rng.integers(len(valid))])
        if step == 3:
            kernel.forget(0)  # the slot parses its text again
        made = kernel.step(0, env._expressions, state.agent.problem, rule, node, False)
        state, time_step, _ = env.get_next_state(state, (rule, node))
        assert made is not None
        text, won = made
        assert text == state.agent.problem
        assert won == env.is_goal(state, env.parse(text).tree)
        observation, mask = _expected(env, state)
        assert rows[0][3:].tobytes() == observation[3:].tobytes()
        assert masks[0].tobytes() == mask.tobytes()
    assert not rows[1].any()  # the other slot untouched


@native_only
def test_offer_writes_the_least_visited_moves() -> None:
    env = PolySimplify()
    preferred = bool(commute_preference(env.rules))
    kernel, (rows, masks, offered) = _kernel(env)
    state = env.state_from_text("4x + 2y + 3x", max_moves=20)
    assert kernel.start(1, env._expressions, state.agent.problem, preferred)
    move = next(iter(env.move_results(state)))
    made = kernel.step(1, env._expressions, state.agent.problem, *move, preferred)
    assert made is not None
    after, _, _ = env.get_next_state(state, move)
    offered[1][:] = masks[1]
    # The visits of the episode's texts, as the batch keeps them.
    visits = visit_counts(after.agent.history, env.parser)
    assert sum(visits.values()) == 2
    assert kernel.offer(1, visits)
    expected = env.flat_moves(env.least_visited_moves_array(after))
    assert offered[1].tobytes() == expected.tobytes()
    assert not expected.all() and expected.any()


def test_a_slot_without_a_parse_offers_nothing_and_a_pickle_keeps_none() -> None:
    env = PolySimplify()
    kernel, (_, _, offered) = _kernel(env)
    assert not kernel.offer(0, {})
    started = kernel.start(0, env._expressions, "4x + 2x", True)
    assert started == (CORE == "native")
    assert kernel.offer(0, {"4x + 2x": 1}) == started
    copied = pickle.loads(pickle.dumps(kernel))
    assert not copied.offer(0, {"4x + 2x": 1})
    kernel.forget(0)
    assert not kernel.offer(0, {"4x + 2x": 1})


def test_what_the_native_core_leaves_is_left_unwritten() -> None:
    # A constant beyond the native core's safe range: the Python path's.
    env = PolySimplify()
    kernel, (rows, masks, _) = _kernel(env)
    text = "40000x + 2x"
    assert not kernel.start(0, env._expressions, text, True)
    state = env.state_from_text(text, max_moves=10)
    rule, node = (int(value) for value in np.argwhere(env.valid_moves_array(state))[0])
    assert kernel.step(0, env._expressions, text, rule, node, True) is None
    assert not rows.any() and not masks.any()


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
