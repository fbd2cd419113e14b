"""Rewards (`mathy_envs.rewards`): one scheme, in one order, for `MathyEnv`, the
Gymnasium adapter and the swarm planner; and how a user changes it."""

import dataclasses
from typing import List, Optional, Tuple, Type

import gymnasium
import numpy as np
import pytest
from mathy_core import ConstantExpression, MathExpression, MultiplyExpression, VariableExpression
from mathy_core import BaseRule
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from mathy_envs import MathyEnvState, envs
from mathy_envs.env import MathyEnv
from mathy_envs.gym import GYM_ENV_IDS, MathyGymEnv
from mathy_envs.observations import MathyObservation
from mathy_envs.rewards import (
    MAX_VISITS,
    SCORING_ORDER,
    EnvRewards,
    RewardScheme,
    custom_scoring,
    win_signal,
)
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs.time_step import TimeStep, is_terminal_transition, transition
from mathy_envs.types import EnvRewards as TypesEnvRewards

from mathy_envs.envs import PolySimplify

from helpers import (
    FixedEnv,
    TerminalVerdictEnv,
    VerdictEnv,
    answers_of,
    is_last,
    is_mid,
    rule_index,
    with_history,
)
from oracles import expected_win_signal

# "2(x + y) + x" has 7 nodes; distributing gives "2x + 2y + x", 9 nodes.
GROWING = "2(x + y) + x"
SMALL, ROOMY = 7, 9


def _distribute(env: MathyEnv) -> int:
    return next(i for i, rule in enumerate(env.rules) if isinstance(rule, DistributiveMultiplyRule))


def test_env_rewards_is_one_class_importable_from_types_and_rewards() -> None:
    assert TypesEnvRewards is EnvRewards
    assert EnvRewards.LOSE == -1.0 and EnvRewards.INVALID_MOVE == -0.5


def test_outgrowing_max_seq_len_loses_for_a_direct_mathy_env_user() -> None:
    env = envs.PolySimplify(max_seq_len=SMALL)
    state = env.state_from_text(GROWING, max_moves=10)
    rule = _distribute(env)
    node = int(env.valid_moves_array(state)[rule].nonzero()[0][0])
    out, step, _ = env.get_next_state(state, (rule, node))
    assert env.node_count(out.agent.problem) == ROOMY
    assert is_terminal_transition(step)
    assert step.reward == EnvRewards.LOSE
    # The same state judged again gives the same verdict.
    assert env.get_state_transition(out).reward == EnvRewards.LOSE
    # With room for the result, the same step is an ordinary (unhelpful) move.
    roomy = envs.PolySimplify(max_seq_len=ROOMY)
    _, step, _ = roomy.get_next_state(roomy.state_from_text(GROWING, 10), (rule, node))
    assert not is_terminal_transition(step)
    assert step.reward == EnvRewards.UNHELPFUL_MOVE


def test_the_gym_adapter_reports_the_envs_own_verdict_on_oversize() -> None:
    env = MathyGymEnv(envs.PolySimplify, env_problem=GROWING, env_max_moves=10, max_seq_len=SMALL)
    _, info = env.reset(seed=0)
    rule = _distribute(env.mathy)
    node = int(env.mathy.valid_moves_array(env.state)[rule].nonzero()[0][0])  # type: ignore[arg-type]
    _, reward, terminated, truncated, info = env.step(rule * SMALL + node)
    assert (reward, terminated, truncated) == (EnvRewards.LOSE, True, False)
    assert info["oversize"] and not info["win"]
    assert not info["action_mask"].any()


class _AlwaysWon(envs.PolySimplify):
    def transition_fn(
        self, env_state: MathyEnvState, expression: object, features: MathyObservation
    ) -> Optional[TimeStep]:
        from mathy_envs.time_step import termination

        return termination(features, self.get_win_signal(env_state))


def test_oversize_is_judged_before_the_envs_own_verdict() -> None:
    env = _AlwaysWon(max_seq_len=SMALL)
    state = env.state_from_text(GROWING, max_moves=10)
    assert env.get_state_transition(state).reward > 1.0
    rule = _distribute(env)
    node = int(env.valid_moves_array(state)[rule].nonzero()[0][0])
    _, step, _ = env.get_next_state(state, (rule, node))
    assert is_terminal_transition(step) and step.reward == EnvRewards.LOSE


