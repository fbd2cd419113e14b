"""`check_mathy_env` (`mathy_envs/checker.py`): every registered environment keeps
the `MathyEnv` contract, and environments broken on purpose, one rule at a
time, fail with that rule's name and a message that says what went wrong.

The custom env of `envs/test_custom_env.py` is checked there.
"""

import math
import pickle
import re
from typing import Any, Callable, List, Optional, Tuple, Type

import numpy as np
import pytest
from mathy_core import ExpressionChangeRule, MathExpression

from mathy_envs import MathyEnv, MathyEnvState
from mathy_envs.checker import (
    CONTRACT,
    MAX_EPISODES,
    MathyEnvContractError,
    check_mathy_env,
)
from mathy_envs.envs import ENV_TASKS, PolySimplify
from mathy_envs.envs.complex_simplify import complex_simplify_problem
from mathy_envs.observations import MathyObservation
from mathy_envs.rewards import RewardScheme
from mathy_envs.time_step import TimeStep, termination, transition
from mathy_envs.types import MathyEnvProblem, MathyEnvProblemArgs

TASKS = list(ENV_TASKS)


# -- every registered env passes -------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_every_registered_env_passes(task: str) -> None:
    env = ENV_TASKS[task]()
    assert check_mathy_env(env) is None


@pytest.mark.parametrize("task", TASKS)
def test_every_registered_env_passes_with_other_settings(task: str) -> None:
    env = ENV_TASKS[task](max_seq_len=160, invalid_action_response="penalize", seed=4)
    check_mathy_env(env, seed=31, episodes=5)


def test_a_generator_given_at_construction_passes() -> None:
    check_mathy_env(PolySimplify(generator=complex_simplify_problem))


def test_checking_leaves_the_problem_stream_alone() -> None:
    expected = PolySimplify(seed=5)
    checked = PolySimplify(seed=5)
    first = [expected.get_initial_state(print_problem=False)[1] for _ in range(2)]
    assert [
        checked.get_initial_state(print_problem=False)[1] for _ in range(2)
    ] == first
    rng = checked.np_random
    check_mathy_env(checked)
    assert checked.np_random is rng
    later = [expected.get_initial_state(print_problem=False)[1] for _ in range(3)]
    assert [
        checked.get_initial_state(print_problem=False)[1] for _ in range(3)
    ] == later


def test_the_error_is_an_assertion_error_naming_env_rule_and_requirement() -> None:
    assert issubclass(MathyEnvContractError, AssertionError)
    with pytest.raises(MathyEnvContractError) as raised:
        check_mathy_env(_EmptyNamespace())
    error = raised.value
    assert error.rule == "namespace"
    message = str(error)
    assert message.startswith(
        "_EmptyNamespace breaks the MathyEnv contract, rule 'namespace'"
    )
    assert CONTRACT["namespace"] in message
    assert error.detail in message


def test_the_error_pickles() -> None:
    with pytest.raises(MathyEnvContractError) as raised:
        check_mathy_env(_EmptyNamespace())
    clone = pickle.loads(pickle.dumps(raised.value))
    assert type(clone) is MathyEnvContractError
    assert (clone.env_name, clone.rule, clone.detail, str(clone)) == (
        "_EmptyNamespace",
        "namespace",
        raised.value.detail,
        str(raised.value),
    )


def test_every_rule_is_described() -> None:
    assert all(isinstance(text, str) and text for text in CONTRACT.values())
    with pytest.raises(TypeError):
        CONTRACT["new"] = "read-only"  # type: ignore[index]


