"""MathyEnv (`mathy_envs.env`): construction, the step (`get_next_state`) and
its handling of invalid actions, how a state is scored (`get_state_transition`),
`finalize_state`, problems and seeding, observations of a state, states from
text, and the trees user code is given.

The action space the env inherits (decoding actions, masks, tokens, random
actions) is tested in _env/test_actions.py, printing steps and histories in
_env/test_rendering.py.

Expected values are derived independently of the env: masks from fresh mathy_core
rules' `can_apply_to` over a freshly parsed tree's in-order nodes
(`oracles.expected_mask`), rewards from the documented constants and formulas.
"""

import functools
import random
import re
import traceback
from fractions import Fraction
from typing import Any, List, NamedTuple, Optional, Tuple, Type

import numpy as np
import pytest
from mathy_core import (
    BaseRule,
    ConstantExpression,
    ExpressionParser,
    MathExpression,
    MultiplyExpression,
    VariableExpression,
)
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from mathy_envs import MathyEnv, MathyEnvState, MathyObservation, ObservationType
from mathy_envs.env import INVALID_ACTION_RESPONSES, UNREAD_TREE
from mathy_envs.envs import MATHY_BUILTIN_ENVS, PolySimplify
from mathy_envs._engine.native import CORE
from mathy_envs.episodes import random_episode
from mathy_envs.rewards import RewardScheme
from mathy_envs.state import MathyEnvStateStep, MathyGraphObservation
from mathy_envs.time_step import TimeStep, is_terminal_transition
from mathy_envs.types import (
    EnvRewards,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)

from helpers import (
    rule_index,
    CORE_RULE_TYPES,
    NAMESPACE,
    FixedEnv,
    answers_of,
    fresh_rules,
    is_last,
    is_mid,
    valid_actions,
    with_history,
)
from oracles import Undefined as NoValue
from oracles import expected_mask, inorder_nodes, numeric_value, only_action, parse


# -- helpers ---------------------------------------------------------------------


def state_reaching(env: MathyEnv, text: str) -> MathyEnvState:
    """A state whose expression is `text`, reached through `get_out_state` (which,
    unlike `state_from_text`, takes any text)."""
    return env.state_from_text("x", max_moves=10).get_out_state(text, (0, 0), 9)


def raised_in_mathy_core(error: BaseException) -> bool:
    frames = traceback.extract_tb(error.__traceback__)
    return any("mathy_core" in frame.filename for frame in frames)


# -- 1. constructor, rules and action inputs ---------------------------------------


def test_invalid_action_responses_constant() -> None:
    assert tuple(INVALID_ACTION_RESPONSES) == ("raise", "penalize", "terminal")


@pytest.mark.parametrize("response", ["ignore", "RAISE", "", "penalise"])
def test_unknown_invalid_action_response_lists_allowed(response: str) -> None:
    with pytest.raises(ValueError) as info:
        FixedEnv(invalid_action_response=response)
    message = str(info.value)
    for allowed in ("raise", "penalize", "terminal"):
        assert allowed in message


@pytest.mark.parametrize("response", ["raise", "penalize", "terminal"])
def test_known_invalid_action_responses_accepted(response: str) -> None:
    env = FixedEnv(invalid_action_response=response)
    assert env.invalid_action_response == response


def test_constructor_defaults() -> None:
    env = FixedEnv()
    assert env.max_moves == 20
    assert env.max_seq_len == 128
    assert env.reward_discount == 0.99
    assert env.invalid_action_response == "raise"
    assert env.previous_state_penalty is True
    assert isinstance(env.parser, ExpressionParser)
    assert isinstance(env.np_random, np.random.Generator)
    assert [type(rule) for rule in env.rules] == CORE_RULE_TYPES


@pytest.mark.parametrize("preferred", [False, True])
def test_core_rules_order_and_types(preferred: bool) -> None:
    rules = MathyEnv.core_rules(preferred)
    assert [type(rule) for rule in rules] == CORE_RULE_TYPES
    assert rules[1].preferred is preferred  # type: ignore[attr-defined]
    assert all(isinstance(rule, BaseRule) for rule in rules)
    keyword = MathyEnv.core_rules(preferred_term_commute=preferred)
    assert keyword[1].preferred is preferred  # type: ignore[attr-defined]


def test_core_rules_default_is_not_preferred() -> None:
    assert MathyEnv.core_rules()[1].preferred is False  # type: ignore[attr-defined]


@pytest.mark.parametrize("preferred", [False, True])
def test_env_rules_follow_preferred_term_commute(preferred: bool) -> None:
    env = FixedEnv(preferred_term_commute=preferred)
    assert [type(rule) for rule in env.rules] == CORE_RULE_TYPES
    assert env.rules[1].preferred is preferred  # type: ignore[attr-defined]
    # preferred changes which actions are valid: `4x` commutes only when preferred.
    text = "4x + 2y"
    mask = env.get_valid_moves(env.state_from_text(text))
    assert mask == expected_mask(text, fresh_rules(preferred))
    assert mask[1] != expected_mask(text, fresh_rules(not preferred))[1]


def test_custom_rules_are_used() -> None:
    rules: List[BaseRule] = [DistributiveFactorOutRule(), CommutativeSwapRule()]
    env = FixedEnv(rules=rules, max_seq_len=16)
    assert [type(rule) for rule in env.rules] == [
        DistributiveFactorOutRule,
        CommutativeSwapRule,
    ]
    assert env.action_size == 2 * 16
    text = "4x + 2x"
    assert env.get_valid_moves(env.state_from_text(text)) == expected_mask(
        text, [DistributiveFactorOutRule(), CommutativeSwapRule(preferred=True)]
    )


def test_get_next_state_rejects_malformed_actions() -> None:
    env = FixedEnv(invalid_action_response="penalize")
    state = env.state_from_text("4x + 2x")
    malformed: List[Any] = [1.5, "3", (1, 2, 3), True]
    for action in malformed:
        with pytest.raises(ValueError):
            env.get_next_state(state, action)


def test_get_next_state_accepts_int_and_pair_actions_alike() -> None:
    env = FixedEnv(max_seq_len=32)
    text = "4x + 2x"
    state = env.state_from_text(text)
    rule, node = only_action(text, DistributiveFactorOutRule)
    by_pair, step_pair, _ = env.get_next_state(state, (rule, node))
    by_int, step_int, _ = env.get_next_state(state, rule * 32 + node)
    by_np, step_np, _ = env.get_next_state(state, np.int64(rule * 32 + node))
    assert by_pair.agent.problem == by_int.agent.problem == by_np.agent.problem
    assert by_pair.agent.history[-1].action == (rule, node)
    assert by_int.agent.history[-1].action == (rule, node)
    assert step_pair.reward == step_int.reward == step_np.reward


# -- 2. invalid actions --------------------------------------------------------------

INVALID_TEXT = "4x + 2x"


