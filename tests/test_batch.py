"""`StepBatch`: every step of a batch is the step `MathyEnv.get_next_state` takes.

Each batch step is replayed on a second env of the same settings: the next state,
the reward, the end flags, the flat observation (as `MathyGymEnv` builds it) and
the mask of every episode must be the same, arrays byte for byte, on every
built-in env and difficulty, for valid and invalid actions, with the default
scoring and with a scheme of the user's (which the native steps leave to
`get_next_state`).
"""

import contextlib
import copy
import random
from typing import Any, Callable, List, Optional, Tuple
from unittest import mock

import numpy as np
import pytest
from helpers import ENV_DIFFICULTY_CASES, run_python, snapshot

from mathy_core.rules import CommutativeSwapRule

from mathy_envs import MathyEnv, MathyEnvState
from mathy_envs._env.agent import MathyAgentState, MathyEnvStateStep
from mathy_envs.batch import StepBatch
from mathy_envs._support.pristine import pristine
from mathy_envs._env.actions import sample_valid_actions
from mathy_envs.envs import ENV_TASKS, PolyCommuteLikeTerms, PolyGroupLikeTerms, PolySimplify
from mathy_envs.envs.goal import GoalEnv
from mathy_envs.envs.poly_simplify import poly_simplify_problem
from mathy_envs._engine import kernel_unavailable, like_term_indexes, native_built
from mathy_envs._engine.native import CORE
from mathy_envs.observations.flat import flat_head
from mathy_envs.rewards import RewardScheme
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import (
    EnvRewards,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)


def expected_row(
    env: MathyEnv, state: MathyEnvState, revisits: bool = True, mask_revisits: bool = True
) -> Tuple[np.ndarray, np.ndarray]:
    """The flat observation and the flat mask `MathyGymEnv` gives for `state`
    (with `mask_revisits`, the moves it offers)."""
    moves = env.least_visited_moves_array(state) if mask_revisits else env.valid_moves_array(state)
    mask = np.zeros((len(env.rules), env.max_seq_len), np.int8)
    mask[:, : moves.shape[1]] = moves
    observation = state.to_observation(
        move_mask=moves,
        normalize=True,
        max_seq_len=env.max_seq_len,
        obs_type="flat",
        revisits=revisits,
    )
    return observation, mask.reshape(-1)


def assert_row(batch: StepBatch, index: int, observation: np.ndarray, mask: np.ndarray) -> None:
    assert batch.observations[index].tobytes() == observation.tobytes(), index
    assert batch.masks[index].tobytes() == mask.tobytes(), index


class Doubled(RewardScheme):
    """A user's scheme: every transition's reward doubled."""

    def score(self, env: Any, state: Any, expression: Any, visits: int, features: Any) -> Any:
        step = super().score(env, state, expression, visits, features)
        return step._replace(reward=2 * step.reward)


def replay(
    task: str,
    difficulty: MathyEnvDifficulty,
    steps: int,
    seed: int,
    scheme: Optional[RewardScheme] = None,
    revisits: bool = True,
    mask_revisits: bool = True,
    **settings: Any,
) -> Tuple[int, int]:
    """Play `steps` batch steps of 6 episodes of `task` and check each against
    `get_next_state` on a second env (see `check_steps`); returns (steps
    compared, episodes ended)."""
    kwargs: Any = {"invalid_action_response": "penalize", **settings}
    if scheme is not None:
        kwargs["reward_scheme"] = scheme
    env, reference = ENV_TASKS[task](**kwargs), ENV_TASKS[task](**kwargs)
    batch = StepBatch(env, 6, MathyEnvProblemArgs(difficulty), revisits, mask_revisits)
    return check_steps(batch, reference, steps, seed)


def check_steps(
    batch: StepBatch,
    reference: MathyEnv,
    steps: int,
    seed: int,
    before_step: Optional[Callable[[int], None]] = None,
) -> Tuple[int, int]:
    """Reset `batch` (with `seed`) and play `steps` steps with random valid
    actions (and an invalid one now and then), checking every episode's step
    against `reference.get_next_state` (`reference` an env of the same settings;
    `before_step(step)` may change both envs first); returns (steps compared,
    episodes ended)."""
    env = batch.env
    batch.reset(seed=seed)
    for index, state in enumerate(batch.states):
        assert_row(batch, index, *expected_row(reference, state, batch.revisits, batch.mask_revisits))
    rng = random.Random(seed)
    compared = ended = 0
    over = [False] * batch.num_envs
    for step in range(steps):
        if before_step is not None:
            before_step(step)
        before = batch.states
        actions = []
        for index in range(batch.num_envs):
            # What get_next_state now takes as valid (the batch's masks are
            # checked against it below).
            valid = np.argwhere(reference.valid_moves_array(before[index]))
            if len(valid) == 0 or rng.random() < 0.05:
                actions.append(rng.randrange(batch.masks.shape[1]))
            else:
                rule, node = valid[rng.randrange(len(valid))]
                actions.append(int(rule) * env.max_seq_len + int(node))
        batch.step(np.array(actions))
        for index, (state, action) in enumerate(zip(before, actions)):
            after = batch.states[index]
            if over[index]:
                # Reset, the action ignored: a new episode's first state.
                assert len(after.agent.history) == 1
                assert batch.rewards[index] == 0.0
                assert not batch.terminated[index] and not batch.truncated[index]
                assert not batch.won[index]
                assert_row(batch, index, *expected_row(reference, after, batch.revisits, batch.mask_revisits))
                over[index] = False
                continue
            move = divmod(action, env.max_seq_len)
            expected, time_step, _ = reference.get_next_state(state, move)
            where = (step, index, state.agent.problem, move)
            assert snapshot(after) == snapshot(expected), where
            assert batch.rewards[index] == time_step.reward, where
            terminated = is_terminal_transition(time_step)
            truncated = expected.agent.moves_remaining <= 0
            assert batch.terminated[index] == terminated, where
            assert batch.truncated[index] == truncated, where
            oversize = reference.node_count(expected.agent.problem) > reference.max_seq_len
            won = terminated and not oversize and time_step.reward > 0
            assert batch.won[index] == won, where
            if oversize:
                observation = expected_row(reference, state, batch.revisits, batch.mask_revisits)[0]
                observation[flat_head(batch.revisits) + 2 * env.max_seq_len :] = 0.0
                mask = np.zeros(batch.masks.shape[1], np.int8)
                assert_row(batch, index, observation, mask)
            else:
                assert_row(batch, index, *expected_row(reference, expected, batch.revisits, batch.mask_revisits))
            compared += 1
            over[index] = terminated or truncated
            ended += over[index]
    return compared, ended


