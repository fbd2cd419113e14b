"""`TextEpisode`: scripted players. The swarm's solutions, replied move by move,
win with the env's own rewards; random valid moves are the env's own steps; a
refused reply is an invalid move."""

from typing import Any

import numpy as np
import pytest
from helpers import ENV_DIFFICULTY_CASES, HOSTILE_REPLIES, snapshot, time_limit

from mathy_envs.envs import ENV_TASKS, PolySimplify
from mathy_envs.gym import MathyGymEnv
from mathy_envs.rewards import RewardScheme
from mathy_envs.expert import without_loops
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs.text import ACCEPTED, CHOOSE, MALFORMED, NOT_ONE_MOVE, REWRITE, TextEpisode, text_moves
from mathy_envs.time_step import is_terminal_transition, termination
from mathy_envs.types import EnvRewards, MathyEnvDifficulty, MathyEnvProblemArgs


@pytest.mark.parametrize("mode", [REWRITE, CHOOSE])
@pytest.mark.parametrize("task", list(ENV_TASKS))
def test_the_swarms_solutions_replied_move_by_move_win(task: str, mode: str) -> None:
    env, reference = ENV_TASKS[task](), ENV_TASKS[task]()
    episode = TextEpisode(env, mode=mode)
    won = 0
    for seed in range(3):
        episode.reset(seed=seed)
        start = episode.state
        assert start is not None
        planned = swarm_solve(start, SwarmConfig(seed=seed), reference)
        if not planned.solved:
            continue
        # The planner may take a move that leaves the text as it is, which is
        # no step of a text episode: the solution without its loops.
        actions = without_loops(reference, start, planned.actions)
        state = start
        for position, action in enumerate(actions):
            expected, time_step, _ = reference.get_next_state(state, action)
            if mode == REWRITE:
                reply = f"I apply one rule.\n{expected.agent.problem}"
            else:
                number = next(m.number for m in episode.moves if m.action == tuple(action))
                reply = f"Move {number}"
            step = episode.step(reply)
            assert step.verdict.kind == ACCEPTED, step.verdict
            # The same expression (another move may give it in rewrite mode).
            assert episode.state is not None
            assert episode.state.agent.problem == expected.agent.problem
            assert step.reward == pytest.approx(time_step.reward)
            assert step.done == (position == len(actions) - 1)
            state = expected
        assert step.won and step.done
        won += 1
    assert won >= 2


@pytest.mark.parametrize("task,difficulty", ENV_DIFFICULTY_CASES)
def test_random_valid_moves_are_the_envs_own_steps(task: str, difficulty: MathyEnvDifficulty) -> None:
    env, reference = ENV_TASKS[task](seed=4), ENV_TASKS[task]()
    episode = TextEpisode(env, mode=CHOOSE, params=MathyEnvProblemArgs(difficulty))
    rng = np.random.default_rng(4)
    episode.reset(seed=4)
    state = episode.state
    assert state is not None
    for _ in range(12):
        moves = episode.moves
        if not moves:
            break
        # Every valid move but those that leave the text as it is.
        assert [m.action for m in moves] == [
            move
            for move in (tuple(map(int, a)) for a in np.argwhere(reference.valid_moves_array(state)))
            if reference.get_next_state(state, move)[0].agent.problem != state.agent.problem
        ]
        move = moves[int(rng.integers(len(moves)))]
        step = episode.step(str(move.number))
        expected, time_step, _ = reference.get_next_state(state, move.action)
        assert episode.state is not None
        assert snapshot(episode.state) == snapshot(expected)
        assert step.reward == time_step.reward
        terminal = is_terminal_transition(time_step)
        assert step.done == (terminal or expected.agent.moves_remaining <= 0)
        state = expected
        if step.done:
            break


def test_a_refused_reply_is_an_invalid_move() -> None:
    episode = TextEpisode(PolySimplify())  # the env raises on invalid actions
    prompt = episode.reset(problem="4x + 2y + 3x", max_moves=2)
    assert "Expression: 4x + 2y + 3x" in prompt and "Moves left: 2" in prompt
    step = episode.step("no idea")
    assert step.verdict.kind == MALFORMED and not step.done
    assert step.reward == EnvRewards.INVALID_MOVE
    assert episode.state is not None
    assert episode.state.agent.problem == "4x + 2y + 3x"
    assert episode.state.agent.moves_remaining == 1
    assert "Moves left: 1" in step.prompt
    last = episode.step("2y + 8x")
    assert last.done and not last.won and last.reward == EnvRewards.LOSE
    with pytest.raises(ValueError, match="the episode is over"):
        episode.step("1")


def test_prompts_list_the_moves_with_their_results() -> None:
    env = PolySimplify()
    episode = TextEpisode(env)
    prompt = episode.reset(problem="4x + 2y + 3x")
    state = env.state_from_text("4x + 2y + 3x")
    for move in text_moves(env, state):
        assert move.line() in prompt
    # Without the subexpressions (all a reply's reading needs): the same moves.
    bare = text_moves(env, state, describe=False)
    assert [m._replace(where="") for m in text_moves(env, state)] == list(bare)
    assert all(m.where == "" for m in bare)
    assert prompt.startswith("Task: Simplify a polynomial by combining its like terms.")
    quiet = TextEpisode(env, list_moves=False).reset(problem="4x + 2y + 3x")
    assert "Valid moves" not in quiet and "->" not in quiet


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"env": "poly"}, "env must be a MathyEnv"),
        ({"mode": "guess"}, "mode must be one of"),
        ({"list_moves": 1}, "list_moves must be a bool"),
        ({"params": "easy"}, "params must be"),
    ],
)
def test_bad_arguments_are_value_errors(kwargs: Any, message: str) -> None:
    arguments = {"env": PolySimplify(), **kwargs}
    with pytest.raises(ValueError, match=message):
        TextEpisode(**arguments)