def invalid_actions(env: MathyEnv) -> List[Tuple[str, Any]]:
    """(label, action) pairs that are all invalid on INVALID_TEXT."""
    num_nodes = len(inorder_nodes(INVALID_TEXT))
    mask = expected_mask(INVALID_TEXT)
    # a rule that can't apply at a node (checked against the independent mask)
    blocked = next(
        (r, n) for r in range(len(mask)) for n in range(num_nodes) if not mask[r][n]
    )
    # a valid cell, used to build negative indexes that would alias it if negative
    # indexes were (wrongly) taken Python-style, from the end
    rule, node = next(
        (r, n) for r in range(len(mask)) for n in range(num_nodes) if mask[r][n]
    )
    num_rules = len(env.rules)
    return [
        ("rule-cannot-apply", blocked),
        ("rule-index-too-large", (num_rules, 0)),
        ("rule-index-negative", (-1, 3)),
        ("rule-index-negative-aliasing-a-valid-cell", (rule - num_rules, node)),
        ("node-index-too-large", (1, num_nodes)),
        ("node-index-far-too-large", (1, env.max_seq_len + 3)),
        ("node-index-negative", (1, -1)),
        ("node-index-negative-aliasing-a-valid-cell", (rule, node - num_nodes)),
        ("negative-int", -1),
        (
            "negative-int-aliasing-a-valid-cell",
            (rule - num_rules) * env.max_seq_len + node,
        ),
        ("int-at-action-size", env.action_size),
        ("int-beyond-action-size", env.action_size + 3),
    ]


INVALID_LABELS = [label for label, _ in invalid_actions(FixedEnv())]


def test_invalid_action_fixture_is_sane() -> None:
    mask = expected_mask(INVALID_TEXT)
    label, (rule, node) = invalid_actions(FixedEnv())[0]
    assert label == "rule-cannot-apply"
    assert mask[rule][node] == 0
    assert any(any(row) for row in mask)


def pick(env: MathyEnv, label: str) -> Any:
    return dict(invalid_actions(env))[label]


@pytest.mark.parametrize("label", INVALID_LABELS)
def test_invalid_action_raise(label: str) -> None:
    env = FixedEnv(invalid_action_response="raise")
    start = env.state_from_text(INVALID_TEXT)
    # Take one valid step first so the step number is not trivially zero.
    swap = only_action(INVALID_TEXT, CommutativeSwapRule)
    state, _, _ = env.get_next_state(start, swap)
    text = state.agent.problem
    # The swapped text has the same node count and the same invalid cells.
    assert expected_mask(text) == expected_mask(INVALID_TEXT)
    action = pick(env, label)
    before = state.to_string()
    with pytest.raises(ValueError) as info:
        env.get_next_state(state, action)
    message = str(info.value)
    assert text in message
    assert re.search(r"\bstep\b\D{0,3}1\b", message), message
    decoded = env.to_action(action)
    assert str(tuple(decoded)) in message or str(action) in message
    assert state.to_string() == before


@pytest.mark.parametrize("label", INVALID_LABELS)
def test_invalid_action_penalize(label: str) -> None:
    env = FixedEnv(invalid_action_response="penalize", reward_discount=0.9)
    state = env.state_from_text(INVALID_TEXT, max_moves=6)
    before = state.to_string()
    history_before = list(state.agent.history)
    action = pick(env, label)
    out, step, _ = env.get_next_state(state, action)
    assert out.agent.problem == INVALID_TEXT
    assert out.agent.moves_remaining == 5
    assert len(out.agent.history) == len(history_before) + 1
    assert out.agent.history[:-1] == history_before
    assert out.agent.history[-1].raw == INVALID_TEXT
    assert tuple(out.agent.history[-1].action) == tuple(env.to_action(action))
    assert step.reward == EnvRewards.INVALID_MOVE == -0.5
    assert not is_terminal_transition(step)
    assert is_mid(step)
    assert step.discount == pytest.approx(0.9)
    assert state.to_string() == before
    assert state.agent.history == history_before


@pytest.mark.parametrize("label", INVALID_LABELS)
def test_invalid_action_terminal(label: str) -> None:
    env = FixedEnv(invalid_action_response="terminal")
    state = env.state_from_text(INVALID_TEXT, max_moves=6)
    before = state.to_string()
    out, step, _ = env.get_next_state(state, pick(env, label))
    assert is_terminal_transition(step)
    assert is_last(step)
    assert step.reward == env.get_lose_signal(out) == EnvRewards.LOSE
    assert step.discount == 0.0
    assert out.agent.moves_remaining == 0
    assert out.agent.problem == INVALID_TEXT
    assert state.to_string() == before


def test_penalized_moves_use_up_the_budget() -> None:
    env = FixedEnv(invalid_action_response="penalize")
    state = env.state_from_text(INVALID_TEXT, max_moves=3)
    rewards = []
    for _ in range(3):
        state, step, _ = env.get_next_state(state, (len(env.rules), 0))
        rewards.append(step)
    assert state.agent.moves_remaining == 0
    assert len(state.agent.history) == 4
    assert [s.reward for s in rewards[:2]] == [EnvRewards.INVALID_MOVE] * 2
    assert not is_terminal_transition(rewards[0])
    assert not is_terminal_transition(rewards[1])
    # With no moves left the episode ends, like any other move would.
    assert is_terminal_transition(rewards[2])


def test_valid_action_is_not_affected_by_invalid_action_response() -> None:
    text = INVALID_TEXT
    action = only_action(text, DistributiveFactorOutRule)
    results = []
    for response in INVALID_ACTION_RESPONSES:
        env = FixedEnv(invalid_action_response=response)
        out, step, change = env.get_next_state(env.state_from_text(text), action)
        results.append((out.agent.problem, step.reward, step.step_type.tolist()))
        assert change.result is not None
    assert results[0] == results[1] == results[2]
    assert results[0][0] != text


# -- 3. scoring a state: the order of the checks (the env's `reward_scheme`) -------


def test_real_play_runs_out_of_moves() -> None:
    env = FixedEnv(text="4x + 2x", complexity=1)  # 3 moves
    state, _ = env.get_initial_state()
    assert state.max_moves == 3
    swap = only_action("4x + 2x", CommutativeSwapRule)
    texts = ["4x + 2x"]
    steps = []
    for _ in range(3):
        state, step, _ = env.get_next_state(state, swap)
        texts.append(state.agent.problem)
        steps.append(step)
    assert [s.step_type.tolist() for s in steps] == [[1], [1], [2]]
    assert steps[-1].reward == EnvRewards.LOSE
    assert state.agent.moves_remaining == 0


def test_default_rewarding_and_penalizing_rules() -> None:
    env = FixedEnv()
    state = env.state_from_text("4x + 2x")
    assert set(env.get_rewarding_actions(state)) == {
        RestateSubtractionRule,
        ConstantsSimplifyRule,
        DistributiveFactorOutRule,
        VariableMultiplyRule,
    }
    assert set(env.get_penalizing_actions(state)) == {
        AssociativeSwapRule,
        DistributiveMultiplyRule,
    }


