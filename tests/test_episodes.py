"""`mathy_envs.episodes.random_episode`: masked random play to the end of an
episode, checked against an independent loop and by replaying what it records."""

import io
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest
from mathy_core import ExpressionParser

from mathy_envs import MathyEnv, MathyEnvState
from mathy_envs.cli import main
from mathy_envs.envs import ENV_TASKS, PolyCommuteLikeTerms, PolySimplify
from mathy_envs.episodes import RandomEpisode, Transition, random_episode
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import ActionType, MathyEnvDifficulty, MathyEnvProblemArgs

from helpers import snapshot, valid_actions


def starts(env: MathyEnv, count: int, difficulty: str = "easy") -> List[MathyEnvState]:
    args = MathyEnvProblemArgs(MathyEnvDifficulty(difficulty))
    return [env.get_initial_state(args, print_problem=False)[0] for _ in range(count)]


def least_visited_actions(env: MathyEnv, state: MathyEnvState) -> List[ActionType]:
    """The valid actions whose result (made by `get_next_state`) the state's
    history holds least often, in the same order."""
    history = [step.raw for step in state.agent.history]
    choices = valid_actions(env, state)
    counts = [history.count(env.get_next_state(state, a)[0].agent.problem) for a in choices]
    return [a for a, count in zip(choices, counts) if count == min(counts)]


def independent_play(
    env: MathyEnv,
    state: MathyEnvState,
    rng: np.random.Generator,
    mask_revisits: bool = False,
) -> Tuple[List[ActionType], MathyEnvState, float]:
    """The documented contract written out: one draw per step, uniform over the
    valid `(rule, node)` pairs listed rule by rule, left to right (with
    `mask_revisits`, those to the least visited results)."""
    actions: List[ActionType] = []
    total = 0.0
    while True:
        choices = (least_visited_actions if mask_revisits else valid_actions)(env, state)
        if not choices:
            return actions, state, total
        action = choices[int(rng.integers(len(choices)))]
        actions.append(action)
        state, step, _ = env.get_next_state(state, action)
        total += step.reward
        if is_terminal_transition(step):
            return actions, state, total


@pytest.mark.parametrize("task", list(ENV_TASKS))
def test_plays_the_documented_random_agent(task: str) -> None:
    """Every env: the same actions, final state and total reward as the
    contract's own loop with the same seed, and the fields agree with the final
    state's history."""
    env = ENV_TASKS[task](seed=5)
    for index, start in enumerate(starts(env, 4, "normal")):
        episode = random_episode(env, start, np.random.default_rng([5, index]))
        actions, final, total = independent_play(env, start, np.random.default_rng([5, index]))
        assert isinstance(episode, RandomEpisode)
        assert episode.state == final
        assert [tuple(past.action) for past in episode.state.agent.history[1:]] == actions
        assert episode.steps == len(actions) == len(final.agent.history) - 1
        assert episode.reward == pytest.approx(total)
        assert episode.transitions is None
        assert episode.done
        assert episode.won == (env.get_state_transition(final).reward > 0)


@pytest.mark.parametrize("task", ["poly-commute", "poly-grouping", "complex"])
def test_mask_revisits_plays_among_the_moves_to_the_least_visited_results(task: str) -> None:
    env = ENV_TASKS[task](seed=6)
    for index, start in enumerate(starts(env, 4, "easy")):
        episode = random_episode(env, start, np.random.default_rng(index), mask_revisits=True)
        actions, final, total = independent_play(
            env, start, np.random.default_rng(index), mask_revisits=True
        )
        assert episode.state == final and episode.reward == pytest.approx(total)
        assert [tuple(past.action) for past in final.agent.history[1:]] == actions