def test_step_before_reset_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="call reset"):
        TextEpisode(PolySimplify()).step("1")


@pytest.mark.parametrize("mode", ["rewrite", "choose"])
def test_every_hostile_reply_is_an_invalid_move_judged_in_linear_time(mode: str) -> None:
    episode = TextEpisode(PolySimplify(invalid_action_response="penalize"), mode=mode)
    episode.reset(problem="4x + 2y + 3x", max_moves=len(HOSTILE_REPLIES) + 1)
    for name, reply in HOSTILE_REPLIES.items():
        with time_limit(5.0):  # linear: milliseconds; quadratic: minutes
            step = episode.step(reply)
        assert not step.verdict.accepted and not step.done, name
        assert step.reward == EnvRewards.INVALID_MOVE


def test_a_refused_reply_is_scored_without_the_envs_private_parts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The invalid move's observation is built from the env's public methods.
    def private(*args: Any) -> Any:
        raise AssertionError("TextEpisode read MathyEnv._features")

    monkeypatch.setattr(PolySimplify, "_features", private, raising=False)
    episode = TextEpisode(PolySimplify(), mode=REWRITE)
    episode.reset(problem="4x + 2y + 3x")
    step = episode.step("not an expression at all")
    assert not step.verdict.accepted and step.reward == EnvRewards.INVALID_MOVE


class _PaysForOversize(RewardScheme):
    """A user's scheme: outgrowing max_seq_len ends the episode with a prize."""

    def oversize(self, env: Any, state: Any, features: Any) -> Any:
        step = super().oversize(env, state, features)
        return None if step is None else termination(features, 5.0)


def test_an_expression_that_outgrew_the_env_is_no_win_as_in_the_gym_env() -> None:
    # "2(x + y) + x" (7 nodes) distributed is "2x + 2y + x" (9 nodes): with
    # max_seq_len=7 the step ends the episode; its positive reward is no win,
    # as MathyGymEnv's info["win"] says.
    env = PolySimplify(max_seq_len=7, reward_scheme=_PaysForOversize())
    episode = TextEpisode(env, mode=REWRITE)
    episode.reset(problem="2(x + y) + x", max_moves=10)
    state = episode.state
    assert state is not None
    grown = next(text for text in env.move_results(state).values() if env.node_count(text) > 7)
    step = episode.step(f"I distribute.\n{grown}")
    assert step.verdict.accepted and step.done and step.reward == 5.0
    assert not step.won
    gym = MathyGymEnv(
        PolySimplify, env_problem="2(x + y) + x", max_seq_len=7, reward_scheme=_PaysForOversize()
    )
    gym.reset(seed=0)
    move = next(move for move, text in env.move_results(state).items() if text == grown)
    _, reward, terminated, _, info = gym.step(move[0] * 7 + move[1])
    assert terminated and reward == 5.0 and not info["win"]


def test_a_reply_may_write_what_up_to_steps_per_line_moves_give() -> None:
    env, reference = PolySimplify(), PolySimplify()
    episode = TextEpisode(env, steps_per_line=3)
    prompt = episode.reset(problem="4x + 2y + 3x")
    assert "at most 3 valid moves" in prompt
    # Three moves (swap, factor, add) written at once: each is taken with its
    # reward and its share of the budget.
    step = episode.step("Combining the x terms: 2y + 7x")
    assert step.verdict.kind == ACCEPTED and step.verdict.expression == "2y + 7x"
    assert step.done and step.won
    state = reference.state_from_text("4x + 2y + 3x")
    total = 0.0
    for action in (
        next(m.action for m in text_moves(reference, state) if m.result == "2y + 4x + 3x"),
    ):
        state, time_step, _ = reference.get_next_state(state, action)
        total += time_step.reward
    for result in ("2y + (4 + 3) * x", "2y + 7x"):
        action = next(m.action for m in text_moves(reference, state) if m.result == result)
        state, time_step, _ = reference.get_next_state(state, action)
        total += time_step.reward
    assert step.reward == pytest.approx(total)
    assert episode.state is not None
    assert episode.state.agent.moves_remaining == state.agent.moves_remaining
    # More moves than that: refused, as not one move.
    too_far = TextEpisode(PolySimplify(), steps_per_line=2)
    too_far.reset(problem="4x + 2y + 3x")
    refused = too_far.step("2y + 7x")
    assert refused.verdict.kind == NOT_ONE_MOVE and "steps_per_line=2" in refused.verdict.reason
    with pytest.raises(ValueError, match="must be an int for a TextEpisode"):
        TextEpisode(PolySimplify(), steps_per_line=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="steps_per_line must be"):
        TextEpisode(PolySimplify(), steps_per_line=7)