def test_the_swarm_never_wins_through_an_expression_that_does_not_fit() -> None:
    """BinomialDistribute's goal needs the distributed (longer) form: with no room
    for it, the swarm can't win, where with room it does."""
    problem = "(x + 2)(x + 3)"
    small = envs.BinomialDistribute(max_seq_len=7)
    assert small.node_count(problem) == 7
    config = SwarmConfig(max_iters=30, n_walkers=16, seed=0)
    assert not swarm_solve(problem, config, small).solved
    assert swarm_solve(problem, config, envs.BinomialDistribute()).solved


class _NoRuleRewards(RewardScheme):
    def rule_used(self, env, state, features):  # type: ignore[no-untyped-def]
        return None


class _PlainPolySimplify(envs.PolySimplify):
    reward_scheme = _NoRuleRewards()


@pytest.mark.parametrize("make", [lambda: _PlainPolySimplify(), lambda: _with_scheme()])
def test_a_reward_scheme_subclass_changes_one_check(make) -> None:  # type: ignore[no-untyped-def]
    env = make()
    default = envs.PolySimplify()
    state = env.state_from_text(GROWING, max_moves=10)
    rule = _distribute(env)
    node = int(env.valid_moves_array(state)[rule].nonzero()[0][0])
    _, step, _ = env.get_next_state(state, (rule, node))
    _, default_step, _ = default.get_next_state(default.state_from_text(GROWING, 10), (rule, node))
    assert default_step.reward == EnvRewards.UNHELPFUL_MOVE
    assert step.reward == EnvRewards.TIMESTEP
    # The rest of the scheme is unchanged: running out of moves still loses.
    last = env.state_from_text(GROWING, max_moves=1)
    _, step, _ = env.get_next_state(last, (rule, node))
    assert is_terminal_transition(step) and step.reward == EnvRewards.LOSE


def _with_scheme() -> MathyEnv:
    env = envs.PolySimplify()
    env.reward_scheme = _NoRuleRewards()
    return env


def test_a_scheme_set_on_one_instance_leaves_other_envs_alone() -> None:
    changed = _with_scheme()
    assert type(changed.reward_scheme) is _NoRuleRewards
    assert type(envs.PolySimplify().reward_scheme) is RewardScheme


@pytest.mark.parametrize(
    "max_moves, remaining, expected",
    [(20, 19, 2.0), (20, 10, 1.1), (20, 12, 1.25), (8, 6, 1.5), (8, 0, 1.125)],
)
def test_win_signal(max_moves: int, remaining: int, expected: float) -> None:
    assert win_signal(max_moves, remaining) == pytest.approx(expected)


def test_gym_make_of_a_reward_scheme_env_keeps_its_scheme() -> None:
    env = MathyGymEnv(_PlainPolySimplify)
    assert isinstance(env.mathy.reward_scheme, _NoRuleRewards)
    assert isinstance(gymnasium.make("mathy-poly-easy-v0").unwrapped, MathyGymEnv)


# -- a scheme of the user's own gets a tree of its own ------------------------------

LIKE_TERMS = "4x + 2y + 2x"
"""Not simplified: no win. With its last term made `2z` it would be one."""


def _make_a_win_of(tree: MathExpression) -> None:
    """Turn `4x + 2y + 2x` into `4x + 2y + 2z` in place."""
    tree.set_right(MultiplyExpression(ConstantExpression(2), VariableExpression("z")))


class _Vandal(RewardScheme):
    """A scheme that rewrites the tree it is given, and keeps it."""

    def __init__(self) -> None:
        self.kept: List[Tuple[str, MathExpression]] = []

    def score(self, env, state, expression, visits, features):  # type: ignore[no-untyped-def]
        self.kept.append((state.agent.problem, expression))
        if state.agent.problem == LIKE_TERMS:
            _make_a_win_of(expression)
        return super().score(env, state, expression, visits, features)