def test_rule_rewards_in_real_play() -> None:
    env = FixedEnv(reward_discount=0.9)
    state = env.state_from_text("4x + 2x")
    factored, step, change = env.get_next_state(
        state, only_action("4x + 2x", DistributiveFactorOutRule)
    )
    assert factored.agent.problem == "(4 + 2) * x"
    assert step.reward == EnvRewards.HELPFUL_MOVE
    assert step.discount == pytest.approx(0.9)
    assert isinstance(change.rule, DistributiveFactorOutRule)
    simplified, step, _ = env.get_next_state(
        factored, only_action("(4 + 2) * x", ConstantsSimplifyRule)
    )
    assert simplified.agent.problem == "6x"
    assert step.reward == EnvRewards.HELPFUL_MOVE

    swapped, step, _ = env.get_next_state(
        state, only_action("4x + 2x", CommutativeSwapRule)
    )
    assert swapped.agent.problem == "2x + 4x"
    assert step.reward == EnvRewards.TIMESTEP
    assert is_mid(step)

    distributed, step, _ = env.get_next_state(
        env.state_from_text("2 * (x + 3)"),
        only_action("2 * (x + 3)", DistributiveMultiplyRule),
    )
    assert distributed.agent.problem == "2x + 2 * 3"
    assert step.reward == EnvRewards.UNHELPFUL_MOVE


def test_custom_rewarding_actions_are_respected() -> None:
    class SwapLover(FixedEnv):
        def get_rewarding_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
            return [CommutativeSwapRule]

        def get_penalizing_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
            return [DistributiveFactorOutRule]

    env = SwapLover()
    state = env.state_from_text("4x + 2x")
    _, step, _ = env.get_next_state(state, only_action("4x + 2x", CommutativeSwapRule))
    assert step.reward == EnvRewards.HELPFUL_MOVE
    _, step, _ = env.get_next_state(
        state, only_action("4x + 2x", DistributiveFactorOutRule)
    )
    assert step.reward == EnvRewards.UNHELPFUL_MOVE


def test_initial_state_transition_is_timestep() -> None:
    env = FixedEnv(reward_discount=0.6)
    state, _ = env.get_initial_state()
    step = env.get_state_transition(state)
    assert is_mid(step)
    assert step.reward == EnvRewards.TIMESTEP
    assert step.discount == pytest.approx(0.6)
    assert not env.is_terminal_state(state)


def test_transition_observation_describes_the_state() -> None:
    env = FixedEnv()
    state = env.state_from_text("4x + 2x")
    step = env.get_state_transition(state)
    observation = step.observation
    assert isinstance(observation, MathyObservation)
    assert observation.mask == expected_mask("4x + 2x")


# -- 4. win signal ------------------------------------------------------------------


def test_lose_signal() -> None:
    env = FixedEnv()
    assert env.get_lose_signal(env.state_from_text("x")) == EnvRewards.LOSE == -1.0


# -- 5. previous-state penalty in real play ------------------------------------------


@pytest.mark.parametrize(
    "env_factory, text",
    [
        (lambda: FixedEnv(text="x + y"), "x + y"),
        (lambda: PolySimplify(), "4x + 2x"),
        (lambda: PolySimplify(), "3y + 2y + 7z"),
    ],
    ids=["base-x+y", "poly-4x+2x", "poly-3-terms"],
)
def test_commuting_back_and_forth_ends_the_episode(env_factory: Any, text: str) -> None:
    env: MathyEnv = env_factory()
    state = env.state_from_text(text, max_moves=50)
    assert not env.is_terminal_state(state)
    tree = ExpressionParser().parse(text)
    root_column = next(i for i, n in enumerate(tree.to_list("inorder")) if n is tree)
    swap = (CORE_RULE_TYPES.index(CommutativeSwapRule), root_column)
    steps = []
    texts = [text]
    for _ in range(6):
        state, step, _ = env.get_next_state(state, swap)
        steps.append(step)
        texts.append(state.agent.problem)
        if is_terminal_transition(step):
            break
    # The root swap toggles between two texts.
    assert texts[0] == texts[2] == texts[4] == texts[6]
    assert texts[1] == texts[3] == texts[5] != texts[0]
    expected_rewards = [
        EnvRewards.TIMESTEP,
        EnvRewards.PREVIOUS_LOCATION * 2,
        EnvRewards.PREVIOUS_LOCATION * 2,
        EnvRewards.PREVIOUS_LOCATION * 3,
        EnvRewards.PREVIOUS_LOCATION * 3,
    ]
    assert [s.reward for s in steps[:5]] == pytest.approx(expected_rewards)
    assert [s.reward for s in steps[1:4:2]] == pytest.approx([-0.04, -0.06])
    assert all(is_mid(s) for s in steps[:5])
    assert len(steps) == 6
    assert is_last(steps[5])
    assert steps[5].reward == EnvRewards.LOSE
    assert state.agent.moves_remaining == 44


# -- 6. finalize_state ---------------------------------------------------------------


def play_random_episode(env: MathyEnv, state: MathyEnvState) -> MathyEnvState:
    played = random_episode(env, state, env.np_random)
    assert played.done
    return played.state


def test_finalize_state_passes_after_random_play() -> None:
    env = PolySimplify(seed=11)
    lengths = []
    for difficulty in MathyEnvDifficulty:
        for _ in range(5):
            start, _ = env.get_initial_state(MathyEnvProblemArgs(difficulty=difficulty))
            state = play_random_episode(env, start)
            lengths.append(len(state.agent.history))
            assert state.agent.history[0].raw == start.agent.problem
            env.finalize_state(state)
    assert max(lengths) > 2


@pytest.mark.parametrize(
    "first, last",
    [("4x + 2x", "6x"), ("(x + 2)(x + 3)", "x^2 + 5x + 6"), ("2 * 3 + y", "y + 6")],
)
def test_finalize_state_accepts_equal_values(first: str, last: str) -> None:
    env = FixedEnv()
    env.finalize_state(with_history(env, [(first, (-1, -1)), (last, (0, 0))]))


@pytest.mark.parametrize(
    "first, last",
    [
        ("4x + 2x", "7x"),
        ("(x + 2)(x + 3)", "x^2 + 5x + 5"),
        ("2 * 3 + y", "y + 7"),
    ],
)
def test_finalize_state_catches_a_changed_value(first: str, last: str) -> None:
    env = FixedEnv()
    state = with_history(
        env, [(first, (-1, -1)), ("2x + 4x", (1, 3)), (last, (0, 0))]
    )
    with pytest.raises(ValueError):
        env.finalize_state(state)


def has_value(text: str, x: Fraction, y: Fraction) -> bool:
    """Whether `text` has a real value at the point (the oracle's)."""
    try:
        numeric_value(parse(text), {"x": x, "y": y})
        return True
    except NoValue:
        return False


