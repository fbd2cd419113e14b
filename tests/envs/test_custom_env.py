"""A ninth environment, written entirely here the way a built-in one is written
(a `GoalEnv` subclass with its goal, and its generator as a plain function of a
`numpy.random.Generator` in the same file), played through everything a
built-in env gets: `MathyEnv` (start state, steps to a win along a path found by
a small search), the contract checker (`check_mathy_env`), the swarm planner, and
the Gymnasium adapter (`check_env`, an episode to a win, `register_envs` +
`gymnasium.make`).

Wins are judged with mathy_core's own `get_terms` and `is_preferred_term_form`
(`oracles`), not with the env's verdict alone.
"""

import pickle
import warnings
from typing import Dict, Iterator, List, Tuple

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from mathy_core import MathExpression, get_term_ex, get_terms, is_preferred_term_form
from oracles import parse, simplified
from search import shortest_win

import mathy_envs.gym as gym
from mathy_envs.checker import MathyEnvContractError, check_mathy_env
from mathy_envs.envs import ENV_TASKS, GoalEnv
from mathy_envs.rewards import RewardScheme
from mathy_envs.problems import GeneratedProblem, rand_templates, rand_term, retry
from mathy_envs.state import MathyEnvState
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import (
    ActionType,
    EnvRewards,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)

TERM_COUNTS = {
    MathyEnvDifficulty.easy: 2,
    MathyEnvDifficulty.normal: 3,
    MathyEnvDifficulty.hard: 4,
}
TASK = "test-one-term"
IDS = [f"mathy-{TASK}-{d.value}-v0" for d in MathyEnvDifficulty]


# -- the ninth env: its file would hold exactly this -------------------------------


def one_term(expression: MathExpression) -> bool:
    """A single term in preferred form (`6x`, `9y^2`; not `(4 + 2) * x`)."""
    terms = get_terms(expression)
    return len(terms) == 1 and bool(is_preferred_term_form(terms[0]))


class OneTerm(GoalEnv):
    """Make a sum of like terms a single term.

    ## Description
    A sum of 2 (easy), 3 (normal) or 4 (hard) like terms, each with a
    coefficient, such as `4x + 2x`, to be combined into one term (`6x`).

    ## Action Space
    As for every `GoalEnv`.

    ## Observation Space
    As for every `GoalEnv`.

    ## Rewards
    The win signal on reaching one term; otherwise the `MathyEnv` rewards.

    ## Starting State
    `like_terms_sum` (in this file). Complexity is the number of terms.

    ## Episode End
    Won on a single term in preferred form; lost after `complexity * 4` moves.

    ## Arguments
    Every `MathyEnv` keyword.
    """

    def get_env_namespace(self) -> str:
        return "mathy.test.one_term"

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        return one_term(expression)

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        text, complexity = like_terms_sum(self.np_random, TERM_COUNTS[params.difficulty])
        return MathyEnvProblem(text, complexity, self.get_env_namespace())


def like_terms_sum(rng: np.random.Generator, num_terms: int) -> GeneratedProblem:
    """`num_terms` like terms, each with a coefficient: `4x + 2x + 7x`.
    Complexity: `num_terms`."""
    if num_terms < 2:
        raise ValueError(f"num_terms must be at least 2, got {num_terms}")

    def build() -> GeneratedProblem:
        kind = rand_templates(rng, 1, common=True)[0]
        terms = [rand_term(rng, kind, coefficient_probability=1.0) for _ in range(num_terms)]
        return GeneratedProblem(" + ".join(terms), num_terms)

    return retry(build, lambda parsed: one_term(parsed.tree), "like_terms_sum")


# -- helpers -------------------------------------------------------------------------


def sample(seed: int, count: int, num_terms: int) -> List[Tuple[str, int]]:
    rng = np.random.default_rng(seed)
    return [tuple(like_terms_sum(rng, num_terms)) for _ in range(count)]  # type: ignore[misc]


def won(text: str) -> bool:
    """The goal, from mathy_core alone: one term, no like terms left."""
    tree = parse(text)
    return len(get_terms(tree)) == 1 and simplified(tree)


def play(env: OneTerm, state: MathyEnvState, actions: List[ActionType]) -> MathyEnvState:
    """Replay `actions` with `get_next_state`; only the last step may end the
    episode, and it must be a win."""
    for index, action in enumerate(actions):
        state, step, _ = env.get_next_state(state, action)
        last = index == len(actions) - 1
        assert is_terminal_transition(step) == last, (state.agent.problem, action)
        if last:
            assert won(state.agent.problem), state.agent.problem
            assert step.reward == env.get_win_signal(state) > EnvRewards.WIN
        else:
            assert not won(state.agent.problem), state.agent.problem
    return state