def test_a_scheme_that_rewrites_its_tree_changes_no_later_answer() -> None:
    reward, mask, nexts = before = answers_of(LIKE_TERMS)
    assert reward == EnvRewards.TIMESTEP and nexts  # no win, and moves to make
    vandal = _Vandal()
    env = envs.PolySimplify()
    env.reward_scheme = vandal
    state = env.state_from_text(LIKE_TERMS, max_moves=10)
    env.get_state_transition(state)
    # The scheme changed its own copy (and judged it as it pleased) ...
    assert [text for text, _ in vandal.kept] == [LIKE_TERMS]
    assert str(vandal.kept[0][1]) == "4x + 2y + 2z"
    # ... and nothing the library says of the text changed.
    assert answers_of(LIKE_TERMS) == before
    # Steps from the text, in the vandal's env too, start from the real expression.
    for rule, row in enumerate(mask):
        for node, valid in enumerate(row):
            if valid:
                out, _, _ = env.get_next_state(state, (rule, node))
                assert out.agent.problem in nexts
    # The tree the scheme kept is still the one it made.
    assert str(vandal.kept[0][1]) == "4x + 2y + 2z"


# -- a scheme given at construction, to every env class and every gym id -------------

MARK = 0.125
"""The reward `_Marking` gives every step: no default check gives it."""


class _Marking(RewardScheme):
    """Scores every state `MARK`, so a step's reward says which scheme scored it."""

    def __init__(self) -> None:
        self.scored = 0

    def score(self, env, state, expression, visits, features):  # type: ignore[no-untyped-def]
        self.scored += 1
        return transition(features, MARK, env.reward_discount)


def _first_valid(env: MathyEnv, state: MathyEnvState) -> Tuple[int, int]:
    rule, node = (int(i) for i in np.argwhere(env.valid_moves_array(state))[0])
    return rule, node


@pytest.mark.parametrize("task", list(envs.ENV_TASKS))
def test_every_env_class_takes_a_reward_scheme_at_construction(task: str) -> None:
    env_class = envs.ENV_TASKS[task]
    scheme = _Marking()
    env = env_class(reward_scheme=scheme, seed=1)
    assert env.reward_scheme is scheme
    state, _ = env.get_initial_state(print_problem=False)
    _, step, _ = env.get_next_state(state, _first_valid(env, state))
    assert step.reward == MARK and scheme.scored > 0
    # the class and other instances keep the default scheme
    assert type(env_class().reward_scheme) is RewardScheme
    assert type(env_class.reward_scheme) is RewardScheme
    default = env_class(seed=1)
    start, _ = default.get_initial_state(print_problem=False)
    _, default_step, _ = default.get_next_state(start, _first_valid(default, start))
    assert default_step.reward != MARK


@pytest.mark.parametrize("env_id", GYM_ENV_IDS)
def test_every_gym_id_takes_a_reward_scheme(env_id: str) -> None:
    scheme = _Marking()
    made = gymnasium.make(env_id, reward_scheme=scheme)
    env = made.unwrapped
    assert isinstance(env, MathyGymEnv) and env.mathy.reward_scheme is scheme
    _, info = made.reset(seed=3)
    _, reward, terminated, truncated, _ = made.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert reward == MARK and not terminated
    assert scheme.scored > 0
    # the registered keywords are untouched: a later make scores by default
    assert "reward_scheme" not in gymnasium.spec(env_id).kwargs
    assert type(gymnasium.make(env_id).unwrapped.mathy.reward_scheme) is RewardScheme


@pytest.mark.parametrize("bad", [_Marking, "win", 1.0, lambda *args: None])
def test_a_reward_scheme_that_is_not_one_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError, match="reward_scheme must be a RewardScheme"):
        envs.PolySimplify(reward_scheme=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reward_scheme must be a RewardScheme"):
        gymnasium.make("mathy-poly-easy-v0", reward_scheme=bad)


@pytest.mark.parametrize("task", list(envs.ENV_TASKS))
def test_an_unknown_keyword_is_still_a_type_error(task: str) -> None:
    with pytest.raises(TypeError, match="reward_schema"):
        envs.ENV_TASKS[task](reward_schema=_Marking())  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="reward_schema"):
        gymnasium.make(f"mathy-{task}-easy-v0", reward_schema=_Marking())


# -- the order of checks, played through MathyEnv.get_next_state ----------------


def test_transition_fn_verdict_wins_even_without_moves() -> None:
    env = VerdictEnv()
    state = with_history(
        env, [("4x + 2x", (-1, -1)), ("2x + 4x", (1, 3))], max_moves=1
    )
    assert state.agent.moves_remaining == 0
    step = env.get_state_transition(state)
    assert is_mid(step)
    assert step.reward == VerdictEnv.VERDICT_REWARD
    assert step.discount == 0.5