@pytest.mark.parametrize(
    "first, last, why",
    [
        # Equal wherever both have a value, but the last has none at x = 0 or
        # for x < 0.
        ("x^3", "x^3 * x^0.5 * x^0.5 / x", "'x' to be nonzero"),
        ("x^3", "x^2 * x^0.5 * x^0.5", "'x' to be >= 0"),
        ("x", "x^2 / x", "'x' to be nonzero"),
        ("x", "x + 0 / x", "'x' to be nonzero"),
        ("x^1.5", "x^2 / x^0.5", "'x' to be nonzero"),
        ("x + y^0.5", "x^0.5 * x^0.5 + y^0.5", "'x' to be >= 0"),
    ],
)
def test_finalize_state_refuses_a_step_that_narrows_the_domain(
    first: str, last: str, why: str
) -> None:
    points = [(Fraction(x), Fraction(y)) for x in (-2, -1, 0, 1, 2) for y in (0, 1, 4)]
    assert any(has_value(first, *point) and not has_value(last, *point) for point in points)
    env = FixedEnv()
    state = with_history(env, [(first, (-1, -1)), (last, (0, 0))])
    with pytest.raises(ValueError, match=f"^expression domain narrowed: .*needs {re.escape(why)}"):
        env.finalize_state(state)


@pytest.mark.parametrize(
    "first, last",
    [
        ("x^2 / x", "x"),  # a value where the first has none is fine
        ("x^0.5 * x^0.5", "x"),
        ("1 / (2x + 2)", "1 / (2(x + 1))"),
        ("1 / (x - 1)", "-1 / (1 - x)"),
        ("1 / (x * y)", "1 / x / y"),
        ("x^0.5 * x^0.25", "x^(0.5 + 0.25)"),
        ("x^-1 + 1", "1 / x + 1"),
    ],
)
def test_finalize_state_accepts_a_domain_kept_or_widened(first: str, last: str) -> None:
    FixedEnv().finalize_state(with_history(FixedEnv(), [(first, (-1, -1)), (last, (0, 0))]))


# -- 7. states are values -----------------------------------------------------------


@pytest.mark.parametrize("response", ["penalize", "terminal"])
def test_stepping_never_mutates_the_old_state(response: str) -> None:
    env = FixedEnv(invalid_action_response=response)
    text = "4x + 2x + 7y"
    state = env.state_from_text(text, max_moves=10)
    expected = expected_mask(text)
    assert env.get_valid_moves(state) == expected
    observation_before = env.state_to_observation(state)
    before = state.to_string()
    history = state.agent.history
    history_copy = list(history)
    actions = [
        (r, n) for r, row in enumerate(expected) for n, ok in enumerate(row) if ok
    ] + [(len(env.rules), 0), (0, 0)]
    assert len(actions) > 3
    for action in actions:
        out, _, _ = env.get_next_state(state, action)
        assert out is not state
        assert out.agent is not state.agent
        assert out.agent.history is not history
        assert state.to_string() == before
        assert state.agent.history is history
        assert len(history) == 1
        assert history == history_copy
        assert state.agent.problem == text
        assert state.agent.moves_remaining == 10
        # the cached mask and parse of the old text are untouched
        assert env.get_valid_moves(state) == expected
        assert FixedEnv().get_valid_moves(state) == expected
        assert env.state_to_observation(state) == observation_before
    # A second step from a stepped state leaves the intermediate state intact too.
    first, _, _ = env.get_next_state(state, actions[0])
    first_before = first.to_string()
    first_history = first.agent.history
    env.get_next_state(first, (len(env.rules), 0))
    assert first.to_string() == first_before
    assert first.agent.history is first_history and len(first_history) == 2


def test_returned_change_does_not_alias_the_cache() -> None:
    env = FixedEnv()
    text = "4x + 2x"
    state = env.state_from_text(text)
    _, _, change = env.get_next_state(state, only_action(text, DistributiveFactorOutRule))
    assert change.result is not None
    # Mangling the returned tree must not affect later steps from the old state.
    change.result.get_root().left = None
    out, _, _ = env.get_next_state(state, only_action(text, DistributiveFactorOutRule))
    assert out.agent.problem == "(4 + 2) * x"
    assert env.get_valid_moves(state) == expected_mask(text)


# -- 8. bad input ---------------------------------------------------------------------

BAD_TEXTS = ["4x +", "(((", "4 $ x"]


def check_parse_error(info: Any, text: str) -> None:
    error = info.value
    assert isinstance(error, ValueError)
    assert repr(text) in str(error) or f'"{text}"' in str(error)
    cause = error.__cause__
    assert cause is not None
    assert raised_in_mathy_core(cause)
    # The parser's complaint is part of the message, on one line.
    complaint = getattr(cause, "message", None) or str(cause)
    assert " ".join(str(complaint).split()) in str(error)
    assert "\n" not in str(error)


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_unparsable_problem_from_problem_fn(text: str) -> None:
    env = FixedEnv(text=text)
    with pytest.raises(ValueError) as info:
        env.get_initial_state()
    check_parse_error(info, text)


@pytest.mark.parametrize("text", BAD_TEXTS)
@pytest.mark.parametrize("response", ["raise", "penalize", "terminal"])
def test_unparsable_problem_in_get_next_state(text: str, response: str) -> None:
    env = FixedEnv(invalid_action_response=response)
    state = state_reaching(env, text)
    with pytest.raises(ValueError) as info:
        env.get_next_state(state, (1, 0))
    check_parse_error(info, text)


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_unparsable_problem_in_masks(text: str) -> None:
    env = FixedEnv()
    state = state_reaching(env, text)
    for method in (
        env.get_valid_moves,
        env.get_valid_rules,
        env.get_agent_actions_count,
        env.get_state_transition,
    ):
        with pytest.raises(ValueError) as info:
            method(state)
        check_parse_error(info, text)


def test_problem_longer_than_max_seq_len() -> None:
    text = "4x + 2x"  # 7 nodes
    num_nodes = len(inorder_nodes(text))
    assert num_nodes == 7
    env = FixedEnv(text=text, max_seq_len=num_nodes - 1)
    with pytest.raises(ValueError) as info:
        env.get_initial_state()
    assert re.search(rf"\b{num_nodes}\b", str(info.value))
    # exactly max_seq_len nodes is fine
    state, _ = FixedEnv(text=text, max_seq_len=num_nodes).get_initial_state()
    assert state.agent.problem == text


def test_observation_longer_than_max_seq_len() -> None:
    env = FixedEnv()
    text = "4x + 2x + 3y"
    num_nodes = len(inorder_nodes(text))
    state = env.state_from_text(text)
    for obs_type in ObservationType:
        with pytest.raises(ValueError) as info:
            state.to_observation(max_seq_len=num_nodes - 2, obs_type=obs_type)
        assert re.search(rf"\b{num_nodes}\b", str(info.value))
    with pytest.raises(ValueError) as info:
        env.state_to_observation(state, max_seq_len=num_nodes - 1)
    assert re.search(rf"\b{num_nodes}\b", str(info.value))