def test_recorded_transitions_replay_to_the_same_episode() -> None:
    """`record=True` gives every step (the state it was taken in, a valid action,
    its time step) and replaying them with `get_next_state` reaches the same
    states; the totals match the recorded time steps."""
    env = PolySimplify(seed=2)
    for index, start in enumerate(starts(env, 5)):
        episode = random_episode(env, start, np.random.default_rng(index), record=True)
        plain = random_episode(env, start, np.random.default_rng(index))
        assert episode[:5] == plain[:5]
        assert episode.transitions is not None
        assert len(episode.transitions) == episode.steps
        state = start
        for step in episode.transitions:
            assert isinstance(step, Transition)
            assert step.state == state
            assert step.action in valid_actions(env, state)
            state, time_step, _ = env.get_next_state(state, step.action)
            assert time_step.reward == step.time_step.reward
            assert is_terminal_transition(time_step) == is_terminal_transition(step.time_step)
        assert state == episode.state
        assert [is_terminal_transition(s.time_step) for s in episode.transitions] == (
            [False] * (episode.steps - 1) + [True]
        )
        assert episode.reward == pytest.approx(sum(s.time_step.reward for s in episode.transitions))
        assert episode.won == (episode.transitions[-1].time_step.reward > 0)


def test_same_seed_same_episode_and_the_start_is_unchanged() -> None:
    env = PolySimplify(seed=8)
    [start] = starts(env, 1, "hard")
    before = snapshot(start)
    first = random_episode(env, start, np.random.default_rng(3))
    second = random_episode(env, start, np.random.default_rng(3))
    assert snapshot(first.state) == snapshot(second.state)
    assert first[1:] == second[1:]
    assert snapshot(start) == before


def test_wins_and_losses_both_happen() -> None:
    """On easy PolyCommuteLikeTerms random play wins about 60% of episodes: over
    40 seeded episodes there are wins (positive last reward) and losses."""
    env = PolyCommuteLikeTerms(seed=0)
    outcomes = [
        random_episode(env, start, np.random.default_rng(i), record=True)
        for i, start in enumerate(starts(env, 40))
    ]
    assert all(episode.done for episode in outcomes)
    won = [episode for episode in outcomes if episode.won]
    assert 0 < len(won) < len(outcomes)
    for episode in outcomes:
        assert episode.transitions is not None
        assert (episode.transitions[-1].time_step.reward > 0) == episode.won


def test_max_steps_stops_early_on_the_same_path() -> None:
    env = PolySimplify(seed=4)
    [start] = starts(env, 1, "hard")
    whole = random_episode(env, start, np.random.default_rng(9), record=True)
    assert whole.steps > 3 and whole.transitions is not None
    part = random_episode(env, start, np.random.default_rng(9), max_steps=3, record=True)
    assert part.steps == 3 and not part.done and not part.won
    assert part.transitions == whole.transitions[:3]
    assert part.state == whole.transitions[3].state
    assert part.reward == pytest.approx(sum(s.time_step.reward for s in whole.transitions[:3]))
    assert random_episode(env, start, np.random.default_rng(9), max_steps=whole.steps + 5)[1:5] == (
        whole[1:5]
    )
    none = random_episode(env, start, np.random.default_rng(9), max_steps=0, record=True)
    assert none == RandomEpisode(start, False, 0.0, 0, False, ())


@pytest.mark.parametrize("text, won", [("6x + 2y", True), ("x", True)])
def test_a_start_that_already_ends_the_episode_is_returned_as_it_is(
    text: str, won: bool
) -> None:
    """A problem already in its goal form is done before any step (won, with
    nothing played), as `swarm_solve` treats it; no action is drawn."""
    env = PolySimplify()
    state = env.state_from_text(text, max_moves=10)
    rng = np.random.default_rng(1)
    episode = random_episode(env, state, rng, record=True)
    assert episode == RandomEpisode(state, won, 0.0, 0, True, ())
    assert rng.integers(1000) == np.random.default_rng(1).integers(1000)


