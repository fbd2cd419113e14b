"""Swarm planning: `swarm_solve`, `SwarmConfig`, `relativize`.

Every solution is checked by replaying its actions with `env.get_next_state` from
the start state, not by trusting the planner's own bookkeeping.
"""

import time
from typing import Dict, List, Optional, Tuple, Type

import numpy as np
import pytest
from mathy_core import ConstantExpression, MathExpression
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
)

from mathy_envs import MathyEnv, MathyEnvState
from mathy_envs.envs import ENV_TASKS, BinomialDistribute, ComplexSimplify, PolySimplify
from mathy_envs.observations import MathyObservation
from mathy_envs.swarm import SwarmConfig, SwarmSolution, relativize, swarm_solve
from mathy_envs.time_step import TimeStep, is_terminal_transition, termination
from mathy_envs.types import (
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)

EASY = MathyEnvProblemArgs(MathyEnvDifficulty.easy)
HARD = MathyEnvProblemArgs(MathyEnvDifficulty.hard)

# Fixed easy problems, one per registered task: (problem seed, planner seed),
# (1, 0) unless a task's seed-1 problem is a poor test (listed here by task name).
FIXED_EASY_SEEDS: Dict[str, Tuple[int, int]] = {"poly-grouping": (2, 0)}
FIXED_EASY: List[Tuple[Type[MathyEnv], int, int]] = [
    (env_class, *FIXED_EASY_SEEDS.get(task, (1, 0)))
    for task, env_class in ENV_TASKS.items()
]


def replay(
    env: MathyEnv, start: MathyEnvState, solution: SwarmSolution
) -> List[TimeStep]:
    """Replay the solution's actions from `start`, checking that every state
    matches the planner's, and return the time steps."""
    assert len(solution.states) == len(solution.actions)
    state = start
    steps: List[TimeStep] = []
    for i, action in enumerate(solution.actions):
        assert env.get_valid_moves(state)[action[0]][action[1]] == 1, (i, action)
        state, time_step, _ = env.get_next_state(state, action)
        assert state == solution.states[i], (i, state, solution.states[i])
        steps.append(time_step)
    assert sum(step.reward for step in steps) == pytest.approx(solution.reward)
    return steps


def assert_replays_to_win(
    env: MathyEnv, start: MathyEnvState, solution: SwarmSolution
) -> None:
    assert solution.solved is True
    assert solution.actions, "a problem that is not already won needs actions"
    steps = replay(env, start, solution)
    for step in steps[:-1]:
        assert not is_terminal_transition(step)
    assert is_terminal_transition(steps[-1])
    assert steps[-1].reward > 0
    assert solution.reward > 0
    # The final state is terminal (a win) on its own too.
    final = env.get_state_transition(solution.states[-1])
    assert is_terminal_transition(final) and final.reward > 0


def test_every_task_has_a_fixed_problem() -> None:
    assert {env_class for env_class, _, _ in FIXED_EASY} == set(ENV_TASKS.values())
    stale = sorted(set(FIXED_EASY_SEEDS) - set(ENV_TASKS))
    assert not stale, f"FIXED_EASY_SEEDS names tasks that are not registered: {stale}"


@pytest.mark.parametrize(
    "env_class, problem_seed, planner_seed",
    FIXED_EASY,
    ids=[env_class.__name__ for env_class, _, _ in FIXED_EASY],
)
def test_solves_a_fixed_easy_problem_of_each_env(
    env_class: Type[MathyEnv], problem_seed: int, planner_seed: int
) -> None:
    env = env_class()
    start, problem = env.get_initial_state(EASY, seed=problem_seed)
    assert not is_terminal_transition(env.get_state_transition(start)), problem.text
    solution = swarm_solve(start, SwarmConfig(seed=planner_seed), env)
    assert_replays_to_win(env, start, solution)
    assert 1 <= solution.iterations <= SwarmConfig().max_iters
    assert len(solution.actions) <= start.max_moves
    assert solution.states[-1].agent.problem_type == env.get_env_namespace()


@pytest.mark.slow
def test_same_seed_same_solution_and_the_seed_matters() -> None:
    env = BinomialDistribute()
    start, _ = env.get_initial_state(EASY, seed=2)  # needs a dozen or so moves
    first = swarm_solve(start, SwarmConfig(seed=3), env)
    second = swarm_solve(start, SwarmConfig(seed=3), BinomialDistribute())
    assert first.actions == second.actions
    assert first.states == second.states
    assert first.reward == second.reward
    assert first.iterations == second.iterations
    assert_replays_to_win(env, start, first)
    paths = {
        tuple(swarm_solve(start, SwarmConfig(seed=seed), env).actions)
        for seed in range(4)
    }
    assert len(paths) > 1, "different planner seeds should explore differently"