# -- 9. problems, seeding, hash keys, observations ---------------------------------


def test_base_class_abstract_methods() -> None:
    env = MathyEnv()
    with pytest.raises(NotImplementedError):
        env.problem_fn(MathyEnvProblemArgs())
    with pytest.raises(NotImplementedError):
        env.get_env_namespace()
    with pytest.raises(NotImplementedError):
        env.get_initial_state()


@pytest.mark.parametrize("complexity", [1, 4, 9])
def test_max_moves_fn_default(complexity: int) -> None:
    problem = MathyEnvProblem("4x + 2x", complexity, NAMESPACE)
    for difficulty in MathyEnvDifficulty:
        args = MathyEnvProblemArgs(difficulty=difficulty)
        assert MathyEnv().max_moves_fn(problem, args) == complexity * 3


def test_get_initial_state() -> None:
    env = FixedEnv(text="4x + 2x + y", complexity=4, max_moves=99)
    state, problem = env.get_initial_state()
    assert problem == MathyEnvProblem("4x + 2x + y", 4, NAMESPACE)
    assert state.agent.problem == "4x + 2x + y"
    assert state.max_moves == 12  # complexity * 3, not the constructor's max_moves
    assert state.agent.moves_remaining == 12
    assert state.num_rules == len(env.rules) == 7
    assert state.agent.problem_type == NAMESPACE
    assert state.agent.history == [MathyEnvStateStep("4x + 2x + y", (-1, -1))]
    custom = FixedEnv(rules=fresh_rules()[:3])
    assert custom.get_initial_state()[0].num_rules == 3


def test_get_initial_state_uses_custom_max_moves_fn_and_params() -> None:
    seen: List[MathyEnvProblemArgs] = []

    class Custom(FixedEnv):
        def max_moves_fn(
            self, problem: MathyEnvProblem, config: MathyEnvProblemArgs
        ) -> int:
            seen.append(config)
            return 42

    args = MathyEnvProblemArgs(difficulty=MathyEnvDifficulty.hard)
    state, _ = Custom().get_initial_state(args)
    assert state.max_moves == 42 == state.agent.moves_remaining
    Custom().get_initial_state()
    assert [config.difficulty for config in seen] == [
        MathyEnvDifficulty.hard,
        MathyEnvDifficulty.easy,
    ]


def problems(env: MathyEnv, count: int, **kwargs: Any) -> List[str]:
    return [env.get_initial_state(**kwargs)[1].text for _ in range(count)]


def test_constructor_seed_reproduces_problems() -> None:
    first = problems(PolySimplify(seed=5), 15)
    second = problems(PolySimplify(seed=5), 15)
    assert first == second
    assert len(set(first)) > 5
    assert problems(PolySimplify(seed=6), 15) != first


def test_get_initial_state_seed_reseeds() -> None:
    env = PolySimplify()
    reference = problems(PolySimplify(seed=21), 5)
    problems(env, 3)
    assert env.get_initial_state(seed=21)[1].text == reference[0]
    assert problems(env, 4) == reference[1:]
    # reseeding again restarts the sequence
    assert env.get_initial_state(seed=21)[1].text == reference[0]
    other = PolySimplify(seed=1234)
    assert other.get_initial_state(seed=21)[1].text == reference[0]


def test_to_hash_key_is_the_problem_text() -> None:
    env = FixedEnv()
    state = env.state_from_text("4x + 2x")
    assert env.to_hash_key(state) == "4x + 2x"
    out, _, _ = env.get_next_state(state, only_action("4x + 2x", CommutativeSwapRule))
    assert env.to_hash_key(out) == "2x + 4x"


def test_is_terminal_state() -> None:
    poly = PolySimplify()
    assert poly.is_terminal_state(poly.state_from_text("4x + 2y")) is True
    assert poly.is_terminal_state(poly.state_from_text("4x + 2x")) is False
    env = FixedEnv()
    assert env.is_terminal_state(env.state_from_text("4x + 2y")) is False
    spent = with_history(env, [("4x + 2x", (-1, -1)), ("2x + 4x", (1, 3))], max_moves=1)
    assert env.is_terminal_state(spent) is True


def test_get_rule_from_timestep() -> None:
    env = FixedEnv()
    text = "4x + 2x"
    out, _, _ = env.get_next_state(
        env.state_from_text(text), only_action(text, DistributiveFactorOutRule)
    )
    rule = env.get_rule_from_timestep(out.agent.history[-1])
    assert isinstance(rule, DistributiveFactorOutRule)
    assert rule is env.rules[CORE_RULE_TYPES.index(DistributiveFactorOutRule)]


def test_state_to_observation_without_obs_type() -> None:
    env = FixedEnv()
    text = "4x + 2x + 9y"
    state = env.state_from_text(text)
    num_nodes = len(inorder_nodes(text))
    observation = env.state_to_observation(state)
    assert isinstance(observation, MathyObservation)
    assert observation.mask == expected_mask(text)
    assert len(observation.nodes) == len(observation.values) == num_nodes
    assert observation.type == state.get_problem_hash()
    assert observation.time == [0.0]
    padded = env.state_to_observation(state, max_seq_len=20)
    assert isinstance(padded, MathyObservation)
    assert len(padded.nodes) == len(padded.values) == 20
    assert padded.nodes[:num_nodes] == observation.nodes
    assert padded.nodes[num_nodes:] == [0] * (20 - num_nodes)
    assert [row[:num_nodes] for row in padded.mask] == expected_mask(text)
    assert all(len(row) == 20 and not any(row[num_nodes:]) for row in padded.mask)


def test_state_to_observation_with_obs_type() -> None:
    env = FixedEnv(max_seq_len=32)
    text = "4x + 2x + 9y"
    state = env.state_from_text(text)
    num_nodes = len(inorder_nodes(text))
    mask = expected_mask(text)
    padded_mask = np.zeros((len(env.rules), 32), dtype=np.float32)
    padded_mask[:, :num_nodes] = mask
    flat = env.state_to_observation(state, obs_type=ObservationType.FLAT)
    assert isinstance(flat, np.ndarray)
    assert flat.shape == (3 + 2 * 32 + len(env.rules) * 32,)
    assert flat[-len(env.rules) * 32 :].tolist() == padded_mask.ravel().tolist()
    flat_str = env.state_to_observation(state, obs_type="flat")
    assert isinstance(flat_str, np.ndarray)
    assert flat_str.tolist() == flat.tolist()
    graph = env.state_to_observation(state, obs_type=ObservationType.GRAPH)
    assert isinstance(graph, MathyGraphObservation)
    assert graph.num_nodes == num_nodes
    assert graph.action_mask.tolist() == padded_mask.ravel().tolist()
    small = env.state_to_observation(state, max_seq_len=16, obs_type="graph")
    assert isinstance(small, MathyGraphObservation)
    assert small.node_features.shape == (16, 4)
    assert small.action_mask.shape == (len(env.rules) * 16,)