# -- bad arguments ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "env, message",
    [
        (
            PolySimplify,
            r"takes an environment instance, got the class PolySimplify: pass PolySimplify\(\)",
        ),
        ("4x + 2x", "takes a MathyEnv instance, got str '4x \\+ 2x'"),
        (None, "takes a MathyEnv instance, got NoneType None"),
        (int, "takes a MathyEnv instance, got type <class 'int'>"),
        ("x" * 5000, r"\.\.\. \(5000 characters\)"),
    ],
)
def test_not_an_env_is_a_value_error(env: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message) as raised:
        check_mathy_env(env)
    assert len(str(raised.value)) < 300


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"seed": 1.5}, "seed must be a non-negative int"),
        ({"seed": True}, "seed must be a non-negative int"),
        ({"episodes": 0}, f"episodes must be an int from 1 to {MAX_EPISODES}"),
        ({"episodes": MAX_EPISODES + 1}, "episodes must be an int"),
        ({"episodes": "3"}, "episodes must be an int"),
    ],
)
def test_bad_options_are_value_errors(kwargs: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_mathy_env(PolySimplify(), **kwargs)


def test_an_unknown_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        check_mathy_env(PolySimplify(), episode=2)  # type: ignore[call-arg]


# -- environments broken on purpose -------------------------------------------------------


class _EmptyNamespace(PolySimplify):
    def get_env_namespace(self) -> str:
        return ""


class _NoRules(PolySimplify):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(rules=[], **kwargs)


class _TupleProblem(PolySimplify):
    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return ("4x + 2x", 2, "ns")  # type: ignore[return-value]


class _Unparsable(PolySimplify):
    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("4x + + 2x", 2, self.get_env_namespace())


class _TooLong(PolySimplify):
    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        text = " + ".join(f"{n}x" for n in range(2, 40))
        return MathyEnvProblem(text, 38, self.get_env_namespace())


class _ZeroComplexity(PolySimplify):
    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return super().problem_fn(params)._replace(complexity=0)


class _Unseeded(PolySimplify):
    """Draws from a counter of its own, not from `np_random`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.drawn = 0

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        self.drawn += 1
        return MathyEnvProblem(f"{self.drawn + 1}x + x", 2, self.get_env_namespace())


class _NoBudget(PolySimplify):
    def max_moves_fn(
        self, problem: MathyEnvProblem, config: MathyEnvProblemArgs
    ) -> int:
        return 0


class _AlreadySolved(PolySimplify):
    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("6x + 2y", 2, self.get_env_namespace())


class _BoolMask(PolySimplify):
    def valid_moves_array(self, env_state: MathyEnvState) -> Any:
        return np.asarray(super().valid_moves_array(env_state), dtype=bool)


class _OffersEverything(PolySimplify):
    """Its mask offers every move, get_next_state still refuses invalid ones."""

    def valid_moves_array(self, env_state: MathyEnvState) -> Any:
        return np.ones_like(super().valid_moves_array(env_state))

    def get_valid_moves(self, env_state: MathyEnvState) -> List[List[int]]:
        return self.valid_moves_array(env_state).tolist()  # type: ignore[no-any-return]


class _ChangesValues(PolySimplify):
    """Every step turns the expression into `999`."""

    def get_next_state(
        self, env_state: MathyEnvState, action: Any
    ) -> Tuple[MathyEnvState, TimeStep, ExpressionChangeRule]:
        _, step, change = super().get_next_state(env_state, action)
        out = env_state.get_out_state(
            "999", action, env_state.agent.moves_remaining - 1
        )
        return out, step, change


class _MutatesState(PolySimplify):
    def get_next_state(
        self, env_state: MathyEnvState, action: Any
    ) -> Tuple[MathyEnvState, TimeStep, ExpressionChangeRule]:
        result = super().get_next_state(env_state, action)
        env_state.agent.moves_remaining -= 1
        return result


class _NoMoveUsed(PolySimplify):
    def get_next_state(
        self, env_state: MathyEnvState, action: Any
    ) -> Tuple[MathyEnvState, TimeStep, ExpressionChangeRule]:
        out, step, change = super().get_next_state(env_state, action)
        out.agent.moves_remaining += 1
        return out, step, change


class _PairResult(PolySimplify):
    def get_next_state(self, env_state: MathyEnvState, action: Any) -> Any:
        out, step, _ = super().get_next_state(env_state, action)
        return out, step


class _NaNScheme(RewardScheme):
    def rule_used(self, env: Any, state: Any, features: Any) -> Optional[TimeStep]:
        return transition(features, math.nan, env.reward_discount)


class _BigDiscountScheme(RewardScheme):
    def rule_used(self, env: Any, state: Any, features: Any) -> Optional[TimeStep]:
        return TimeStep(transition(features, 0.0).step_type, 0.0, 1.5, features)


class _KeepsPlayingScheme(RewardScheme):
    """Ignores the env's own verdict: a win does not end the episode."""

    def own_verdict(
        self, env: Any, state: Any, expression: Any, features: Any
    ) -> Optional[TimeStep]:
        return None


class _WinsAtOnce(PolySimplify):
    """Any move wins (so that a win is reached for sure)."""

    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        if len(env_state.agent.history) > 1:
            return termination(features, self.get_win_signal(env_state))
        return None


class _WinsWithoutEnding(_WinsAtOnce):
    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        verdict = super().transition_fn(env_state, expression, features)
        if verdict is None:
            return None
        return transition(features, verdict.reward, 0.5)


class _NeverEnds(PolySimplify):
    """Never won, and its scheme lets the budget run out without a loss."""

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        return False


class _NoLossScheme(RewardScheme):
    def out_of_moves(self, env: Any, state: Any, features: Any) -> Optional[TimeStep]:
        return None


class _NoGraph(PolySimplify):
    def state_to_observation(
        self, state: Any, max_seq_len: Any = None, obs_type: Any = None
    ) -> Any:
        if obs_type == "graph":
            raise RuntimeError("graphs are not supported")
        return super().state_to_observation(state, max_seq_len, obs_type=obs_type)


def _bad_generator(
    rng: np.random.Generator, params: MathyEnvProblemArgs
) -> MathyEnvProblem:
    return "4x + 2x"  # type: ignore[return-value]


BROKEN: List[Tuple[str, Callable[[], MathyEnv], str, str]] = [
    # (case, make the env, rule, a regex the message matches)
    ("empty namespace", _EmptyNamespace, "namespace", r"got str ''"),
    ("no rules", _NoRules, "rules", r"env.rules is list \[\]"),
    (
        "a tuple for a problem",
        _TupleProblem,
        "problem",
        r"problem_fn \(easy\) raised ValueError: .*must return a MathyEnvProblem",
    ),
    (
        "a generator that returns text",
        lambda: PolySimplify(generator=_bad_generator),
        "problem",
        r"the env's generator \(easy\) raised ValueError",
    ),
    (
        "an unparsable text",
        _Unparsable,
        "problem-text",
        r"check_fits on the easy problem's text raised ValueError: cannot parse problem text '4x \+ \+ 2x'",
    ),
    (
        "a text longer than max_seq_len",
        _TooLong,
        "problem-text",
        r"more than max_seq_len=128",
    ),
    ("zero complexity", _ZeroComplexity, "problem-complexity", r"has complexity 0"),
    (
        "problems not drawn from np_random",
        _Unseeded,
        "seeded",
        r"seed=0 drew '2x \+ x' \(complexity 2\), then '3x \+ x'",
    ),
    ("no move budget", _NoBudget, "start-state", r"its move budget is 0"),
    (
        "a problem already solved",
        _AlreadySolved,
        "start-not-over",
        r"the start state of '6x \+ 2y' is terminal",
    ),
    ("a bool mask", _BoolMask, "mask", r"has dtype bool, not int8"),
    (
        "a mask offering refused moves",
        _OffersEverything,
        "step-result",
        r"get_next_state for move \(0, 0\) of .* raised ValueError: invalid action",
    ),
    (
        "a step that changes the value",
        _ChangesValues,
        "step-value",
        r"finalize_state after move .* raised ValueError: expression value changed",
    ),
    (
        "a step that changes its input",
        _MutatesState,
        "state-unchanged",
        r"changed the state it was given",
    ),
    (
        "a step that uses no move",
        _NoMoveUsed,
        "step-result",
        r"left \d+ moves, not \d+",
    ),
    (
        "a step returning a pair",
        _PairResult,
        "step-result",
        r"returned \(MathyEnvState",
    ),
    (
        "a NaN reward",
        lambda: PolySimplify(reward_scheme=_NaNScheme()),
        "step-reward",
        r"the reward of move .* is nan",
    ),
    (
        "a discount above 1",
        lambda: PolySimplify(reward_scheme=_BigDiscountScheme()),
        "step-reward",
        r"the discount of move .* is 1.5",
    ),
    (
        "a win with a non-terminal step",
        _WinsWithoutEnding,
        "win-terminal",
        r"wins \(reward 2.0\) with a non-terminal step",
    ),
    (
        "a scheme that plays on after a win",
        lambda: _WinsAtOnce(reward_scheme=_KeepsPlayingScheme()),
        "win-terminal",
        r"did not end the episode",
    ),
    (
        "episodes that never end",
        lambda: _NeverEnds(reward_scheme=_NoLossScheme(), previous_state_penalty=False),
        "episode-end",
        r"used all \d+ moves and did not end",
    ),
    (
        "an observation type that can't be built",
        _NoGraph,
        "observations",
        r"the 'graph' observation of .* raised RuntimeError: graphs are not supported",
    ),
]


@pytest.mark.parametrize(
    "make, rule, message",
    [
        pytest.param(make, rule, message, id=case)
        for case, make, rule, message in BROKEN
    ],
)
def test_a_broken_env_fails_with_the_rule_it_breaks(
    make: Callable[[], MathyEnv], rule: str, message: str
) -> None:
    env = make()
    with pytest.raises(MathyEnvContractError) as raised:
        check_mathy_env(env)
    error = raised.value
    assert error.rule == rule, str(error)
    assert str(error).startswith(
        f"{type(env).__name__} breaks the MathyEnv contract, rule {rule!r} ({CONTRACT[rule]}): "
    )
    assert re.search(message, error.detail), error.detail
    assert len(error.detail) < 600  # user texts are quoted short


def test_every_rule_has_a_broken_env() -> None:
    broken = {rule for _, _, rule, _ in BROKEN}
    assert broken == set(CONTRACT)


def test_an_exception_of_the_envs_code_is_the_cause() -> None:
    with pytest.raises(MathyEnvContractError) as raised:
        check_mathy_env(_NoGraph())
    assert isinstance(raised.value.__cause__, RuntimeError)


def test_long_texts_are_quoted_short() -> None:
    class _Huge(PolySimplify):
        def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
            return MathyEnvProblem("4x + " * 1000, 2, self.get_env_namespace())

    with pytest.raises(MathyEnvContractError) as raised:
        check_mathy_env(_Huge())
    assert raised.value.rule == "problem-text"
    assert "(5000 characters)" in str(raised.value)
    assert len(str(raised.value)) < 900


def test_a_broken_env_class_fails_in_every_registered_position() -> None:
    """A subclass of each registered env that breaks one rule fails it too."""
    for task, env_class in ENV_TASKS.items():
        broken: Type[MathyEnv] = type(
            f"Broken{env_class.__name__}",
            (env_class,),
            {"max_moves_fn": lambda self, problem, config: 0},
        )
        with pytest.raises(MathyEnvContractError) as raised:
            check_mathy_env(broken())
        assert raised.value.rule == "start-state", (task, str(raised.value))


def test_an_np_random_that_is_not_a_generator_is_a_value_error() -> None:
    env = PolySimplify()
    env.np_random = np.random.RandomState(0)  # type: ignore[assignment]
    with pytest.raises(ValueError, match="np_random must be a numpy.random.Generator"):
        check_mathy_env(env)


def test_an_env_that_declares_namespace_and_generator_passes() -> None:
    from mathy_envs.envs.goal import SimplifyGoalEnv
    from mathy_envs.envs.poly_simplify import poly_simplify_problem

    class Declared(SimplifyGoalEnv):
        namespace = "mathy.test.declared"
        generator = staticmethod(poly_simplify_problem)

    assert check_mathy_env(Declared()) is None


def test_a_bad_class_generator_is_reported_as_problem_fn() -> None:
    """A class's generator is what its problem_fn calls: a failure names
    problem_fn, not the generator= argument."""
    from mathy_envs.envs.goal import SimplifyGoalEnv

    def broken(rng: Any, params: Any) -> Any:
        raise RuntimeError("no problems today")

    class Broken(SimplifyGoalEnv):
        namespace = "mathy.test.broken"
        generator = staticmethod(broken)

    with pytest.raises(Exception) as info:
        check_mathy_env(Broken())
    assert "): problem_fn (easy) raised RuntimeError" in str(info.value)