def test_transition_fn_verdict_beats_revisit_termination() -> None:
    env = TerminalVerdictEnv()
    a, b = "4x + 2x", "2x + 4x"
    steps = [(a, (-1, -1)), (b, (1, 3)), (a, (1, 3)), (b, (1, 3)), (a, (1, 3))]
    step = env.get_state_transition(with_history(env, steps))
    assert is_last(step)
    assert step.reward == TerminalVerdictEnv.VERDICT_REWARD


def test_transition_fn_win_without_moves_remaining() -> None:
    env = PolySimplify()
    state = with_history(
        env, [("4x + 2x", (-1, -1)), ("6x", (0, 1))], max_moves=1, moves_remaining=0
    )
    step = env.get_state_transition(state)
    assert is_last(step)
    assert step.reward == pytest.approx(expected_win_signal(1, 0))
    assert step.reward > 0


def test_no_moves_remaining_terminates_with_lose() -> None:
    env = FixedEnv()
    state = with_history(
        env, [("4x + 2x", (-1, -1)), ("2x + 4x", (1, 3))], max_moves=1
    )
    step = env.get_state_transition(state)
    assert is_last(step)
    assert step.reward == env.get_lose_signal(state) == EnvRewards.LOSE
    assert step.discount == 0.0
    assert env.is_terminal_state(state)


def test_no_moves_remaining_beats_revisit_penalty_and_rule_reward() -> None:
    env = FixedEnv()
    a, b = "4x + 2x", "2x + 4x"
    revisit = with_history(
        env, [(a, (-1, -1)), (b, (1, 3)), (a, (1, 3))], max_moves=2
    )
    assert revisit.agent.moves_remaining == 0
    step = env.get_state_transition(revisit)
    assert is_last(step) and step.reward == EnvRewards.LOSE
    factor = rule_index(env, DistributiveFactorOutRule)
    helpful = with_history(
        env, [(a, (-1, -1)), ("(4 + 2) * x", (factor, 3))], max_moves=1
    )
    step = env.get_state_transition(helpful)
    assert is_last(step) and step.reward == EnvRewards.LOSE


@pytest.mark.parametrize("visits", [2, 3])
def test_previous_state_penalty_scales_with_visits(visits: int) -> None:
    env = FixedEnv(reward_discount=0.8)
    a, b = "4x + 2x", "2x + 4x"
    steps: List[Tuple[str, Tuple[int, int]]] = [(a, (-1, -1))]
    for _ in range(visits - 1):
        steps += [(b, (1, 3)), (a, (1, 3))]
    state = with_history(env, steps, max_moves=20)
    assert sum(1 for s in state.agent.history if s.raw == a) == visits
    step = env.get_state_transition(state)
    assert is_mid(step)
    assert step.reward == pytest.approx(EnvRewards.PREVIOUS_LOCATION * visits)
    assert step.reward == pytest.approx(-0.02 * visits)
    assert step.discount == pytest.approx(0.8)


@pytest.mark.parametrize("visits", [4, 5])
def test_previous_state_penalty_terminates_after_three_visits(visits: int) -> None:
    env = FixedEnv()
    a, b = "4x + 2x", "2x + 4x"
    steps: List[Tuple[str, Tuple[int, int]]] = [(a, (-1, -1))]
    for _ in range(visits - 1):
        steps += [(b, (1, 3)), (a, (1, 3))]
    state = with_history(env, steps, max_moves=20)
    step = env.get_state_transition(state)
    assert is_last(step)
    assert step.reward == env.get_lose_signal(state) == EnvRewards.LOSE
    assert step.discount == 0.0


def test_previous_state_penalty_counts_the_current_text_anywhere() -> None:
    env = FixedEnv()
    # The revisited text need not be the starting one nor adjacent visits.
    steps = [
        ("4x + 2x", (-1, -1)),
        ("2x + 4x", (1, 3)),
        ("(4 + 2) * x", (3, 3)),
        ("2x + 4x", (1, 3)),
    ]
    step = env.get_state_transition(with_history(env, steps, max_moves=20))
    assert step.reward == pytest.approx(EnvRewards.PREVIOUS_LOCATION * 2)