# -- 10. global random state --------------------------------------------------------


def test_builtin_envs_leave_global_random_state_alone() -> None:
    from mathy_envs.envs import MATHY_BUILTIN_ENVS

    random.seed(1)
    np.random.seed(1)
    py_state = random.getstate()
    np_state: Any = np.random.get_state()
    for env_class in MATHY_BUILTIN_ENVS:
        env = env_class(seed=4)
        for difficulty in MathyEnvDifficulty:
            for _ in range(5):
                state, _ = env.get_initial_state(
                    MathyEnvProblemArgs(difficulty=difficulty)
                )
                for _ in range(4):
                    tree = ExpressionParser().parse(state.agent.problem)
                    try:
                        action = env.random_action(tree)
                    except ValueError:
                        break
                    state, step, _ = env.get_next_state(state, action)
                    env.state_to_observation(state, obs_type="flat")
                    if is_terminal_transition(step):
                        break
                env.finalize_state(state)
        # unseeded envs too
        unseeded = env_class()
        unseeded.get_initial_state()
    assert random.getstate() == py_state
    after: Any = np.random.get_state()
    assert after[0] == np_state[0]
    assert np.array_equal(after[1], np_state[1])
    assert after[2:] == np_state[2:]


# -- 11. states from text ------------------------------------------------------------


def test_state_from_text_is_the_start_state_of_the_text_in_the_env() -> None:
    env = FixedEnv(rules=fresh_rules()[:3], max_moves=17)
    state = env.state_from_text("4x + 2x")
    assert state == MathyEnvState(
        problem="4x + 2x", max_moves=17, num_rules=3, problem_type=NAMESPACE
    )
    assert state.max_moves == state.agent.moves_remaining == 17
    assert state.num_rules == len(env.rules) == 3
    assert state.agent.problem == "4x + 2x"
    assert state.agent.problem_type == env.get_env_namespace() == NAMESPACE
    assert state.agent.reward == 0.0
    assert state.agent.history == [MathyEnvStateStep("4x + 2x", (-1, -1))]
    assert len(env.get_valid_moves(state)) == state.num_rules
    # A built-in env: its namespace and the seven core rules.
    poly = PolySimplify()
    start = poly.state_from_text("4x + 2x")
    assert start.agent.problem_type == "mathy.polynomials.simplify"
    assert start.num_rules == 7
    assert start.get_problem_hash() == poly.get_initial_state()[0].get_problem_hash()


def test_state_from_text_budget_is_the_envs_max_moves_by_default() -> None:
    assert FixedEnv().state_from_text("4x + 2x").max_moves == 20
    state = PolySimplify(max_moves=7).state_from_text("4x + 2x")
    assert state.max_moves == state.agent.moves_remaining == 7


@pytest.mark.parametrize("max_moves", [0, 1, 12, 10**6])
def test_state_from_text_max_moves_overrides_the_envs(max_moves: int) -> None:
    env = FixedEnv(max_moves=5)
    state = env.state_from_text("4x + 2x", max_moves)
    assert state.max_moves == state.agent.moves_remaining == max_moves
    assert env.state_from_text("4x + 2x", max_moves=max_moves) == state
    assert env.max_moves == 5


def test_state_from_text_refuses_texts_longer_than_max_seq_len() -> None:
    text = "4x + 2x"  # 7 nodes
    with pytest.raises(ValueError) as info:
        FixedEnv(max_seq_len=6).state_from_text(text)
    message = str(info.value)
    assert repr(text) in message
    assert "7 nodes" in message and "max_seq_len=6" in message
    assert "pass a max_seq_len of at least 7" in message
    assert FixedEnv(max_seq_len=7).state_from_text(text).agent.problem == text


def test_state_from_text_refuses_unparsable_text() -> None:
    with pytest.raises(ValueError, match="cannot parse problem text '4x \\+'"):
        FixedEnv().state_from_text("4x +")


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_state_from_text_explains_unparsable_text(text: str) -> None:
    with pytest.raises(ValueError) as info:
        FixedEnv().state_from_text(text)
    check_parse_error(info, text)


@pytest.mark.parametrize("bad", [None, 5, 2.5, b"4x", ["4x"], ("4x",)], ids=repr)
def test_state_from_text_refuses_what_is_not_a_text(bad: Any) -> None:
    with pytest.raises(ValueError, match="must be a text") as info:
        FixedEnv().state_from_text(bad)
    assert "\n" not in str(info.value)


def test_state_from_text_of_an_equation() -> None:
    # MathyEnv itself works with equations ...
    env = FixedEnv()
    state = env.state_from_text("x = 2 + 3")
    assert env.get_valid_moves(state) == expected_mask("x = 2 + 3")
    # ... goal envs (every built-in env) refuse them when the state is built,
    # and on use of a state built by hand.
    poly = PolySimplify()
    with pytest.raises(ValueError, match="PolySimplify does not support equations"):
        poly.state_from_text("x = 2 + 3")
    by_hand = MathyEnvState(problem="x = 2 + 3", max_moves=10, num_rules=len(poly.rules))
    for use in (
        lambda: poly.get_valid_moves(by_hand),
        lambda: poly.get_next_state(by_hand, (0, 4)),
        lambda: poly.get_state_transition(by_hand),
    ):
        with pytest.raises(ValueError, match="PolySimplify does not support equations"):
            use()


# -- user code is given trees of its own -------------------------------------------

LIKE_TERMS = "4x + 2y + 2x"


def _rewrite_and_keep(kept: List[Tuple[str, MathExpression]], text: str, tree: MathExpression) -> None:
    """What careless user code does: keep the tree, and change it (the last
    term of `4x + 2y + 2x` becomes `2z`, which would make it a win)."""
    kept.append((text, tree))
    if text == LIKE_TERMS:
        tree.set_right(MultiplyExpression(ConstantExpression(2), VariableExpression("z")))


class _RewritingTransition(PolySimplify):
    kept: List[Tuple[str, MathExpression]]

    def transition_fn(
        self, env_state: MathyEnvState, expression: MathExpression, features: MathyObservation
    ) -> Optional[TimeStep]:
        _rewrite_and_keep(self.kept, env_state.agent.problem, expression)
        return super().transition_fn(env_state, expression, features)


class _RewritingGoal(PolySimplify):
    kept: List[Tuple[str, MathExpression]]

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        _rewrite_and_keep(self.kept, env_state.agent.problem, expression)
        return super().is_goal(env_state, expression)


class _RewritingVerdict(RewardScheme):
    def __init__(self, kept: List[Tuple[str, MathExpression]]) -> None:
        self.kept = kept

    def own_verdict(self, env, state, expression, features):  # type: ignore[no-untyped-def]
        _rewrite_and_keep(self.kept, state.agent.problem, expression)
        return super().own_verdict(env, state, expression, features)


