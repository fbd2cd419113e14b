"""Rewards (`mathy_envs.rewards`): one scheme, in one order, for `MathyEnv`, the
Gymnasium adapter and the swarm planner; and how a user changes it."""

from typing import List, Optional, Tuple

import gymnasium
import pytest
from mathy_core import ConstantExpression, MathExpression, MultiplyExpression, VariableExpression
from mathy_core.rules import DistributiveMultiplyRule

from mathy_envs import MathyEnvState, envs
from mathy_envs.env import MathyEnv
from mathy_envs.gym import MathyGymEnv
from mathy_envs.observations import MathyObservation
from mathy_envs.rewards import EnvRewards, RewardScheme, win_signal
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs.time_step import TimeStep, is_terminal_transition
from mathy_envs.types import EnvRewards as TypesEnvRewards

from helpers import answers_of

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