CASES = ENV_DIFFICULTY_CASES


@pytest.mark.parametrize("task,difficulty", CASES)
def test_a_batch_step_is_get_next_state(task: str, difficulty: MathyEnvDifficulty) -> None:
    compared, _ = replay(task, difficulty, steps=12, seed=3)
    assert compared >= 40


@pytest.mark.parametrize("task", ["poly", "complex"])
def test_a_batch_without_revisits_is_get_next_state(task: str) -> None:
    compared, _ = replay(task, MathyEnvDifficulty.normal, steps=12, seed=4, revisits=False)
    assert compared >= 40


@pytest.mark.parametrize("task", ["poly", "complex", "poly-commute"])
def test_a_batch_with_the_published_masks_is_get_next_state(task: str) -> None:
    compared, _ = replay(task, MathyEnvDifficulty.easy, steps=12, seed=6, mask_revisits=False)
    assert compared >= 40


def test_a_batch_leaves_out_the_move_back_and_still_takes_it() -> None:
    env = PolySimplify(
        generator=lambda rng, params: MathyEnvProblem(
            "4x + 2y + 3x", 5, "mathy.polynomials.simplify"
        )
    )
    swap = 1 * env.max_seq_len + 3  # commutative swap at the first +
    offered, published = StepBatch(env, 1), StepBatch(env, 1, mask_revisits=False)
    for batch in (offered, published):
        batch.reset(seed=0)
        batch.step(np.array([swap]))
        assert batch.states[0].agent.problem == "2y + 4x + 3x"
    assert published.masks[0, swap] == 1 and offered.masks[0, swap] == 0
    start = flat_head(True) + 2 * env.max_seq_len
    assert offered.observations[0, start + swap] == 0.0
    assert (offered.masks[0] == published.masks[0] - np.eye(1, env.action_size, swap, np.int8)[0]).all()
    # Not offered, but valid: taken as get_next_state takes it.
    offered.step(np.array([swap]))
    assert offered.states[0].agent.problem == "4x + 2y + 3x"
    assert offered.rewards[0] == EnvRewards.PREVIOUS_LOCATION * 2


@pytest.mark.parametrize("revisits", [True, False])
def test_the_revisit_feature_counts_the_earlier_visits(revisits: bool) -> None:
    """Swapping `4x + 2y + 3x` back and forth: after the time, the flat row holds
    the earlier visits of its expression over MAX_VISITS (0, 0, 1/3, 1/3, 2/3,
    2/3, then the fourth visit loses and shows 1); without `revisits` the row
    has no such value."""
    env = PolySimplify(
        generator=lambda rng, params: MathyEnvProblem(
            "4x + 2y + 3x", 5, "mathy.polynomials.simplify"
        )
    )
    batch = StepBatch(env, 1, revisits=revisits)
    batch.reset(seed=0)
    seen = [float(batch.observations[0, 3])]
    action = np.array([1 * env.max_seq_len + 3])  # commutative swap at the first +
    for _ in range(6):
        batch.step(action)
        seen.append(float(batch.observations[0, 3]))
    assert bool(batch.terminated[0]) and batch.rewards[0] == EnvRewards.LOSE
    if revisits:
        assert seen == pytest.approx([0, 0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1])
    else:
        # The first node type, the same expression's, at [3]: constant.
        assert len(set(seen)) == 1
    assert batch.observations.shape[1] == (4 if revisits else 3) + 9 * env.max_seq_len


def _short_problems(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
    # Budgets of 4 or 8 moves: episodes end (won, lost or out of moves) and reset.
    text = ["4x + 2x", "2x + 3y + x", "x + 2 + 3 + 4x"][int(rng.integers(3))]
    return MathyEnvProblem(text, int(rng.integers(1, 3)), "mathy.polynomials.simplify")


@pytest.mark.parametrize("task", ["poly", "poly-grouping"])
def test_batch_episodes_end_and_reset_as_get_next_state_says(task: str) -> None:
    compared, ended = replay(
        task, MathyEnvDifficulty.easy, steps=16, seed=5, generator=_short_problems
    )
    assert compared >= 40 and ended >= 10


@pytest.mark.parametrize("task", ["poly", "complex", "poly-grouping"])
def test_a_batch_with_the_users_scheme_is_get_next_state(task: str) -> None:
    compared, _ = replay(task, MathyEnvDifficulty.normal, steps=10, seed=4, scheme=Doubled())
    assert compared >= 40


@pytest.mark.slow
@pytest.mark.parametrize("task,difficulty", CASES)
def test_longer_batches_step_as_get_next_state(task: str, difficulty: MathyEnvDifficulty) -> None:
    compared, ended = replay(task, difficulty, steps=80, seed=17)
    assert compared >= 300 and ended >= 5


def test_the_native_core_takes_most_polysimplify_steps() -> None:
    # On the native core, a PolySimplify step needs no Python objects: few steps
    # go to get_next_state (texts outside the native core's safe range, resets
    # aside). On the pure-Python core, every step does.
    calls: List[int] = []
    original = StepBatch._step

    def counted(self: StepBatch, *args: Any) -> Any:
        calls.append(1)
        return original(self, *args)

    batch = StepBatch(PolySimplify(), 16)
    batch.reset(seed=1)
    rng = np.random.default_rng(1)
    with mock.patch.object(StepBatch, "_step", counted):
        for _ in range(20):
            batch.step(
                np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in batch.masks])
            )
    if CORE == "native":
        assert len(calls) < 0.2 * 16 * 20, len(calls)
    else:
        assert len(calls) > 0.5 * 16 * 20, len(calls)


def test_a_users_env_method_turns_the_native_steps_off() -> None:
    class Scored(PolySimplify):
        def get_win_signal(self, env_state: MathyEnvState) -> float:
            return 5.0

    batch = StepBatch(Scored(), 2)
    batch.reset(seed=0)
    assert batch.native_reason == "Scored overrides get_win_signal"
    assert StepBatch(PolySimplify(), 1).native_reason == kernel_unavailable()
    assert (kernel_unavailable() is None) == (CORE == "native")