def _rewriting_env(where: str, kept: List[Tuple[str, MathExpression]]) -> MathyEnv:
    if where == "transition_fn":
        env: MathyEnv = _RewritingTransition()
    elif where == "is_goal":
        env = _RewritingGoal()
    elif where == "instance transition_fn":
        env = PolySimplify()
        built_in = env.transition_fn

        def transition_fn(state: MathyEnvState, expression: MathExpression, features: Any) -> Any:
            _rewrite_and_keep(kept, state.agent.problem, expression)
            return built_in(state, expression, features)

        env.transition_fn = transition_fn  # type: ignore[method-assign]
        return env
    else:
        env = PolySimplify()
        env.reward_scheme = _RewritingVerdict(kept)
        return env
    env.kept = kept  # type: ignore[attr-defined]
    return env


@pytest.mark.parametrize(
    "where", ["transition_fn", "is_goal", "instance transition_fn", "scheme own_verdict"]
)
def test_user_code_that_rewrites_its_tree_changes_no_later_answer(where: str) -> None:
    before = answers_of(LIKE_TERMS)
    assert before[0] == EnvRewards.TIMESTEP and before[1] == expected_mask(LIKE_TERMS)
    kept: List[Tuple[str, MathExpression]] = []
    env = _rewriting_env(where, kept)
    state = env.state_from_text(LIKE_TERMS, max_moves=10)
    env.get_state_transition(state)
    assert [text for text, _ in kept] == [LIKE_TERMS]
    assert str(kept[0][1]) == "4x + 2y + 2z"  # the user's copy, changed
    assert answers_of(LIKE_TERMS) == before
    # The user's env steps from the real expression as well.
    valid = np.argwhere(np.asarray(env.get_valid_moves(state)))
    for rule, node in valid:
        out, _, _ = env.get_next_state(state, (int(rule), int(node)))
        assert out.agent.problem in before[2]
    assert str(kept[0][1]) == "4x + 2y + 2z"


def test_a_tree_kept_by_transition_fn_is_never_changed_by_later_steps() -> None:
    kept: List[Tuple[str, MathExpression]] = []

    class Keeping(PolySimplify):
        def transition_fn(
            self, env_state: MathyEnvState, expression: MathExpression, features: MathyObservation
        ) -> Optional[TimeStep]:
            kept.append((env_state.agent.problem, expression))
            return super().transition_fn(env_state, expression, features)

    env = Keeping()
    rng = random.Random(5)
    for text in ["4x + 2y + 2x + 7 + 3y", "2x * 3x + (x + 4x)", LIKE_TERMS]:
        state = env.state_from_text(text, max_moves=12)
        env.get_state_transition(state)
        for _ in range(12):
            valid = np.argwhere(np.asarray(env.get_valid_moves(state)))
            if len(valid) == 0:
                break
            rule, node = valid[rng.randrange(len(valid))]
            state, step, _ = env.get_next_state(state, (int(rule), int(node)))
            if is_terminal_transition(step):
                break
    assert len(kept) > 10
    for text, tree in kept:
        assert str(tree) == str(ExpressionParser().parse(text)), text
    # Each call got a tree of its own.
    assert len({id(tree) for _, tree in kept}) == len(kept)


class _OwnProblems(PolySimplify):
    """A user's env that only draws its own problems: it keeps the shared tree."""

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("4x + 2x", 2, self.get_env_namespace())


def test_library_code_alone_is_given_the_cached_tree() -> None:
    for env_type in [*MATHY_BUILTIN_ENVS, _OwnProblems]:
        env = env_type()
        assert env._judged_by_library(env.reward_scheme), env_type.__name__
    kept: List[Tuple[str, MathExpression]] = []
    for where in ["transition_fn", "is_goal", "instance transition_fn", "scheme own_verdict"]:
        env = _rewriting_env(where, kept)
        assert not env._judged_by_library(env.reward_scheme), where
    env = PolySimplify()
    env.reward_scheme = _RewritingVerdict(kept)
    assert not env._judged_by_library(env.reward_scheme)
    env.reward_scheme = RewardScheme()
    assert env._judged_by_library(env.reward_scheme)


def test_tree_of_gives_the_states_tree_for_the_unread_tree_only() -> None:
    env = PolySimplify()
    state = env.state_from_text(LIKE_TERMS, max_moves=10)
    mine = ExpressionParser().parse("2x")
    assert env.tree_of(state, mine) is mine
    tree = env.tree_of(state, UNREAD_TREE)
    assert tree is env._expressions.parse(LIKE_TERMS).tree
    assert str(tree) == LIKE_TERMS
    with pytest.raises(ValueError, match="MathyEnvState"):
        env.tree_of("4x", UNREAD_TREE)  # type: ignore[arg-type]


def test_user_code_never_sees_the_unread_tree() -> None:
    # An env whose tree_of is the user's own is judged as user code: every
    # method is given a private copy of the real tree, never UNREAD_TREE.
    seen: List[MathExpression] = []

    class MyTreeOf(PolySimplify):
        def tree_of(self, env_state: MathyEnvState, expression: MathExpression) -> MathExpression:
            seen.append(expression)
            return super().tree_of(env_state, expression)

    class MyGoal(PolySimplify):
        def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
            seen.append(expression)
            return super().is_goal(env_state, expression)

    class Wrapped(PolySimplify):
        # functools.wraps gives the wrapper the library method's module.
        @functools.wraps(PolySimplify.is_goal)
        def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
            seen.append(expression)
            return super().is_goal(env_state, expression)

    class InstalledWhileScoring(RewardScheme):
        # User code run while a step is scored sets is_goal on the env (as
        # another thread could): that is_goal still gets a private copy.
        def oversize(self, env: Any, state: MathyEnvState, features: Any) -> Any:
            if "is_goal" not in env.__dict__:
                def is_goal(env_state: MathyEnvState, expression: MathExpression) -> bool:
                    seen.append(expression)
                    return False

                env.is_goal = is_goal
            return super().oversize(env, state, features)

    for env in (MyTreeOf(), MyGoal(), Wrapped(), PolySimplify(reward_scheme=InstalledWhileScoring())):
        state = env.state_from_text(LIKE_TERMS, max_moves=10)
        env.get_state_transition(state)
        action = valid_actions(env, state)[0]
        env.get_next_state(state, action)
    assert len(seen) >= 4
    assert all(tree is not UNREAD_TREE and tree.get_root() is tree for tree in seen)
    assert {str(tree) for tree in seen} >= {LIKE_TERMS}