def test_text_input_with_the_default_env() -> None:
    solution = swarm_solve("4x + 2y + 2x")
    env = PolySimplify()
    start = env.state_from_text("4x + 2y + 2x")
    assert_replays_to_win(env, start, solution)
    assert solution.states[-1].agent.problem_type == "mathy.polynomials.simplify"
    final = solution.states[-1].agent.problem.replace(" ", "")
    assert final in ("6x+2y", "2y+6x")
    # The move budget of a text problem: the env's max_moves, or the config's.
    last = solution.states[-1]
    assert last.max_moves == env.max_moves
    assert last.agent.moves_remaining == env.max_moves - len(solution.actions)
    budget = swarm_solve("4x + 2y + 2x", SwarmConfig(max_moves=7))
    assert budget.solved
    assert budget.states[-1].max_moves == 7
    assert budget.states[-1].agent.moves_remaining == 7 - len(budget.actions)


def test_text_input_with_another_env() -> None:
    env = ComplexSimplify()
    solution = swarm_solve("2x * 3x", SwarmConfig(seed=1), env)
    start = env.state_from_text("2x * 3x")
    assert_replays_to_win(env, start, solution)
    assert solution.states[-1].agent.problem.replace(" ", "") == "6x^2"


class ConstantsOnly(MathyEnv):
    """A custom env: add up the constants; won when a single constant is left."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(
            rules=[ConstantsSimplifyRule(), CommutativeSwapRule(), AssociativeSwapRule()],
            **kwargs,  # type: ignore[arg-type]
        )

    def get_env_namespace(self) -> str:
        return "mathy.test.constants"

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("2 + 3 + 4 + 5", 3, self.get_env_namespace())

    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        if isinstance(expression, ConstantExpression):
            return termination(features, self.get_win_signal(env_state))
        return None


def test_solves_a_custom_env() -> None:
    env = ConstantsOnly()
    start, _ = env.get_initial_state(EASY, seed=0)
    solution = swarm_solve(start, SwarmConfig(seed=5), env)
    assert_replays_to_win(env, start, solution)
    assert solution.states[-1].agent.problem == "14"
    assert solution.states[-1].agent.problem_type == "mathy.test.constants"
    # Text input on the custom env, too.
    from_text = swarm_solve("1 + 2 + 3", SwarmConfig(seed=0), env)
    assert from_text.solved
    assert from_text.states[-1].agent.problem == "6"
    assert from_text.states[-1].max_moves == env.max_moves


def test_an_unsolvable_move_budget_reports_failure() -> None:
    # No single rule application simplifies "4x + 2y + 2x" (4x and 2x are apart).
    env = PolySimplify()
    config = SwarmConfig(seed=0, max_moves=1, max_iters=30)
    solution = swarm_solve("4x + 2y + 2x", config, env)
    assert solution.solved is False
    assert solution.iterations == 30
    assert len(solution.actions) <= 1
    start = env.state_from_text("4x + 2y + 2x", max_moves=1)
    steps = replay(env, start, solution)
    assert all(step.reward <= 0 for step in steps)


def test_a_tiny_swarm_gives_up_on_a_hard_problem() -> None:
    env = PolySimplify()
    start, problem = env.get_initial_state(HARD, seed=11)
    solution = swarm_solve(start, SwarmConfig(seed=0, max_iters=1, n_walkers=2), env)
    assert solution.solved is False, problem.text
    assert solution.iterations == 1
    assert len(solution.actions) == 1  # the best of the two walkers' single steps
    steps = replay(env, start, solution)
    assert not is_terminal_transition(steps[0])


def test_no_iterations_returns_an_empty_unsolved_path() -> None:
    solution = swarm_solve("4x + 2y + 2x", SwarmConfig(max_iters=0))
    assert solution.solved is False
    assert solution.actions == [] and solution.states == []
    assert solution.iterations == 0


def test_a_start_state_that_is_already_won() -> None:
    env = PolySimplify()
    solution = swarm_solve("6x + 2y", SwarmConfig(seed=0), env)
    assert solution.solved is True
    assert solution.actions == [] and solution.states == []
    assert solution.iterations == 0
    # The same through a state.
    state = env.state_from_text("6x + 2y", max_moves=5)
    again = swarm_solve(state, None, env)
    assert again.solved is True and again.actions == []


def test_a_start_state_with_no_moves_left_is_not_solved() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2x", max_moves=0)
    solution = swarm_solve(state, SwarmConfig(seed=0), env)
    assert solution.solved is False
    assert solution.actions == []


@pytest.mark.parametrize("text", ["4x + (2y", "", "4x +* 2"])
def test_unparsable_text_raises_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        swarm_solve(text)


def test_a_problem_of_the_wrong_type_raises_value_error() -> None:
    with pytest.raises(ValueError):
        swarm_solve(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs", [{"n_walkers": 0}, {"n_walkers": -3}, {"max_iters": -1}]
)
def test_bad_config_raises_value_error(kwargs: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError):
        SwarmConfig(**kwargs)


def test_relativize_is_positive_and_keeps_order() -> None:
    rng = np.random.default_rng(7)
    well_scaled = [
        rng.normal(size=50),
        rng.normal(scale=1e6, size=50),
        rng.integers(-3, 4, size=40).astype(np.float64),  # with ties
        np.array([0.0, 1.0]),
        np.array([-1.0] * 30 + [0.0]),
    ]
    # An outlier squeezes the others into (nearly) equal scores: the order is
    # kept, if not always strictly.
    extreme = [np.array([-3.0, 0.0, 1e-9, 2.0, 1e9]), np.append(np.zeros(99), 1e12)]
    for values in well_scaled + extreme:
        out = relativize(values)
        assert out.shape == values.shape
        assert np.all(np.isfinite(out))
        assert np.all(out > 0)
        order = np.argsort(values, kind="stable")
        assert np.all(np.diff(out[order]) >= 0)
        ties = np.diff(values[order]) == 0
        assert np.all(np.diff(out[order])[ties] == 0)
    for values in well_scaled:
        out = relativize(values)
        order = np.argsort(values, kind="stable")
        strictly = np.diff(values[order]) > 0
        assert np.all(np.diff(out[order])[strictly] > 0)


def test_relativize_mean_maps_to_one() -> None:
    out = relativize(np.array([1.0, 2.0, 3.0]))
    assert out[1] == pytest.approx(1.0)
    assert out[0] < 1.0 < out[2]


@pytest.mark.parametrize("value", [0.0, 5.0, -2.5])
def test_relativize_constant_input_gives_ones(value: float) -> None:
    out = relativize(np.full(6, value))
    assert np.array_equal(out, np.ones(6))


# -- budgets ----------------------------------------------------------------------

# A hard problem the default swarm needs about 20 iterations (over a second) for.
HARD_SEED = 2
NO_LIMIT = 10**9  # max_iters that only a budget can cut short


class CountingPolySimplify(PolySimplify):
    """PolySimplify that counts the transitions it computes (`get_next_state`
    calls; the planner may reuse a rewrite it has seen instead of calling it)."""

    calls = 0

    def get_next_state(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls += 1
        return super().get_next_state(*args, **kwargs)


def hard_start(env: MathyEnv) -> MathyEnvState:
    start, problem = env.get_initial_state(HARD, seed=HARD_SEED)
    assert not is_terminal_transition(env.get_state_transition(start)), problem.text
    return start


def test_a_one_step_budget_stops_after_one_transition() -> None:
    env = CountingPolySimplify()
    start = hard_start(env)
    began = time.perf_counter()
    config = SwarmConfig(seed=0, max_iters=NO_LIMIT, max_steps=1)
    solution = swarm_solve(start, config, env)
    assert time.perf_counter() - began < 5
    assert env.calls == 1
    assert solution.solved is False
    assert solution.iterations == 1
    assert len(solution.actions) == 1  # the one step taken is the best path
    steps = replay(env, start, solution)
    assert not is_terminal_transition(steps[0])


@pytest.mark.parametrize(
    "max_steps, iterations", [(4, 1), (8, 2), (10, 3), (13, 4)]
)
def test_max_steps_counts_transitions_of_all_walkers(
    max_steps: int, iterations: int
) -> None:
    # 4 walkers take 4 transitions per iteration; a partial iteration counts.
    env = CountingPolySimplify()
    start = hard_start(env)
    config = SwarmConfig(seed=1, n_walkers=4, max_iters=NO_LIMIT, max_steps=max_steps)
    solution = swarm_solve(start, config, env)
    assert 1 <= env.calls <= max_steps
    assert solution.solved is False
    assert solution.iterations == iterations
    assert 1 <= len(solution.actions) <= iterations
    replay(env, start, solution)


@pytest.mark.parametrize("problem", ["hard", "unsolvable"])
def test_a_time_budget_stops_the_search(problem: str) -> None:
    env = PolySimplify()
    if problem == "hard":
        start = hard_start(env)
    else:
        # One move can't simplify it: without a budget the swarm would restart
        # for NO_LIMIT iterations.
        start = env.state_from_text("4x + 2y + 2x", max_moves=1)
    config = SwarmConfig(seed=0, max_iters=NO_LIMIT, max_seconds=0.05)
    began = time.perf_counter()
    solution = swarm_solve(start, config, env)
    elapsed = time.perf_counter() - began
    assert elapsed < 5, elapsed  # generous: it catches a planner that ignores it
    assert solution.solved is False
    assert 1 <= solution.iterations < 10_000
    assert solution.actions, "the best path found so far"
    replay(env, start, solution)


def test_same_seed_and_max_steps_same_result() -> None:
    env = PolySimplify()
    start = hard_start(env)
    config = SwarmConfig(seed=4, max_iters=NO_LIMIT, max_steps=300)
    first = swarm_solve(start, config, env)
    second = swarm_solve(start, SwarmConfig(seed=4, max_iters=NO_LIMIT, max_steps=300))
    assert first.solved is False
    assert first.iterations == 5  # 300 transitions of 64 walkers
    assert first.actions == second.actions
    assert first.states == second.states
    assert first.reward == second.reward
    assert first.iterations == second.iterations
    replay(env, start, first)


def test_budgets_that_do_not_run_out_change_nothing() -> None:
    env = BinomialDistribute()
    start, _ = env.get_initial_state(EASY, seed=2)
    plain = swarm_solve(start, SwarmConfig(seed=3), env)
    budgeted = swarm_solve(
        start, SwarmConfig(seed=3, max_steps=10**7, max_seconds=600.0), env
    )
    assert_replays_to_win(env, start, budgeted)
    assert budgeted.actions == plain.actions
    assert budgeted.iterations == plain.iterations


def test_a_win_on_the_last_step_of_the_budget_counts() -> None:
    """The budget stops the search at an exact transition: the smallest
    `max_steps` that solves the problem ends on the winning step, even in the
    middle of a swarm iteration, and one step less does not solve it."""
    env = PolySimplify()
    start = env.state_from_text("4x + 2y + 2x")
    walkers = 8

    def solve(max_steps: int) -> SwarmSolution:
        config = SwarmConfig(seed=0, n_walkers=walkers, max_steps=max_steps)
        return swarm_solve(start, config, env)

    smallest = next(n for n in range(1, 2000) if solve(n).solved)
    solution = solve(smallest)
    assert_replays_to_win(env, start, solution)
    assert solution.iterations == -(-smallest // walkers)  # ceil
    assert smallest > 1
    assert solve(smallest - 1).solved is False


BAD_CONFIGS = [
    ({"max_seconds": 0}, "max_seconds"),
    ({"max_seconds": -1.0}, "max_seconds"),
    ({"max_seconds": float("nan")}, "max_seconds"),
    ({"max_seconds": float("inf")}, "max_seconds"),
    ({"max_seconds": "1"}, "max_seconds"),
    ({"max_seconds": True}, "max_seconds"),
    ({"max_steps": 0}, "max_steps"),
    ({"max_steps": -5}, "max_steps"),
    ({"max_steps": 1.5}, "max_steps"),
    ({"max_steps": float("inf")}, "max_steps"),
    ({"max_steps": "3"}, "max_steps"),
    ({"max_steps": True}, "max_steps"),
    ({"n_walkers": "64"}, "n_walkers"),
    ({"n_walkers": 2.0}, "n_walkers"),
    ({"max_iters": None}, "max_iters"),
    ({"balance": -0.5}, "balance"),
    ({"balance": float("nan")}, "balance"),
    ({"balance": "1"}, "balance"),
    ({"seed": -1}, "seed"),
    ({"seed": "0"}, "seed"),
    ({"max_moves": 0}, "max_moves"),
]


@pytest.mark.parametrize(
    "kwargs, field", BAD_CONFIGS, ids=[repr(kwargs) for kwargs, _ in BAD_CONFIGS]
)
def test_bad_config_values_raise_value_error_naming_the_field(
    kwargs: dict, field: str  # type: ignore[type-arg]
) -> None:
    with pytest.raises(ValueError, match=field):
        SwarmConfig(**kwargs)


def test_budgets_accept_numpy_numbers_and_none() -> None:
    config = SwarmConfig(max_seconds=np.float64(0.5), max_steps=np.int64(10))
    assert swarm_solve("4x + 2y + 2x", config).iterations >= 1
    assert SwarmConfig().max_seconds is None and SwarmConfig().max_steps is None


def test_a_problem_too_long_for_max_seq_len_is_quoted_short() -> None:
    text = " + ".join(f"{i + 2}x" for i in range(40))
    with pytest.raises(ValueError, match="max_seq_len=128") as raised:
        swarm_solve(text)
    message = str(raised.value)
    assert text[:40] in message and text not in message
    assert len(message) < 400