def test_previous_state_penalty_beats_rule_reward() -> None:
    env = FixedEnv()
    constants = rule_index(env, ConstantsSimplifyRule)
    steps = [("4x + 2x", (-1, -1)), ("2x + 4x", (1, 3)), ("4x + 2x", (constants, 0))]
    step = env.get_state_transition(with_history(env, steps, max_moves=20))
    assert step.reward == pytest.approx(EnvRewards.PREVIOUS_LOCATION * 2)


def test_previous_state_penalty_disabled() -> None:
    env = FixedEnv(previous_state_penalty=False, reward_discount=0.7)
    a, b = "4x + 2x", "2x + 4x"
    swap = rule_index(env, CommutativeSwapRule)
    for visits in (2, 3, 4, 6):
        steps: List[Tuple[str, Tuple[int, int]]] = [(a, (-1, -1))]
        for _ in range(visits - 1):
            steps += [(b, (swap, 3)), (a, (swap, 3))]
        step = env.get_state_transition(with_history(env, steps, max_moves=20))
        assert is_mid(step)
        assert step.reward == EnvRewards.TIMESTEP
        assert step.discount == pytest.approx(0.7)


@pytest.mark.parametrize(
    "rule_type, reward",
    [
        (RestateSubtractionRule, EnvRewards.HELPFUL_MOVE),
        (ConstantsSimplifyRule, EnvRewards.HELPFUL_MOVE),
        (DistributiveFactorOutRule, EnvRewards.HELPFUL_MOVE),
        (VariableMultiplyRule, EnvRewards.HELPFUL_MOVE),
        (AssociativeSwapRule, EnvRewards.UNHELPFUL_MOVE),
        (DistributiveMultiplyRule, EnvRewards.UNHELPFUL_MOVE),
        (CommutativeSwapRule, EnvRewards.TIMESTEP),
    ],
)
def test_last_rule_reward(rule_type: Type[BaseRule], reward: float) -> None:
    env = FixedEnv(reward_discount=0.95)
    index = rule_index(env, rule_type)
    state = with_history(env, [("4x + 2x", (-1, -1)), ("9y + 3", (index, 1))])
    step = env.get_state_transition(state)
    assert is_mid(step)
    assert step.reward == reward
    assert step.discount == pytest.approx(0.95)


def test_reward_constants() -> None:
    assert EnvRewards.LOSE == -1.0
    assert EnvRewards.WIN == 1.0
    assert EnvRewards.HELPFUL_MOVE == 0.01
    assert EnvRewards.UNHELPFUL_MOVE == -0.01
    assert EnvRewards.TIMESTEP == -0.01
    assert EnvRewards.PREVIOUS_LOCATION == -0.02
    assert EnvRewards.INVALID_MOVE == -0.5


@pytest.mark.parametrize(
    "max_moves, moves_remaining, expected",
    [
        (10, 10, 2.0),  # c = 0: bonus 1/3e-10, capped
        (1, 1, 2.0),  # c = 0
        (4, 3, 2.0),  # c = 1: 1 + 1 = 2
        (8, 6, 1.5),  # t <= 10: no doubling
        (10, 8, 1.5),  # t = 10 is not > 10: no doubling
        (10, 5, 1.2),
        (10, 0, 1.1),
        (11, 8, 1.0 + 2.0 / 3.0),  # t > 10, c = 3 < 5.5: doubled
        (12, 9, 1.0 + 2.0 / 3.0),
        (12, 10, 2.0),  # doubled 1/2 -> 1.0
        (20, 15, 1.4),  # c = 5 < 10: doubled 0.2
        (20, 10, 1.1),  # c = 10 is not < 10: not doubled
        (20, 0, 1.05),
        (40, 10, 1.0 + 1.0 / 30.0),
        (0, 0, 2.0),  # degenerate: both floored
    ],
)
def test_get_win_signal_of_a_state(
    max_moves: int, moves_remaining: int, expected: float
) -> None:
    env = FixedEnv()
    state = env.state_from_text("4x + 2x", max_moves=max_moves)
    if moves_remaining != max_moves:
        state = state.get_out_state("2x + 4x", (1, 3), moves_remaining)
    assert state.agent.moves_remaining == moves_remaining
    assert env.get_win_signal(state) == pytest.approx(expected)
    assert env.get_win_signal(state) == pytest.approx(
        expected_win_signal(max_moves, moves_remaining)
    )
    assert env.get_win_signal(state) <= 2.0