def test_scoring_a_state_the_native_core_judges_builds_no_tree() -> None:
    # PolySimplify's goal is the native core's verdict when it parsed the text:
    # scoring the state must not make mathy_core's tree of it (the slow part).
    env = PolySimplify()
    text = "4x + 2y + 2x + 7"
    state = env.state_from_text(text, max_moves=10)
    entry = env._expressions.parse(text)
    step = env.get_state_transition(state)
    assert step.reward == EnvRewards.TIMESTEP
    # A lazily made tree is not in the entry's __dict__ until it is read.
    assert ("tree" in entry.__dict__) == (entry.native is None)
    assert (entry.native is None) == (CORE == "python")


def test_revisits_are_counted_in_the_history_get_out_state_returns() -> None:
    # A state class that keeps only its last two steps: revisits are counted in
    # the state the step made, as get_state_transition counts them.
    class ShortMemory(MathyEnvState):
        def get_out_state(
            self, problem: str, action: Tuple[int, int], moves_remaining: int
        ) -> "MathyEnvState":
            out = ShortMemory(state=super().get_out_state(problem, action, moves_remaining))
            out.agent.history = out.agent.history[-2:]
            return out

    env = FixedEnv(text="4x + 2y")
    state: MathyEnvState = ShortMemory(
        problem="4x + 2y", max_moves=10, num_rules=len(env.rules)
    )
    swap = (rule_index(env, CommutativeSwapRule), 3)
    rewards = []
    for _ in range(4):
        state, step, _ = env.get_next_state(state, swap)
        rewards.append(step.reward)
        assert step.reward == env.get_state_transition(state).reward
    assert rewards == [EnvRewards.TIMESTEP] * 4


def test_a_problem_fn_may_return_any_problem_with_a_text_and_a_complexity() -> None:
    class Problem(NamedTuple):
        text: str
        complexity: int
        type: str

    class Plain(FixedEnv):
        def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
            return Problem("4x + 2x", 2, "ns")  # type: ignore[return-value]

    state, problem = Plain().get_initial_state()
    assert state.agent.problem == "4x + 2x" and state.max_moves == 6

    class Textless(FixedEnv):
        def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
            return ("4x + 2x", 2, "ns")  # type: ignore[return-value]

    with pytest.raises(ValueError, match="Textless.problem_fn must return a MathyEnvProblem"):
        Textless().get_initial_state()


# -- namespace and generator as class attributes -------------------------------------


def _fixed_problem(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
    """A generator of one problem (drawing once from `rng`, as generators do)."""
    rng.integers(10)
    return MathyEnvProblem("4x + 2x", 2, "mathy.test.generator")


class DeclaredEnv(MathyEnv):
    """An env that declares its namespace and generator, no methods."""

    namespace = "mathy.test.declared"
    generator = staticmethod(_fixed_problem)


def test_an_env_may_declare_namespace_and_generator_as_class_attributes() -> None:
    env = DeclaredEnv()
    assert env.get_env_namespace() == "mathy.test.declared"
    state, problem = env.get_initial_state()
    # The problem's type is the env's namespace, as the state's problem type is.
    assert problem == MathyEnvProblem("4x + 2x", 2, "mathy.test.declared")
    assert state.agent.problem_type == "mathy.test.declared"
    assert env.problem_fn(MathyEnvProblemArgs()) == problem


def test_a_plain_function_declared_as_generator_is_not_bound_to_the_env() -> None:
    class PlainEnv(MathyEnv):
        namespace = "mathy.test.plain"
        generator = _fixed_problem

    assert PlainEnv().get_initial_state()[1].text == "4x + 2x"


def test_an_overridden_method_wins_over_the_class_attribute() -> None:
    """The seed docs' custom envs override the methods: a subclass of a
    built-in env that does so gets its own problems and namespace."""

    class Overriding(PolySimplify):
        def get_env_namespace(self) -> str:
            return "mathy.test.overriding"

        def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
            return MathyEnvProblem("2y + 3y", 2, self.get_env_namespace())

    state, problem = Overriding().get_initial_state()
    assert problem.text == "2y + 3y"
    assert state.agent.problem_type == "mathy.test.overriding"


def test_a_built_in_envs_subclass_with_its_own_namespace_types_its_problems_so() -> None:
    class Renamed(PolySimplify):
        namespace = "mathy.test.renamed"

    state, problem = Renamed(seed=1).get_initial_state()
    assert problem.type == state.agent.problem_type == "mathy.test.renamed"
    assert problem.text == PolySimplify(seed=1).get_initial_state()[1].text


def test_the_generator_argument_wins_over_the_class_generator() -> None:
    def other(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("5z + z", 2, "mathy.test.other")

    env = DeclaredEnv(generator=other)
    assert env.generator is other
    assert env.get_initial_state()[1].text == "5z + z"
    assert DeclaredEnv().generator is None  # the instance holds only a generator= argument
    assert DeclaredEnv.generator is _fixed_problem


def test_a_class_with_neither_attribute_nor_method_raises_as_before() -> None:
    class Bare(MathyEnv):
        pass

    with pytest.raises(NotImplementedError, match="namespace"):
        Bare().get_env_namespace()
    with pytest.raises(NotImplementedError, match="generator"):
        Bare().problem_fn(MathyEnvProblemArgs())

    class NamespaceOnly(MathyEnv):
        namespace = "mathy.test.namespace.only"

    with pytest.raises(NotImplementedError, match="generator"):
        NamespaceOnly().get_initial_state()


@pytest.mark.parametrize("env_class", MATHY_BUILTIN_ENVS)
def test_built_in_envs_declare_their_namespace_and_generator(env_class: Type[MathyEnv]) -> None:
    import sys

    module = sys.modules[env_class.__module__]
    assert env_class.namespace == module.NAMESPACE  # type: ignore[attr-defined]
    assert "get_env_namespace" not in vars(env_class)
    generator = env_class.generator
    assert generator is not None and generator.__module__ == env_class.__module__
    env = env_class(seed=2)
    problem = env.get_initial_state()[1]
    assert problem == generator(np.random.default_rng(2), MathyEnvProblemArgs())


def test_env_generator_is_the_argument_given_or_none() -> None:
    # A built-in env declares its generator on the class; the instance's
    # `generator` is still only what was passed as `generator=`, as before.
    assert PolySimplify().generator is None
    assert PolySimplify.generator is not None

    def mine(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("2x + 3x", 2, "mine")

    assert PolySimplify(generator=mine).generator is mine


def test_a_subclass_problem_fn_still_wins_over_the_class_generator() -> None:
    class Fixed(PolySimplify):
        def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
            return MathyEnvProblem("5x + 2x", 2, self.get_env_namespace())

    state, problem = Fixed().get_initial_state()
    assert problem.text == state.agent.problem == "5x + 2x"


@pytest.mark.parametrize(
    "declaration, message",
    [
        ({"namespace": 5}, "namespace must be a non-empty str"),
        ({"namespace": ""}, "namespace must be a non-empty str"),
        ({"generator": "x"}, "generator must be a function"),
    ],
)
def test_a_wrong_declaration_is_refused_when_the_class_is_made(
    declaration: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        type("Declared", (MathyEnv,), dict(declaration))