# -- the generator ---------------------------------------------------------------------


@pytest.mark.parametrize("num_terms", [2, 3, 4, 6])
def test_generator_is_a_plain_seeded_function(num_terms: int) -> None:
    first = sample(3, 20, num_terms)
    assert sample(3, 20, num_terms) == first
    assert sample(4, 20, num_terms) != first
    for text, complexity in first:
        terms = get_terms(parse(text))
        assert complexity == len(terms) == num_terms, text
        kinds = {(t.variable, t.exponent) for t in map(get_term_ex, terms) if t}
        assert len(kinds) == 1, text
        assert all(get_term_ex(t).coefficient is not None for t in terms), text  # type: ignore[union-attr]
        assert not won(text), text
    with pytest.raises(ValueError):
        like_terms_sum(np.random.default_rng(0), 1)


# -- through MathyEnv ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", list(MathyEnvDifficulty), ids=lambda d: d.value)
def test_plays_to_a_win_through_mathy_env(difficulty: MathyEnvDifficulty) -> None:
    env = OneTerm(seed=11)
    args = MathyEnvProblemArgs(difficulty)
    for _ in range(5):
        state, problem = env.get_initial_state(args)
        assert problem.type == "mathy.test.one_term" == state.agent.problem_type
        assert problem.complexity == TERM_COUNTS[difficulty]
        assert state.max_moves == problem.complexity * 4
        assert not is_terminal_transition(env.get_state_transition(state))
        result = shortest_win(env, state)
        assert result.won, problem
        # every pair of like terms takes two moves: factor out, add the constants
        assert result.moves == 2 * (problem.complexity - 1), problem
        end = play(env, state, result.actions)
        env.finalize_state(end)  # the value never changed


def test_hand_made_path() -> None:
    env = OneTerm()
    state = env.state_from_text("4x + 2x", max_moves=4)
    # in-order nodes: 4 * x + 2 * x; factor out at the `+` (3), then add at (1)
    middle, step, _ = env.get_next_state(state, (3, 3))
    assert middle.agent.problem == "(4 + 2) * x"
    assert not is_terminal_transition(step)
    play(env, middle, [(0, 1)])


# -- through the contract checker -------------------------------------------------------------


def test_passes_check_mathy_env() -> None:
    check_mathy_env(OneTerm())
    check_mathy_env(OneTerm(max_seq_len=32, seed=3), seed=9, episodes=6)


def test_check_mathy_env_catches_a_broken_one_term() -> None:
    class Unsimplified(OneTerm):
        """Its generator forgot to reject problems that are already won."""

        def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
            return MathyEnvProblem("6x", 1, self.get_env_namespace())

    with pytest.raises(MathyEnvContractError, match="rule 'start-not-over'"):
        check_mathy_env(Unsimplified())