# -- the scoring as data: SCORING_ORDER, Scoring, RewardScheme.scoring -------------------


def _played_states(env: MathyEnv, seed: int, steps: int) -> List[Tuple[MathyEnvState, int]]:
    """States reached by seeded random valid moves (episodes restarted when they
    end), each with the rule index of the move that made it."""
    from mathy_envs.types import MathyEnvProblemArgs

    rng = np.random.default_rng(seed)
    env.seed(seed)
    state, _ = env.fitting_initial_state(MathyEnvProblemArgs())
    reached: List[Tuple[MathyEnvState, int]] = []
    for _ in range(steps):
        valid = np.argwhere(env.valid_moves_array(state))
        rule, node = (int(value) for value in valid[rng.integers(len(valid))])
        state, time_step, _ = env.get_next_state(state, (rule, node))
        reached.append((state, rule))
        if is_terminal_transition(time_step) or not env.valid_moves_array(state).any():
            state, _ = env.fitting_initial_state(MathyEnvProblemArgs())
    return reached


@pytest.mark.parametrize("task", ["poly", "complex", "binomial"])
@pytest.mark.parametrize("penalty", [True, False])
def test_the_scoring_data_gives_what_score_gives(task: str, penalty: bool) -> None:
    # Every reached state, scored by get_state_transition (RewardScheme.score)
    # and by the data (Scoring.verdict) from the step's facts alone.
    from mathy_envs._engine import visits_of

    env = envs.ENV_TASKS[task](previous_state_penalty=penalty, max_seq_len=24)
    seen = {"won": 0, "revisit": 0, "oversize": 0, "out": 0, "rule": 0}
    for state, rule in _played_states(env, seed=7, steps=400):
        scoring = env.reward_scheme.scoring(env, state)
        assert scoring is not None
        time_step = env.get_state_transition(state)
        visits = visits_of(state.agent.history, state.agent.problem, env.parser)
        oversize = env.node_count(state.agent.problem) > env.max_seq_len
        won = not oversize and env.is_goal(state, env.tree_of(state, env.parse(state.agent.problem).tree))  # type: ignore[attr-defined]
        expected = (time_step.reward, is_terminal_transition(time_step))
        assert scoring.verdict(
            won, state.agent.moves_remaining, state.max_moves, visits, rule, oversize
        ) == expected, state.agent.problem
        seen["won"] += won
        seen["oversize"] += oversize
        seen["revisit"] += visits > 1
        seen["out"] += state.agent.moves_remaining <= 0
        seen["rule"] += not (won or oversize or visits > 1)
    assert seen["won"] and seen["rule"] and seen["revisit"], seen


def test_the_scoring_data_lists_each_rules_reward() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2x")
    scoring = RewardScheme().scoring(env, state)
    assert scoring is not None
    for rule, reward in zip(env.rules, scoring.rule_rewards):
        expected = (
            EnvRewards.HELPFUL_MOVE
            if isinstance(rule, tuple(env.get_rewarding_actions(state)))
            else EnvRewards.UNHELPFUL_MOVE
            if isinstance(rule, tuple(env.get_penalizing_actions(state)))
            else EnvRewards.TIMESTEP
        )
        assert reward == expected, rule.name
    assert len(scoring.rule_rewards) == len(env.rules)
    assert set(scoring.rule_rewards) == {EnvRewards.HELPFUL_MOVE, EnvRewards.UNHELPFUL_MOVE}
    assert scoring.max_visits == MAX_VISITS and scoring.lose == EnvRewards.LOSE
    assert scoring.revisit_penalty == EnvRewards.PREVIOUS_LOCATION
    assert scoring.penalize_revisits is env.previous_state_penalty
    assert scoring.order == SCORING_ORDER
    assert scoring.win(20, 15) == win_signal(20, 15)