def test_an_invalid_action_follows_the_envs_invalid_action_response() -> None:
    batch = StepBatch(PolySimplify(), 2)
    batch.reset(seed=0)
    invalid = int(np.flatnonzero(batch.masks[0] == 0)[0])
    valid = int(np.flatnonzero(batch.masks[1])[0])
    with pytest.raises(ValueError, match="invalid action"):
        batch.step(np.array([invalid, valid]))
    penalized = StepBatch(PolySimplify(invalid_action_response="penalize"), 2)
    penalized.reset(seed=0)
    penalized.step(np.array([invalid, valid]))
    assert penalized.rewards[0] == EnvRewards.INVALID_MOVE
    assert penalized.states[0].agent.problem == penalized.states[0].agent.history[0].raw


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: StepBatch("PolySimplify", 2), "env must be a MathyEnv"),  # type: ignore[arg-type]
        (lambda: StepBatch(PolySimplify(), 0), "num_envs must be an int"),
        (lambda: StepBatch(PolySimplify(), True), "num_envs must be an int"),
        (lambda: StepBatch(PolySimplify(), 2, "hard"), "params must be"),  # type: ignore[arg-type]
        (lambda: StepBatch(PolySimplify(), 2, num_threads=0), "num_threads must be an int in"),
        (lambda: StepBatch(PolySimplify(), 2, num_threads=257), "num_threads must be an int in"),
        (lambda: StepBatch(PolySimplify(), 2, num_threads=2.0), "num_threads must be an int in"),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_are_value_errors(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_bad_steps_are_value_errors_and_change_nothing() -> None:
    batch = StepBatch(PolySimplify(), 3)
    with pytest.raises(ValueError, match="reset"):
        batch.step(np.zeros(3, np.int64))
    batch.reset(seed=2)
    before = [snapshot(state) for state in batch.states]
    observations = batch.observations.copy()
    for actions in [np.zeros(2, np.int64), np.zeros(3, np.float64), [[0, 0, 0]], "abc"]:
        with pytest.raises(ValueError, match="actions must be 3 integers"):
            batch.step(actions)
    assert [snapshot(state) for state in batch.states] == before
    assert batch.observations.tobytes() == observations.tobytes()
    with pytest.raises(TypeError):
        StepBatch(PolySimplify(), 2, seed=1)  # type: ignore[call-arg]


def test_an_invalid_action_raised_on_steps_no_episode() -> None:
    # With invalid_action_response="raise", the ValueError comes before any
    # episode of the batch is stepped: the batch is as it was.
    batch = StepBatch(PolySimplify(), 3)
    batch.reset(seed=4)
    before = [snapshot(state) for state in batch.states]
    arrays = [batch.observations.copy(), batch.masks.copy(), batch.rewards.copy()]
    valid = [int(np.flatnonzero(row)[0]) for row in batch.masks]
    invalid = int(np.flatnonzero(batch.masks[2] == 0)[0])
    with pytest.raises(ValueError, match="invalid action"):
        batch.step(np.array([valid[0], valid[1], invalid]))
    assert [snapshot(state) for state in batch.states] == before
    after = [batch.observations, batch.masks, batch.rewards]
    assert all(a.tobytes() == b.tobytes() for a, b in zip(arrays, after))
    batch.step(np.array(valid))
    assert [snapshot(state) for state in batch.states] != before


def test_threads_stepping_one_batch_leave_consistent_episodes() -> None:
    # step calls from several threads run one at a time: every episode's history
    # replays, step by step, to the state the batch holds.
    import threading

    env = PolySimplify(invalid_action_response="penalize")
    batch = StepBatch(env, 8)
    batch.reset(seed=9)
    errors: List[BaseException] = []

    def play(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(25):
                batch.step(sample_valid_actions(batch.masks, rng))
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=play, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    reference = PolySimplify(invalid_action_response="penalize")
    steps = 0
    for state in batch.states:
        history = state.agent.history
        replayed = reference.state_from_text(history[0].raw, state.max_moves)
        for step in history[1:]:
            replayed, _, _ = reference.get_next_state(replayed, step.action)
            steps += 1
        assert snapshot(replayed) == snapshot(state)
    assert steps > 8


def test_changing_the_envs_rules_or_size_after_making_the_batch_is_a_value_error() -> None:
    env = PolySimplify()
    batch = StepBatch(env, 2)
    batch.reset(seed=0)
    env.rules.pop()
    with pytest.raises(ValueError, match="rules or max_seq_len changed"):
        batch.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="rules or max_seq_len changed"):
        batch.reset()


def test_an_error_in_the_users_code_mid_step_leaves_no_half_stepped_batch() -> None:
    class Failing(RewardScheme):
        calls = 0

        def score(self, env: Any, state: Any, expression: Any, visits: int, features: Any) -> Any:
            Failing.calls += 1
            if Failing.calls == 3:
                raise RuntimeError("the user's scheme failed")
            return super().score(env, state, expression, visits, features)

    batch = StepBatch(PolySimplify(reward_scheme=Failing()), 4)
    batch.reset(seed=0)
    actions = np.array([int(np.flatnonzero(row)[0]) for row in batch.masks])
    with pytest.raises(RuntimeError, match="the user's scheme failed"):
        batch.step(actions)
    # Two episodes were stepped before the error: the batch must be reset.
    with pytest.raises(ValueError, match="reset"):
        batch.step(actions)
    batch.reset(seed=0)
    batch.step(np.array([int(np.flatnonzero(row)[0]) for row in batch.masks]))
    assert all(len(state.agent.history) == 2 for state in batch.states)


# -- what the native steps must not get around ------------------------------------------


def _alternating(texts: List[str]) -> Any:
    """A generator of the given texts in turn (budget of 2 units: 8 moves)."""
    drawn = iter(texts * 1000)
    return lambda rng, params: MathyEnvProblem(next(drawn), 2, "mathy.polynomials.simplify")


def test_problems_that_do_not_fit_are_skipped_as_mathygymenv_skips_them() -> None:
    # "4x + 5y + 6x + y" has 13 nodes, more than max_seq_len=10: every start
    # (reset and autoreset) draws again, as MathyGymEnv's reset does.
    settings: Any = {
        "max_seq_len": 10,
        "generator": _alternating(["2x + 3x", "4x + 5y + 6x + y"]),
        "invalid_action_response": "penalize",
    }
    batch = StepBatch(PolySimplify(**settings), 3)
    compared, ended = check_steps(batch, PolySimplify(**settings), steps=20, seed=1)
    assert compared >= 30 and ended >= 3
    assert all(state.agent.history[0].raw == "2x + 3x" for state in batch.states)
    never = StepBatch(PolySimplify(max_seq_len=10, generator=_alternating(["4x + 5y + 6x + y"])), 1)
    with pytest.raises(ValueError, match="generated problems in a row did not fit"):
        never.reset()


@pytest.mark.parametrize("task,difficulty", CASES)
def test_episodes_start_with_the_envs_problems_slot_after_slot(
    task: str, difficulty: MathyEnvDifficulty
) -> None:
    # A reset draws from env.np_random for every slot in order, and a step
    # for each slot whose episode ended, in slot order: the problems an env
    # seeded alike gives, one fitting_initial_state after another.
    params = MathyEnvProblemArgs(difficulty)
    batch = StepBatch(ENV_TASKS[task](), 5, params)
    batch.reset(seed=9)
    started = [state.agent.problem for state in batch.states]
    rng = np.random.default_rng(9)
    for _ in range(60):
        ended = batch.terminated | batch.truncated
        batch.step(sample_valid_actions(batch.masks, rng))
        started.extend(batch.states[index].agent.problem for index in np.flatnonzero(ended))
    reference = ENV_TASKS[task]()
    reference.seed(9)
    expected = [reference.fitting_initial_state(params)[0].agent.problem for _ in started]
    assert started == expected


def test_writing_into_the_masks_changes_no_answer() -> None:
    env = PolySimplify()  # invalid_action_response="raise"
    batch = StepBatch(env, 2)
    batch.reset(seed=0)
    state = batch.states[0]
    invalid = int(np.flatnonzero(batch.masks[0] == 0)[0])
    valid = int(np.flatnonzero(batch.masks[1])[0])
    batch.masks[:] = 1  # the caller's copy
    with pytest.raises(ValueError, match="invalid action"):
        batch.step(np.array([invalid, valid]))
    assert snapshot(batch.states[0]) == snapshot(state)
    # The next step gives the masks back as the batch knows them.
    batch.step(np.array([int(np.flatnonzero(batch._valid[0])[0]), valid]))
    for index, state in enumerate(batch.states):
        assert_row(batch, index, *expected_row(env, state))


def test_changing_the_rules_between_steps_is_followed_as_get_next_state_follows_it() -> None:
    # The documented way to change commutative swap's setting: replace the rule.
    settings: Any = {"invalid_action_response": "penalize", "preferred_term_commute": True}
    env, reference = PolySimplify(**settings), PolySimplify(**settings)

    def flip(step: int) -> None:
        for mathy in (env, reference):
            mathy.rules[1] = CommutativeSwapRule(preferred=step % 2 == 0)

    compared, _ = check_steps(StepBatch(env, 6), reference, steps=16, seed=2, before_step=flip)
    assert compared >= 80


class _NoCommute(PolySimplify):
    """A user's env that never offers commutative swap."""

    def valid_moves_array(self, env_state: MathyEnvState) -> Any:
        moves = super().valid_moves_array(env_state).copy()
        moves[1] = 0
        moves.flags.writeable = False
        return moves


class _DoubleCount(PolySimplify):
    """A user's env that counts every node twice (so it outgrows max_seq_len
    sooner)."""

    def node_count(self, text: str) -> int:
        return 2 * super().node_count(text)


class _Generous(RewardScheme):
    pass


_ORIGINAL_OUT_STATE = MathyEnvState.get_out_state


def _counted_out_state(self: MathyEnvState, *args: Any, **kwargs: Any) -> MathyEnvState:
    """A user's `get_out_state` that tags each state's problem type."""
    made = _ORIGINAL_OUT_STATE(self, *args, **kwargs)
    made.agent.problem_type = "mathy.user.tagged"
    return made


USER_CODE_REASONS = {
    "valid_moves_array": "_NoCommute overrides valid_moves_array",
    "node_count": "_DoubleCount overrides node_count",
    "scheme instance": "the reward scheme has its own rule_used (set on the instance)",
    "subclass scheme": "the reward scheme is a _Generous, not the library's RewardScheme",
    "instance method": "the env has its own get_win_signal (set on the instance)",
    "patched class": "RewardScheme.rule_used was replaced after import",
    "patched module function": "mathy_envs.env.win_signal was replaced after import",
    "patched module constant": "mathy_envs.rewards.MAX_VISITS was replaced after import",
    "patched state method": "MathyEnvState.get_out_state was replaced after import",
}
"""Each case of user code, and the reason the batch gives for its Python steps."""


@pytest.mark.parametrize("case", list(USER_CODE_REASONS))
def test_a_user_method_anywhere_sends_the_steps_to_get_next_state(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings: Any = {"invalid_action_response": "penalize"}
    make: Callable[[], MathyEnv] = lambda: PolySimplify(**settings)  # noqa: E731
    if case == "valid_moves_array":
        make = lambda: _NoCommute(**settings)  # noqa: E731
    elif case == "node_count":
        make = lambda: _DoubleCount(max_seq_len=40, **settings)  # noqa: E731
    elif case == "subclass scheme":
        make = lambda: PolySimplify(reward_scheme=_Generous(), **settings)  # noqa: E731
    env, reference = make(), make()
    if case == "scheme instance":
        for mathy in (env, reference):
            mathy.reward_scheme = RewardScheme()
            mathy.reward_scheme.rule_used = lambda env, state, features: None  # type: ignore[method-assign]
    elif case == "instance method":
        for mathy in (env, reference):
            mathy.get_win_signal = lambda env_state: 7.0  # type: ignore[method-assign]
    elif case == "patched class":
        monkeypatch.setattr(RewardScheme, "rule_used", lambda self, env, state, features: None)
    elif case == "patched module function":
        monkeypatch.setattr("mathy_envs.env.win_signal", lambda max_moves, left: 5.0)
    elif case == "patched module constant":
        monkeypatch.setattr("mathy_envs.rewards.MAX_VISITS", 1)
    elif case == "patched state method":
        monkeypatch.setattr(MathyEnvState, "get_out_state", _counted_out_state)
    batch = StepBatch(env, 4)
    batch.reset(seed=3)
    assert batch.native_reason == USER_CODE_REASONS[case]
    compared, _ = check_steps(batch, reference, steps=12, seed=3)
    assert compared >= 40
    assert batch.native_fraction == 0.0


def test_a_move_the_rule_change_took_away_is_invalid_at_once() -> None:
    settings: Any = {"invalid_action_response": "penalize", "preferred_term_commute": True}
    env, reference = PolySimplify(**settings), PolySimplify(**settings)
    batch = StepBatch(env, 16)
    batch.reset(seed=0)
    before = batch.states
    old_masks = batch.masks.copy()
    for mathy in (env, reference):
        mathy.rules[1] = CommutativeSwapRule(preferred=False)
    actions, taken_away = [], 0
    for index, state in enumerate(before):
        now = reference.valid_moves_array(state)
        padded = np.zeros((len(env.rules), env.max_seq_len), np.int8)
        padded[:, : now.shape[1]] = now
        gone = np.flatnonzero(old_masks[index] & ~padded.reshape(-1).astype(bool))
        taken_away += len(gone) > 0
        actions.append(int(gone[0]) if len(gone) else int(np.flatnonzero(padded)[0]))
    assert taken_away >= 3
    batch.step(np.array(actions))
    for index, (state, action) in enumerate(zip(before, actions)):
        expected, time_step, _ = reference.get_next_state(
            state, divmod(action, env.max_seq_len)
        )
        assert snapshot(batch.states[index]) == snapshot(expected)
        assert batch.rewards[index] == time_step.reward


class _OwnOffer(PolySimplify):
    """A user's env that offers every valid move."""

    def least_visited_moves_array(self, env_state: MathyEnvState) -> Any:
        return self.valid_moves_array(env_state)


def test_a_users_offered_moves_are_the_batchs() -> None:
    env, reference = _OwnOffer(invalid_action_response="penalize"), _OwnOffer()
    batch = StepBatch(env, 3)
    batch.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(8):
        for index, state in enumerate(batch.states):
            observation, mask = expected_row(reference, state, True, True)
            assert batch.masks[index].tobytes() == mask.tobytes()
            assert batch.observations[index].tobytes() == observation.tobytes()
        batch.step(sample_valid_actions(batch.masks, rng))


WIN_IN_TWO = """
def win_in_two(env, batch_class):
    # Plays 4x + 2x -> (4 + 2) * x -> 6x in a batch of one; returns the
    # batch's reward for the win and get_next_state's.
    batch = batch_class(env, 1)
    batch.reset(seed=0)
    state = batch.states[0]
    assert state.agent.problem == "4x + 2x", state.agent.problem
    for goal in ("(4 + 2) * x", "6x"):
        results = env.move_results(state)
        rule, node = next(move for move, text in results.items() if text == goal)
        before = state
        batch.step([rule * env.max_seq_len + node])
        state = batch.states[0]
    _, time_step, _ = env.get_next_state(before, (rule, node))
    assert batch.won[0] and batch.terminated[0]
    return float(batch.rewards[0]), float(time_step.reward)
"""
"""Code that wins `4x + 2x` in a batch (run here and in fresh interpreters)."""


class _Bonus(MathyEnv):
    """A user's mixin: a bigger win."""

    def get_win_signal(self, env_state: MathyEnvState) -> float:
        return 7.0


class _BonusAfterTheLibrary(PolySimplify, _Bonus):
    """The mixin after the library class: in the class hierarchy, it comes after
    SimplifyGoalEnv, before MathyEnv."""

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("4x + 2x", 2, self.get_env_namespace())


def test_a_users_mixin_after_the_library_class_is_honoured() -> None:
    namespace: Any = {}
    exec(WIN_IN_TWO, namespace)
    env = _BonusAfterTheLibrary()
    assert StepBatch(env, 1).native_reason == "_Bonus overrides get_win_signal"
    assert namespace["win_in_two"](env, StepBatch) == (7.0, 7.0)


@pytest.mark.parametrize("batch_module", ["mathy_envs.batch", "mathy_envs.gym.vector"])
def test_a_library_method_patched_before_the_batch_is_imported_is_honoured(
    batch_module: str,
) -> None:
    # Patched after `import mathy_envs`, before the batch's module is first
    # imported: the patch is the user's code, whenever it was made.
    code = (
        "import mathy_envs\n"
        "from mathy_envs.env import MathyEnv\n"
        "from mathy_envs.envs import PolySimplify\n"
        "from mathy_envs.types import MathyEnvProblem\n"
        "MathyEnv.get_win_signal = lambda self, env_state: 7.0\n"
        "class Fixed(PolySimplify):\n"
        "    def problem_fn(self, params):\n"
        "        return MathyEnvProblem('4x + 2x', 2, self.get_env_namespace())\n"
        f"import {batch_module}\n"
        "from mathy_envs.batch import StepBatch\n"
        + WIN_IN_TWO
        + "print(win_in_two(Fixed(), StepBatch))\n"
    )
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(7.0, 7.0)"


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@pytest.mark.parametrize("task", ["poly", "complex", "binomial"])
def test_a_copied_batch_steps_on_as_the_original(how: str, task: str) -> None:
    import copy
    import pickle

    batch = StepBatch(ENV_TASKS[task](invalid_action_response="penalize"), 6)
    batch.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(7):
        batch.step(sample_valid_actions(batch.masks, rng))
    copied = pickle.loads(pickle.dumps(batch)) if how == "pickle" else copy.deepcopy(batch)
    assert copied.env is not batch.env and copied.env.rules is not batch.env.rules
    arrays = ("observations", "masks", "rewards", "terminated", "truncated", "won", "valid", "oversize")
    for name in arrays:
        np.testing.assert_array_equal(getattr(copied, name), getattr(batch, name), err_msg=name)
    for _ in range(60):
        actions = sample_valid_actions(batch.masks, rng)
        actions[0] = 0  # an invalid move now and then (penalized)
        batch.step(actions)
        copied.step(actions)
        for name in arrays:
            np.testing.assert_array_equal(getattr(copied, name), getattr(batch, name), err_msg=name)
        assert [snapshot(s) for s in copied.states] == [snapshot(s) for s in batch.states]
    # The copy is its own: stepping it leaves the original as it was.
    before = batch.observations.copy()
    copied.step(sample_valid_actions(copied.masks, rng))
    np.testing.assert_array_equal(batch.observations, before)


def test_a_shallow_copy_of_a_batch_steps_its_own_episodes() -> None:
    import copy

    batch = StepBatch(PolySimplify(), 3)
    batch.reset(seed=4)
    before = [snapshot(state) for state in batch.states]
    copied = copy.copy(batch)
    rng = np.random.default_rng(4)
    copied.step(sample_valid_actions(copied.masks, rng))
    assert [snapshot(state) for state in batch.states] == before


def test_a_rule_attribute_holding_an_array_is_followed() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 3x")
    mask = env.valid_moves_array(state).copy()
    for _ in range(2):
        env.rules[0].tag = np.array([1, 2])  # type: ignore[attr-defined]
        np.testing.assert_array_equal(env.valid_moves_array(state), mask)
    batch = StepBatch(env, 2)
    batch.reset(seed=0)
    # Not mathy_core's settings.
    assert batch.native_reason == "the env's rules are not the core rules with mathy_core's settings"


def test_copying_states_keeps_the_native_steps() -> None:
    # Python caches `__slotnames__` on a class when one of its instances is
    # copied or pickled: that is no user code, and the native steps stay on.
    import copy
    import pickle

    env = PolySimplify()
    state = env.state_from_text("4x + 2x")
    copy.deepcopy(state)
    pickle.loads(pickle.dumps(state))
    batch = StepBatch(env, 2)
    batch.reset(seed=0)
    assert batch.native_reason == kernel_unavailable()


# -- the fast path, explicit: native_reason and native_fraction ------------------------


def test_native_fraction_is_the_share_of_steps_the_kernel_took() -> None:
    # Every step the kernel leaves goes through StepBatch._step: the fraction is
    # what those calls leave of the steps played (resets of finished episodes
    # are no steps).
    calls: List[int] = []
    original = StepBatch._step

    def counted(self: StepBatch, *args: Any) -> Any:
        calls.append(1)
        return original(self, *args)

    batch = StepBatch(PolySimplify(invalid_action_response="penalize"), 12)
    assert batch.native_fraction == 0.0  # no step yet
    batch.reset(seed=5)
    assert batch.native_fraction == 0.0
    rng = np.random.default_rng(5)
    played = 0
    with mock.patch.object(StepBatch, "_step", counted):
        for step in range(30):
            played += int((~(batch.terminated | batch.truncated)).sum())
            actions = sample_valid_actions(batch.masks, rng)
            if step % 7 == 0:
                actions[0] = 0  # an invalid move now and then: the Python path
            batch.step(actions)
            assert batch.native_fraction == pytest.approx((played - len(calls)) / played)
    assert len(calls) > 0
    if CORE == "native":
        assert batch.native_fraction > 0.5
    else:
        assert batch.native_fraction == 0.0
    import pickle

    copied = pickle.loads(pickle.dumps(batch))
    assert copied.native_fraction == batch.native_fraction
    batch.reset()
    assert batch.native_fraction == 0.0


def test_native_start_fraction_is_the_share_of_starts_the_kernel_wrote() -> None:
    # A start the kernel does not write goes through StepBatch._write. On the
    # native core no step of this play leaves the kernel (so every _write is a
    # start's): the fraction is what those calls leave of the starts (the
    # reset's and those of finished episodes).
    writes: List[int] = []
    original = StepBatch._write

    def counted(self: StepBatch, index: int, state: Any, oversize: bool = False) -> Any:
        writes.append(index)
        return original(self, index, state, oversize)

    def no_step(self: StepBatch, *args: Any) -> Any:
        pytest.fail("a step left the kernel")

    batch = StepBatch(PolySimplify(), 8, MathyEnvProblemArgs(MathyEnvDifficulty.easy))
    assert batch.native_start_fraction == 0.0  # no start yet
    rng = np.random.default_rng(3)
    native = CORE == "native"
    with contextlib.ExitStack() as patches:
        if native:
            patches.enter_context(mock.patch.object(StepBatch, "_write", counted))
            patches.enter_context(mock.patch.object(StepBatch, "_step", no_step))
        batch.reset(seed=3)
        starts = 8
        for _ in range(40):
            expected = (starts - len(writes)) / starts if native else 0.0
            assert batch.native_start_fraction == pytest.approx(expected)
            starts += int((batch.terminated | batch.truncated).sum())
            batch.step(sample_valid_actions(batch.masks, rng))
    assert starts > 8  # episodes ended and started again
    if CORE == "native":
        assert batch.native_start_fraction == 1.0
    else:
        assert batch.native_start_fraction == 0.0
    copied = copy.deepcopy(batch)
    assert copied.native_start_fraction == batch.native_start_fraction
    # With a method of the user's the kernel reproduces, no start is native.
    env = PolySimplify()
    env.get_win_signal = lambda env_state: 7.0  # type: ignore[method-assign]
    user = StepBatch(env, 2)
    user.reset(seed=1)
    assert user.native_reason is not None and user.native_start_fraction == 0.0


def test_native_reason_follows_the_env_as_it_changes() -> None:
    env = PolySimplify()
    batch = StepBatch(env, 2)
    batch.reset(seed=0)
    assert batch.native_reason == kernel_unavailable()
    env.get_win_signal = lambda env_state: 7.0  # type: ignore[method-assign]
    assert batch.native_reason == "the env has its own get_win_signal (set on the instance)"
    del env.get_win_signal
    env.goal_depends_on_history = True
    assert batch.native_reason == (
        "PolySimplify's goal depends on the history (goal_depends_on_history)"
    )
    env.goal_depends_on_history = False
    env.verbose = True
    assert batch.native_reason == "the env is verbose (it prints every step)"
    env.verbose = False
    assert batch.native_reason == kernel_unavailable()


class _GoalOfItsOwn(GoalEnv):
    namespace = "tests.goal.of.its.own"
    generator = staticmethod(poly_simplify_problem)

    def is_goal(self, env_state: MathyEnvState, expression: Any) -> bool:
        return False


def test_an_env_whose_goal_the_native_core_does_not_know_says_so() -> None:
    batch = StepBatch(_GoalOfItsOwn(), 2)
    batch.reset(seed=0)
    assert batch.native_reason == (
        "_GoalOfItsOwn's goal is not one the native core knows (its class declares no "
        "native_goal)"
    )
    batch.step(sample_valid_actions(batch.masks, np.random.default_rng(0)))
    assert batch.native_fraction == 0.0


class _ClaimsAGoal(PolySimplify):
    native_goal = "simplified"


class _CommuteGoalOfItsOwn(PolyCommuteLikeTerms):
    def is_goal(self, env_state: MathyEnvState, expression: Any) -> bool:
        return False


@pristine
class _RecordedClaim(PolyGroupLikeTerms):
    """Recorded as the library's classes are, and claiming their goal: still a
    class of the user's, whose own is_goal counts."""

    native_goal = PolyGroupLikeTerms.native_goal
    __module__ = PolyGroupLikeTerms.__module__

    def is_goal(self, env_state: MathyEnvState, expression: Any) -> bool:
        return False


def test_only_the_librarys_classes_declare_a_native_goal() -> None:
    batch = StepBatch(_ClaimsAGoal(), 2)
    assert batch.native_reason == (
        "_ClaimsAGoal declares native_goal, which only the library's env classes may"
    )
    penalize: Any = {"invalid_action_response": "penalize"}
    batch = StepBatch(_RecordedClaim(**penalize), 2)
    assert batch.native_reason == (
        "_RecordedClaim declares native_goal, which only the library's env classes may"
    )
    compared, _ = check_steps(batch, _RecordedClaim(**penalize), steps=10, seed=2)
    assert compared > 0 and batch.native_fraction == 0.0
    penalize: Any = {"invalid_action_response": "penalize"}
    batch = StepBatch(_CommuteGoalOfItsOwn(**penalize), 2)
    assert batch.native_reason == "_CommuteGoalOfItsOwn overrides is_goal"
    compared, _ = check_steps(batch, _CommuteGoalOfItsOwn(**penalize), steps=10, seed=2)
    assert compared > 0 and batch.native_fraction == 0.0


class _HaystackLosingItsWay(ENV_TASKS["poly-like-terms-haystack"]):  # type: ignore[misc, valid-type]
    def lose_at_distance(self, distance: int, largest: int) -> float:
        return -5.0


def test_a_lose_signal_of_your_own_is_yours() -> None:
    # The kernel reads PolyHaystackLikeTerms' lose signal as a table the env's
    # own method makes; a subclass's method sends the steps to get_next_state.
    penalize: Any = {"invalid_action_response": "penalize"}
    batch = StepBatch(_HaystackLosingItsWay(**penalize), 4)
    assert batch.native_reason == "_HaystackLosingItsWay overrides lose_at_distance"
    compared, ended = check_steps(batch, _HaystackLosingItsWay(**penalize), steps=10, seed=3)
    assert compared > 0 and ended > 0 and batch.native_fraction == 0.0


class _HaystackKeepingVerdicts(ENV_TASKS["poly-like-terms-haystack"]):  # type: ignore[misc, valid-type]
    goal_depends_on_history = False


class _HaystackStartingElsewhere(ENV_TASKS["poly-like-terms-haystack"]):  # type: ignore[misc, valid-type]
    # Start states whose history ends with another text (or, `empty`, holds
    # none): the env judges the first move against the history's last text.
    empty = False

    def fitting_initial_state(self, params: Any = None) -> Any:
        state, problem = super().fitting_initial_state(params)
        agent = state.agent
        history = [] if self.empty else [MathyEnvStateStep("x + y + x", (-1, -1))]
        state.agent = MathyAgentState(
            moves_remaining=agent.moves_remaining, problem=agent.problem,
            problem_type=agent.problem_type, history=history,
        )
        return state, problem


def test_a_haystack_goal_kept_by_expression_is_the_envs() -> None:
    penalize: Any = {"invalid_action_response": "penalize"}
    batch = StepBatch(_HaystackKeepingVerdicts(**penalize), 4)
    assert batch.native_reason == (
        "_HaystackKeepingVerdicts keeps its goal's verdicts by expression "
        "(goal_depends_on_history is False), which the native core does not"
    )
    compared, ended = check_steps(batch, _HaystackKeepingVerdicts(**penalize), steps=20, seed=3)
    assert compared > 0 and ended > 0 and batch.native_fraction == 0.0


def test_a_haystack_start_with_another_history_is_judged_by_the_env() -> None:
    penalize: Any = {"invalid_action_response": "penalize"}
    batch = StepBatch(_HaystackStartingElsewhere(**penalize), 6)
    compared, ended = check_steps(batch, _HaystackStartingElsewhere(**penalize), steps=30, seed=3)
    assert compared >= 100 and ended > 0
    if CORE == "native":
        # The first move of each episode is the env's; the second the kernel's.
        assert batch.native_reason is None and 0.2 < batch.native_fraction < 0.8
    # With no history at all, a first move at a like term is not a win.
    env = _HaystackStartingElsewhere()
    env.empty = True
    batch = StepBatch(env, 1)
    batch.reset(seed=3)
    state = batch.states[0]
    assert state.agent.history == []
    likes = like_term_indexes(env.parse(state.agent.problem).tree.to_list("inorder"))
    moves = [(rule, node) for rule, node in np.argwhere(env.valid_moves_array(state)) if node in likes]
    assert moves
    for rule, node in moves[:4]:
        probe = StepBatch(env, 1)
        probe.reset(seed=3)
        probe.step(np.array([int(rule) * env.max_seq_len + int(node)]))
        _, time_step, _ = env.get_next_state(state, (int(rule), int(node)))
        assert probe.rewards[0] == time_step.reward and not probe.won[0]


@pytest.mark.parametrize("task", ["poly-commute", "poly-grouping", "poly-like-terms-haystack"])
def test_the_goals_of_the_term_tasks_are_told_by_the_native_kernel(task: str) -> None:
    # PolyCommuteLikeTerms is won when factor out applies somewhere (the kernel
    # tells it from the new expression's mask), PolyGroupLikeTerms when like
    # terms are grouped (the native core's verdict), PolyHaystackLikeTerms when
    # the move acts at a term with a like term (told from the move; its lose
    # signal, which depends on the move's distance to one, from the env's own
    # table): their wins and losses are get_next_state's.
    penalize: Any = {"invalid_action_response": "penalize"}
    env_class = ENV_TASKS[task]
    batch = StepBatch(env_class(**penalize), 8)
    batch.reset(seed=4)
    assert batch.native_reason == kernel_unavailable()
    compared, ended = check_steps(batch, env_class(**penalize), steps=30, seed=4)
    assert compared >= 100 and ended > 0
    if CORE == "native":
        assert batch.native_fraction > 0.9


def test_the_pure_python_core_is_named_as_the_reason() -> None:
    code = (
        "from mathy_envs.batch import StepBatch\n"
        "from mathy_envs.envs import PolySimplify\n"
        "from mathy_envs._env.actions import sample_valid_actions\n"
        "import numpy as np\n"
        "batch = StepBatch(PolySimplify(), 4)\n"
        "batch.reset(seed=0)\n"
        "batch.step(sample_valid_actions(batch.masks, np.random.default_rng(0)))\n"
        "print(batch.native_reason)\n"
        "print(batch.native_fraction)\n"
    )
    result = run_python("-c", code, env={"MATHY_ENVS_CORE": "python"})
    assert result.returncode == 0, result.stderr
    reason, fraction = result.stdout.strip().splitlines()
    assert reason == (
        "the pure-Python core is in use (MATHY_ENVS_CORE=python)"
        if native_built()
        else "the native core is not built (the pure-Python core is in use)"
    )
    assert float(fraction) == 0.0


def test_an_episode_that_starts_on_a_revisit_shows_its_revisit_feature() -> None:
    # `fitting_initial_state` may be overridden and the steps stay native: a
    # start state whose history already holds its text twice is observed as
    # MathyGymEnv observes it (revisit feature 1/3), not as a first visit.
    class Resumed(PolySimplify):
        def fitting_initial_state(
            self, params: Optional[MathyEnvProblemArgs] = None
        ) -> Tuple[MathyEnvState, MathyEnvProblem]:
            state, problem = super().fitting_initial_state(params)
            again = state.get_out_state(
                state.agent.problem, (0, 0), state.agent.moves_remaining - 1
            )
            return again, problem

    env = Resumed()
    batch = StepBatch(env, 2)
    batch.reset(seed=0)
    for index in range(2):
        state = batch.states[index]
        assert [step.raw for step in state.agent.history][-2:] == [state.agent.problem] * 2
        observation, mask = expected_row(Resumed(), state)
        assert observation[3] > 0
        assert batch.observations[index].tobytes() == observation.tobytes()


def _arrays(batch: StepBatch) -> bytes:
    """Every array a batch step writes, as bytes."""
    names = ("observations", "masks", "rewards", "terminated", "truncated", "won", "valid", "oversize")
    return b"".join(getattr(batch, name).tobytes() for name in names)


@pytest.mark.parametrize("task", ["poly", "complex", "binomial", "poly-grouping"])
def test_threads_give_the_batch_one_thread_gives_byte_for_byte(task: str) -> None:
    batches = [
        StepBatch(ENV_TASKS[task](), 13, MathyEnvProblemArgs(MathyEnvDifficulty.normal), num_threads=threads)
        for threads in (1, 2, 5)
    ]
    for batch in batches:
        batch.reset(seed=29)
    rng = np.random.default_rng(29)
    for _ in range(40):
        actions = sample_valid_actions(batches[0].masks, rng)
        for batch in batches:
            batch.step(actions)
        first = _arrays(batches[0])
        assert all(_arrays(batch) == first for batch in batches[1:])
    if task == "poly" and CORE == "native":
        assert batches[1].native_fraction > 0.9
    states = [[snapshot(state) for state in batch.states] for batch in batches]
    assert states[1] == states[0] and states[2] == states[0]


def test_a_threaded_batch_step_is_get_next_state() -> None:
    env, reference = PolySimplify(invalid_action_response="penalize"), PolySimplify(
        invalid_action_response="penalize"
    )
    batch = StepBatch(env, 7, MathyEnvProblemArgs(MathyEnvDifficulty.normal), num_threads=3)
    compared, _ = check_steps(batch, reference, 15, seed=41)
    assert compared >= 90
    assert batch.native_fraction > 0.8 or CORE != "native"


def test_steps_not_read_in_between_make_the_states_get_next_state_makes() -> None:
    # The native steps' states are made when read: many steps, read once.
    env, reference = PolySimplify(), PolySimplify()
    batch = StepBatch(env, 4, MathyEnvProblemArgs(MathyEnvDifficulty.normal))
    batch.reset(seed=5)
    states = batch.states
    rng = np.random.default_rng(5)
    chosen: List[List[int]] = [[] for _ in range(4)]
    ended = [False] * 4
    for _ in range(9):
        actions = sample_valid_actions(batch.masks, rng)
        batch.step(actions)
        for index, action in enumerate(actions.tolist()):
            if not ended[index]:
                chosen[index].append(action)
            ended[index] = ended[index] or bool(batch.terminated[index] or batch.truncated[index])
    for index, state in enumerate(states):
        expected = state
        for action in chosen[index]:
            expected = reference.get_next_state(expected, divmod(action, env.max_seq_len))[0]
        if not ended[index]:
            assert snapshot(batch.states[index]) == snapshot(expected)


def test_a_start_while_the_native_steps_are_off_is_not_stepped_as_the_last_episode() -> None:
    # A reset while a scheme of the user's is in use, then the library's again:
    # the batch steps the new episode, not the one before the reset.
    env, reference = PolySimplify(), PolySimplify()
    batch = StepBatch(env, 2)
    batch.reset(seed=1)
    env.reward_scheme = Doubled()
    batch.reset(seed=7)
    starts = batch.states
    env.reward_scheme = RewardScheme()
    actions = np.array([int(np.flatnonzero(row)[0]) for row in batch.masks])
    batch.step(actions)
    for index, state in enumerate(starts):
        expected = reference.get_next_state(state, divmod(int(actions[index]), env.max_seq_len))[0]
        assert snapshot(batch.states[index]) == snapshot(expected)


def test_a_win_reward_changed_mid_episode_is_paid() -> None:
    win = EnvRewards.WIN

    def problem(rng: Any, params: Any) -> MathyEnvProblem:
        return MathyEnvProblem("2x + 3x", 5, "mathy.polynomials.simplify")

    env, reference = PolySimplify(generator=problem), PolySimplify(generator=problem)
    length = env.max_seq_len
    batch = StepBatch(env, 1)
    batch.reset(seed=0)
    try:
        batch.step(np.array([3 * length + 3]))  # factor out: (2 + 3) * x
        state = batch.states[0]
        EnvRewards.WIN = 0.25
        _, time_step, _ = reference.get_next_state(state, (0, 1))  # 5x: a win
        batch.step(np.array([0 * length + 1]))
    finally:
        EnvRewards.WIN = win
    assert bool(batch.won[0]) and batch.rewards[0] == time_step.reward


def test_a_reward_changed_from_zero_to_minus_zero_is_followed() -> None:
    unhelpful = EnvRewards.UNHELPFUL_MOVE
    env, reference = PolySimplify(), PolySimplify()
    batch = StepBatch(env, 8)
    batch.reset(seed=3)
    rng = np.random.default_rng(3)
    negative = 0
    try:
        EnvRewards.UNHELPFUL_MOVE = 0.0
        batch.step(sample_valid_actions(batch.masks, rng))
        EnvRewards.UNHELPFUL_MOVE = -0.0
        for _ in range(4):
            ended = batch.terminated | batch.truncated  # these episodes reset instead
            before = batch.states
            actions = sample_valid_actions(batch.masks, rng)
            batch.step(actions)
            for index in np.flatnonzero(~ended).tolist():
                move = divmod(int(actions[index]), env.max_seq_len)
                _, time_step, _ = reference.get_next_state(before[index], move)
                expected = np.float64(time_step.reward)
                negative += expected.tobytes() == np.float64(-0.0).tobytes()
                assert expected.tobytes() == batch.rewards[index].tobytes()
    finally:
        EnvRewards.UNHELPFUL_MOVE = unhelpful
    assert negative > 0  # some step was paid -0.0


def test_num_threads_is_read_only() -> None:
    batch = StepBatch(PolySimplify(), 2, num_threads=2)
    assert batch.num_threads == 2
    with pytest.raises(AttributeError):
        batch.num_threads = 0  # type: ignore[misc]