def test_composes_at_construction() -> None:
    """`reward_scheme=` and `generator=` work for an env written outside the
    library too."""

    class Flat(RewardScheme):
        def rule_used(self, env, state, features):  # type: ignore[no-untyped-def]
            return None

    def fixed(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("4x + 2x", 2, "mathy.test.fixed")

    env = OneTerm(reward_scheme=Flat(), generator=fixed)
    state, problem = env.get_initial_state()
    assert problem.text == state.agent.problem == "4x + 2x"
    # factor out (rule 3) is a helpful move by default, a plain time step here
    _, step, _ = env.get_next_state(state, (3, 3))
    assert step.reward == EnvRewards.TIMESTEP
    check_mathy_env(env)


# -- through the swarm planner ----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_swarm_solves_seeded_problems(seed: int) -> None:
    env = OneTerm(seed=seed)
    state, problem = env.get_initial_state(MathyEnvProblemArgs(MathyEnvDifficulty.normal))
    solution = swarm_solve(problem.text, SwarmConfig(seed=seed), env)
    assert solution.solved, problem
    assert won(solution.states[-1].agent.problem)
    play(env, env.state_from_text(problem.text, max_moves=state.max_moves), solution.actions)


# -- through the Gymnasium adapter -------------------------------------------------------------


@pytest.mark.parametrize("obs_type", ["flat", "graph", "hierarchical", "message_passing"])
def test_gym_adapter_passes_check_env(obs_type: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # without gymnasium.make there is no spec to test other render modes with
        check_env(gym.MathyGymEnv(OneTerm, obs_type=obs_type), skip_render_check=True)


@pytest.mark.parametrize("difficulty", list(MathyEnvDifficulty), ids=lambda d: d.value)
def test_gym_episode_to_a_win(difficulty: MathyEnvDifficulty) -> None:
    env = gym.MathyGymEnv(OneTerm, env_problem_args=MathyEnvProblemArgs(difficulty))
    obs, info = env.reset(seed=5)
    assert env.state is not None
    result = shortest_win(env.mathy, env.state)
    assert result.won
    for index, (rule, node) in enumerate(result.actions):
        action = rule * env.mathy.max_seq_len + node
        assert info["action_mask"][action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        if index < len(result.actions) - 1:
            assert not (terminated or truncated)
    assert terminated and not truncated and info["win"]
    assert reward == pytest.approx(env.mathy.get_win_signal(env.state))
    assert won(env.state.agent.problem)


@pytest.fixture
def registered() -> Iterator[List[str]]:
    """`register_envs({TASK: OneTerm})`, and the registry as it was afterwards."""
    before = set(gymnasium.registry)
    assert not before & set(IDS)
    try:
        yield gym.register_envs({TASK: OneTerm})
    finally:
        for env_id in IDS:
            gymnasium.registry.pop(env_id, None)
    assert set(gymnasium.registry) == before


def test_register_envs_and_make(registered: List[str]) -> None:
    assert registered == IDS
    assert not set(IDS) & set(gym.GYM_ENV_IDS)  # the built-in ids stay built-in
    assert TASK not in ENV_TASKS
    for difficulty, env_id in zip(MathyEnvDifficulty, IDS):
        spec = gymnasium.spec(env_id)
        assert spec.entry_point == "mathy_envs.gym.env:MathyGymEnv"
        assert spec.kwargs["env_class"] is OneTerm
        assert spec.kwargs["env_problem_args"] == MathyEnvProblemArgs(difficulty)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            made = gymnasium.make(env_id, max_seq_len=64)
            check_env(made.unwrapped)
        env = made.unwrapped
        assert isinstance(env, gym.MathyGymEnv)
        assert type(env.mathy) is OneTerm and env.mathy.max_seq_len == 64
        assert env.env_problem_args == MathyEnvProblemArgs(difficulty)
        obs, info = env.reset(seed=1)
        assert env.state is not None
        assert len(get_terms(parse(env.state.agent.problem))) == TERM_COUNTS[difficulty]
        clone = pickle.loads(pickle.dumps(made))  # the spec holds the class: it pickles
        assert type(clone.unwrapped.mathy) is OneTerm
        made.close()
    # gymnasium.make's keywords override the registered ones
    hard = gymnasium.make(IDS[0], env_problem_args=MathyEnvProblemArgs("hard"))
    assert hard.unwrapped.env_problem_args.difficulty is MathyEnvDifficulty.hard
    # registering again leaves the ids alone, quietly
    spec = gymnasium.spec(IDS[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gym.register_envs({TASK: OneTerm}) == IDS
    assert gymnasium.spec(IDS[0]) is spec


def test_factories_build_the_same_envs() -> None:
    factories: Dict[str, gym.GymEnvFactory] = gym.gym_env_factories({TASK: OneTerm})
    assert list(factories) == IDS
    factory = factories[IDS[1]]
    env = factory(obs_type="graph")
    assert type(env.mathy) is OneTerm and env.obs_type.value == "graph"
    assert env.env_problem_args == MathyEnvProblemArgs(MathyEnvDifficulty.normal)
    assert factory().env_problem_args is not env.env_problem_args  # never shared
    assert pickle.loads(pickle.dumps(factory)) == factory
    with pytest.raises(ValueError, match="MathyEnv subclass"):
        gym.gym_env_factories({"nope": dict})  # type: ignore[dict-item]


def test_register_envs_replaces_only_an_earlier_copy_of_the_same_class() -> None:
    """An id stays with the class it was registered for, unless that class is an
    earlier copy of the one registered now (its module was imported again)."""
    earlier = type(
        "OneTerm",
        (GoalEnv,),
        {
            "__module__": OneTerm.__module__,
            "get_env_namespace": OneTerm.get_env_namespace,
            "problem_fn": OneTerm.problem_fn,
        },
    )
    earlier.__qualname__ = OneTerm.__qualname__
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            gym.register_envs({TASK: earlier})
            assert gymnasium.spec(IDS[0]).kwargs["env_class"] is earlier
            gym.register_envs({TASK: OneTerm})  # the same class, imported again
            assert gymnasium.spec(IDS[0]).kwargs["env_class"] is OneTerm
            gym.register_envs({TASK: PolyLike})  # another class: left alone
            assert gymnasium.spec(IDS[0]).kwargs["env_class"] is OneTerm
    finally:
        for env_id in IDS:
            gymnasium.registry.pop(env_id, None)


class PolyLike(OneTerm):
    """Another class for the same task name."""