def test_the_scoring_data_follows_the_envs_rule_lists() -> None:
    class Rewarding(PolySimplify):
        def get_rewarding_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
            return [CommutativeSwapRule]

        def get_penalizing_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
            return []

    env = Rewarding()
    scoring = env.reward_scheme.scoring(env, env.state_from_text("4x + 2x"))
    assert scoring is not None
    commute = rule_index(env, CommutativeSwapRule)
    assert scoring.rule_rewards[commute] == EnvRewards.HELPFUL_MOVE
    others = [reward for index, reward in enumerate(scoring.rule_rewards) if index != commute]
    assert others == [EnvRewards.TIMESTEP] * (len(env.rules) - 1)


class _Subclassed(RewardScheme):
    pass


def test_a_scheme_whose_scoring_is_not_the_librarys_has_no_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2x")
    assert custom_scoring(RewardScheme()) is None
    subclassed = _Subclassed()
    assert subclassed.scoring(env, state) is None
    assert custom_scoring(subclassed) == (
        "the reward scheme is a _Subclassed, not the library's RewardScheme"
    )
    own = RewardScheme()
    own.revisit = lambda env, state, visits, features: None  # type: ignore[method-assign]
    assert own.scoring(env, state) is None
    assert custom_scoring(own) == "the reward scheme has its own revisit (set on the instance)"
    monkeypatch.setattr(RewardScheme, "out_of_moves", lambda self, env, state, features: None)
    assert RewardScheme().scoring(env, state) is None
    assert custom_scoring(RewardScheme()) == "RewardScheme.out_of_moves was replaced after import"


def test_score_asks_its_checks_in_scoring_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # The order is data: with rule_used asked first, a winning step scores as
    # its rule, and Scoring.verdict follows the same order.
    env = PolySimplify()
    state = env.state_from_text("(4 + 2) * x", max_moves=10)
    win, rule = next(
        (move, move[0])
        for move, text in env.move_results(state).items()
        if text == "6x"
    )
    after, time_step, _ = env.get_next_state(state, win)
    assert is_terminal_transition(time_step) and time_step.reward > 0
    reordered = ("rule_used", *(name for name in SCORING_ORDER if name != "rule_used"))
    monkeypatch.setattr("mathy_envs.rewards.SCORING_ORDER", reordered)
    step = env.get_state_transition(after)
    assert not is_terminal_transition(step)
    assert step.reward == env.reward_scheme.scoring(env, after).rule_rewards[rule]  # type: ignore[union-attr]
    scoring = dataclasses.replace(
        env.reward_scheme.scoring(env, after), order=reordered  # type: ignore[arg-type]
    )
    assert scoring.verdict(True, 9, 10, 1, rule) == (step.reward, False)
    with pytest.raises(ValueError, match="order must name checks"):
        dataclasses.replace(scoring, order=("oversize", "luck"))


def test_a_scoring_pickles_and_copies_with_its_verdict() -> None:
    import copy
    import pickle

    env = envs.PolySimplify(previous_state_penalty=True)
    state, _ = env.get_initial_state()
    scoring = env.reward_scheme.scoring(env, state)
    assert scoring is not None
    facts = [(False, 3, 10, 1, 2), (True, 3, 10, 1, 2), (False, 0, 10, 1, 2), (False, 3, 10, 2, 2)]
    for made in (pickle.loads(pickle.dumps(scoring)), copy.deepcopy(scoring), copy.copy(scoring)):
        assert made == scoring
        assert [made.verdict(*each) for each in facts] == [scoring.verdict(*each) for each in facts]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"order": (["revisit"],)}, "order must be a tuple of distinct check names"),
        ({"order": "revisit"}, "order must be a tuple of distinct check names"),
        ({"order": ("revisit", "revisit")}, "order must be a tuple of distinct check names"),
        ({"max_visits": "3"}, "max_visits must be an int"),
        ({"rule_rewards": (0.1, "x")}, "rule_rewards must be a tuple of numbers"),
        ({"penalize_revisits": 1}, "penalize_revisits must be a bool"),
        ({"lose": None}, "lose must be a number"),
        ({"win": 2.0}, "win must be a function"),
    ],
)
def test_scoring_data_of_the_wrong_type_is_refused(change: dict, message: str) -> None:  # type: ignore[type-arg]
    env = envs.PolySimplify()
    state, _ = env.get_initial_state()
    scoring = env.reward_scheme.scoring(env, state)
    assert scoring is not None
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(scoring, **change)