def test_a_state_with_no_valid_action_stops_play() -> None:
    """A state that does not end the episode but offers no valid action (here:
    an env whose only rule never applies) stops play: not done, not won."""
    from mathy_core.rules import VariableMultiplyRule

    env = PolySimplify(rules=[VariableMultiplyRule()])
    state = env.state_from_text("4x + 2y + 2x", max_moves=10)
    assert not is_terminal_transition(env.get_state_transition(state))
    assert not env.valid_moves_array(state).any()
    episode = random_episode(env, state, np.random.default_rng(0))
    assert episode == RandomEpisode(state, False, 0.0, 0, False, None)


def test_env_np_random_plays_as_env_random_action_does() -> None:
    """With `env.np_random` as the generator, the episode is the one
    `env.random_action` plays from the same seed (the Home page's example)."""
    played = PolySimplify(seed=3)
    start, _ = played.get_initial_state(print_problem=False)
    episode = random_episode(played, start, played.np_random)

    stepped = PolySimplify(seed=3)
    state, _ = stepped.get_initial_state(print_problem=False)
    while True:
        action = stepped.random_action(ExpressionParser().parse(state.agent.problem))
        state, step, _ = stepped.get_next_state(state, action)
        if is_terminal_transition(step):
            break
    assert snapshot(episode.state) == snapshot(state)


def test_the_cli_random_agent_is_random_episode() -> None:
    """`mathy-envs run --agent random` reports the wins, mean reward and steps of
    `random_episode` on the same problems with the same generator."""
    out = io.StringIO()
    assert main(["run", "poly", "--episodes", "6", "--seed", "7"], out) == 0
    summary = {}
    for line in out.getvalue().splitlines():
        key, _, value = line.rpartition("  ")
        summary[key.strip()] = value.strip()
    env = PolySimplify(seed=7)
    rng = np.random.default_rng(7)
    episodes = [random_episode(env, start, rng) for start in starts(env, 6)]
    assert summary["win rate"] == f"{sum(e.won for e in episodes) / 6:.3f}"
    assert summary["mean reward"] == f"{sum(e.reward for e in episodes) / 6:+.3f}"
    assert summary["steps"] == str(sum(e.steps for e in episodes))


BAD_ARGUMENTS: List[Tuple[str, Dict[str, Any], str]] = [
    ("env", {"env": None}, "env must be a MathyEnv"),
    ("env class", {"env": PolySimplify}, "env must be a MathyEnv"),
    ("state text", {"state": "4x + 2x"}, "expected a MathyEnvState"),
    ("legacy rng", {"rng": np.random.RandomState(0)}, "rng must be a numpy.random.Generator"),
    ("seed as rng", {"rng": 0}, "rng must be a numpy.random.Generator"),
    ("negative max_steps", {"max_steps": -1}, "max_steps must be None or a non-negative int"),
    ("float max_steps", {"max_steps": 2.5}, "max_steps must be None or a non-negative int"),
    ("bool max_steps", {"max_steps": True}, "max_steps must be None or a non-negative int"),
    ("text max_steps", {"max_steps": "3"}, "max_steps must be None or a non-negative int"),
    ("text record", {"record": "yes"}, "record must be True or False"),
    ("int record", {"record": 1}, "record must be True or False"),
    ("text mask_revisits", {"mask_revisits": "no"}, "mask_revisits must be True or False"),
]


@pytest.mark.parametrize(
    "overrides, message", [case[1:] for case in BAD_ARGUMENTS], ids=[c[0] for c in BAD_ARGUMENTS]
)
def test_bad_arguments_are_value_errors(overrides: Dict[str, Any], message: str) -> None:
    env = PolySimplify()
    arguments: Dict[str, Any] = {
        "env": env,
        "state": env.state_from_text("4x + 2x", max_moves=5),
        "rng": np.random.default_rng(0),
        **overrides,
    }
    with pytest.raises(ValueError, match=message):
        random_episode(**arguments)


def test_numpy_integers_are_accepted_as_max_steps() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 2x", max_moves=10)
    episode = random_episode(env, state, np.random.default_rng(0), max_steps=np.int64(1))
    assert episode.steps == 1
