"""Property test over problem texts with extreme constants (huge, tiny, negative
exponents, division by zero, deep nesting, long sums): every public entry point
either works or raises ValueError with a short message, in bounded time, and
every transition keeps the expression's exact value."""

import time
from typing import Callable, List, Tuple, TypeVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathy_envs import MathyEnvState, envs
from mathy_envs.cli import main as cli_main
from mathy_envs.gym import MathyGymEnv
from mathy_envs.limits import MAX_NODES
from mathy_envs.state import ObservationType
from mathy_envs.swarm import SwarmConfig, swarm_solve

from helpers import Hang, assert_observation_in_range, time_limit
from oracles import parse, same_exact_value

SECONDS = 20.0
"""A call that takes longer than this is a hang (accepted input must finish in
bounded time, refused input fast)."""
MESSAGE_LIMIT = 600
T = TypeVar("T")


NUMBERS = [
    "0", "1", "2", "3", "7", "10", "22", "40", "64", "0.1", "0.2", "0.5", "0.25",
    "0.000001", "99999", "999999999", "1000000000", "1000000001", "123456789012345",
    "18446744073709551617", "1" * 40, "340000000000000000000000000000000000000",
]
ATOMS = st.one_of(
    st.sampled_from(NUMBERS),
    st.sampled_from(["x", "y", "2x", "3y^2", "x^2", "4x^3", "z"]),
)
OPERATORS = [" + ", " - ", " * ", " / ", "^"]


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(children, st.sampled_from(OPERATORS), children, st.booleans()).map(
        lambda t: f"({t[0]}{t[1]}{t[2]})" if t[3] else f"{t[0]}{t[1]}{t[2]}"
    )


EXPRESSIONS = st.recursive(ATOMS, _combine, max_leaves=10)
TEXTS = st.one_of(
    EXPRESSIONS,
    st.tuples(EXPRESSIONS, st.sampled_from([" + x", " + 2x + 3x", " * x^2"])).map("".join),
    st.lists(ATOMS, min_size=30, max_size=420).map(" + ".join),
    st.integers(1, 320).map(lambda k: "(" * k + "x + 1" + ")" * k),
)


def outcome(call: Callable[[], T]) -> Tuple[bool, object]:
    """(True, result) or (False, the ValueError); anything else fails the test."""
    try:
        return True, call()
    except ValueError as error:
        assert len(str(error)) < MESSAGE_LIMIT, str(error)[:300]
        return False, error


def check_observations(env: envs.PolySimplify, state: MathyEnvState) -> None:
    mask = env.get_valid_moves(state)
    for obs_type in ObservationType:
        observation = state.to_observation(mask, obs_type=obs_type, max_seq_len=env.max_seq_len)
        assert_observation_in_range(observation)
    env.state_to_observation(state)


@pytest.mark.slow
@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(text=TEXTS, seed=st.integers(0, 2**16))
def test_every_entry_point_works_or_raises_value_error(text: str, seed: int) -> None:
    env = envs.PolySimplify(max_seq_len=MAX_NODES)
    with time_limit(SECONDS):
        accepted, state = outcome(lambda: env.state_from_text(text, max_moves=20))
        # With max_seq_len at MAX_NODES, the env refuses exactly what any state does.
        assert outcome(lambda: MathyEnvState(problem=text))[0] == accepted
        solve_config = SwarmConfig(n_walkers=4, max_iters=3, seed=seed)
        solved, _ = outcome(lambda: swarm_solve(text, solve_config, env))
        assert solved == accepted
        assert cli_main(["solve", text, "--max-moves", "2"]) in ((0, 1) if accepted else (2,))
        gym_ok, gym_env = outcome(
            lambda: MathyGymEnv(envs.PolySimplify, env_problem=text, max_seq_len=MAX_NODES)
        )
        assert gym_ok == accepted
        if gym_ok:
            assert isinstance(gym_env, MathyGymEnv)
            _, info = gym_env.reset(seed=seed)
            valid = np.flatnonzero(info["action_mask"])
            if valid.size:
                gym_env.step(int(valid[0]))
        if not accepted:
            # A state reaching the text anyway (get_out_state takes any text) gets
            # ValueErrors too.
            reached = env.state_from_text("x").get_out_state(text, (0, 0), 5)
            for call in (
                lambda: env.get_valid_moves(reached),
                lambda: env.get_next_state(reached, (0, 0)),
                lambda: reached.to_observation(),
                lambda: env.state_to_observation(reached),
            ):
                ok, _ = outcome(call)
                assert not ok
            return
        assert isinstance(state, MathyEnvState)
        check_observations(env, state)
        mask = np.asarray(env.get_valid_moves(state))
        assert env.get_agent_actions_count(state) == int(mask.sum())
        actions: List[Tuple[int, int]] = [(int(r), int(n)) for r, n in zip(*np.nonzero(mask))]
        rng = np.random.default_rng(seed)
        before = parse(text)
        for index in rng.permutation(len(actions))[:5]:
            after, _, _ = env.get_next_state(state, actions[int(index)])
            assert same_exact_value(before, parse(after.agent.problem), seed)
            check_observations(env, after)
            env.finalize_state(after)
        invalid = [(r, n) for r in range(mask.shape[0]) for n in range(mask.shape[1] + 1)
                   if n >= mask.shape[1] or not mask[r, n]]
        if invalid:
            ok, error = outcome(lambda: env.get_next_state(state, invalid[0]))
            assert not ok and "invalid action" in str(error)


@pytest.mark.parametrize(
    "text",
    [
        "10000000000000000000x + 2x",  # trial division of a huge coefficient
        "7^22 + x",
        "99999^99999 + x",
        "1" * 301 + ".5 + x",
        "999999937x + 999999929x + 999999893x + 999999883x",
    ],
)
def test_known_hangs_finish_quickly(text: str) -> None:
    env = envs.PolySimplify()
    with time_limit(SECONDS):
        accepted, state = outcome(lambda: env.state_from_text(text, max_moves=9))
        if accepted:
            assert isinstance(state, MathyEnvState)
            mask = np.asarray(env.get_valid_moves(state))
            for r, n in zip(*np.nonzero(mask)):
                env.get_next_state(state, (int(r), int(n)))


def test_the_hang_limit_stops_busy_waiting_and_swallowing_blocks() -> None:
    """The bound the tests above rely on: CPU time for a block that computes,
    wall-clock time for one that waits, and a repeat for a Hang that something
    swallowed (as a garbage-collector callback does)."""
    # Wall-clock bounds far away, so a loaded machine can't trip them first.
    with pytest.raises(Hang, match="CPU time"):
        with time_limit(0.2, wall_factor=1000.0):
            while True:
                pass
    with pytest.raises(Hang, match="wall-clock"):
        with time_limit(0.1, wall_factor=3.0):
            time.sleep(10)
    swallowed = 0
    with pytest.raises(Hang, match="CPU time"):
        with time_limit(0.1, wall_factor=1000.0):
            while True:
                try:
                    while True:
                        pass
                except Hang:
                    swallowed += 1
                    if swallowed == 2:
                        raise
    assert swallowed == 2


def _wrong_type_calls() -> List[Tuple[str, Callable[[], object]]]:
    from mathy_core import ExpressionParser

    from mathy_envs.types import MathyEnvProblemArgs

    env = envs.PolySimplify()
    state = env.state_from_text("4x + 2x")
    tree = ExpressionParser().parse("4x + 2x")
    return [
        ("copy of a non-state", lambda: MathyEnvState(state=5)),  # type: ignore[arg-type]
        ("complex byte codes", lambda: MathyEnvState.from_np(np.array([1 + 1j]))),
        ("pad_to text", lambda: state.to_np("a")),  # type: ignore[arg-type]
        ("masks of None", lambda: env.get_valid_moves(None)),  # type: ignore[arg-type]
        ("masks of text", lambda: env.get_valid_moves("4x+2x")),  # type: ignore[arg-type]
        ("step of None", lambda: env.get_next_state(None, 0)),  # type: ignore[arg-type]
        ("finalize None", lambda: env.finalize_state(None)),  # type: ignore[arg-type]
        ("history of None", lambda: env.print_history(None)),  # type: ignore[arg-type]
        ("transition of None", lambda: env.get_state_transition(None)),  # type: ignore[arg-type]
        ("actions of text", lambda: env.get_actions_for_node("4x+2x")),  # type: ignore[arg-type]
        ("rule list of ints", lambda: env.get_actions_for_node(tree, [5])),  # type: ignore[list-item]
        ("rule list int", lambda: env.get_actions_for_node(tree, 5)),  # type: ignore[arg-type]
        ("random action rule", lambda: env.random_action(tree, 5)),  # type: ignore[arg-type]
        ("hash_type int", lambda: state.to_observation(hash_type=5)),  # type: ignore[arg-type]
        ("hash_type nan", lambda: state.to_observation(hash_type=[float("nan"), 0.5])),
        ("hash_type outside [0, 1]", lambda: state.to_observation(hash_type=[2.0, -5.0])),
        ("normalize array", lambda: state.to_observation(normalize=np.array([1, 2]))),  # type: ignore[arg-type]
        ("parser int", lambda: state.to_observation(parser=5)),  # type: ignore[arg-type]
        ("rules int", lambda: envs.PolySimplify(rules=5)),  # type: ignore[arg-type]
        ("rules of ints", lambda: envs.PolySimplify(rules=[1, 2])),  # type: ignore[list-item]
        ("seed text", lambda: envs.PolySimplify(seed="a")),  # type: ignore[arg-type]
        ("seed float", lambda: envs.PolySimplify(seed=1.5)),  # type: ignore[arg-type]
        ("params int", lambda: env.get_initial_state(5)),  # type: ignore[arg-type]
        ("difficulty text", lambda: MathyEnvProblemArgs(difficulty="extreme")),  # type: ignore[arg-type]
        ("gym env class text", lambda: MathyGymEnv("poly")),  # type: ignore[arg-type]
        ("gym problem args", lambda: MathyGymEnv(envs.PolySimplify, env_problem_args=5)),  # type: ignore[arg-type]
        ("gym seed", lambda: MathyGymEnv(envs.PolySimplify).reset(seed=-1)),
        ("swarm config", lambda: swarm_solve("4x + 2x", {})),  # type: ignore[arg-type]
        ("swarm env", lambda: swarm_solve("4x + 2x", None, 5)),  # type: ignore[arg-type]
        ("long obs_type", lambda: state.to_observation(obs_type="x" * 5000)),  # type: ignore[call-overload]
        ("long response", lambda: envs.PolySimplify(invalid_action_response="q" * 5000)),  # type: ignore[arg-type]
        ("long render mode", lambda: MathyGymEnv(envs.PolySimplify, render_mode="q" * 5000)),
    ]


@pytest.mark.parametrize("name", [name for name, _ in _wrong_type_calls()])
def test_arguments_of_the_wrong_kind_are_value_errors(name: str) -> None:
    call = dict(_wrong_type_calls())[name]
    with pytest.raises(ValueError) as info:
        call()
    assert len(str(info.value)) < MESSAGE_LIMIT
    assert "\n" not in str(info.value)


def test_difficulty_names_are_accepted_as_text() -> None:
    from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs

    assert MathyEnvProblemArgs(difficulty="hard").difficulty is MathyEnvDifficulty.hard  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "--", "--x"],
        ["solve", "x ** 2"],
        ["problems", "q" * 3000],
        ["problems", "poly", "-d", "q" * 3000],
        ["problems", "poly", "-n", "q" * 3000],
        ["run", "poly", "--agent", "q" * 3000],
        ["solve", "x", "--env", "q" * 3000],
    ],
)
def test_cli_errors_are_one_short_line(argv: List[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < MESSAGE_LIMIT


# -- arguments whose repr fails -------------------------------------------------------


class _RaisingRepr:
    def __repr__(self) -> str:
        raise RuntimeError("repr fails")

    __str__ = __repr__


class _EndlessRepr:
    def __repr__(self) -> str:
        return repr(self)  # recurses until RecursionError

    __str__ = __repr__


class _LoudInt(int):
    """An int whose repr (and so str and format) fails."""

    def __repr__(self) -> str:
        raise RuntimeError("repr fails")


def _unprintable_calls(bad: object) -> List[Tuple[str, Callable[[], object]]]:
    from mathy_envs.gym import register_envs
    from mathy_envs.types import MathyEnvProblemArgs

    env = envs.PolySimplify()
    state = env.state_from_text("4x + 2x")
    return [
        ("env max_moves", lambda: envs.PolySimplify(max_moves=bad)),
        ("env rules", lambda: envs.PolySimplify(rules=bad)),
        ("env invalid_action_response", lambda: envs.PolySimplify(invalid_action_response=bad)),
        ("env seed", lambda: envs.PolySimplify(seed=bad)),
        ("state max_moves", lambda: MathyEnvState(problem="x", max_moves=bad)),  # type: ignore[arg-type]
        ("action", lambda: env.get_next_state(state, bad)),  # type: ignore[arg-type]
        ("observation max_seq_len", lambda: state.to_observation(max_seq_len=bad)),  # type: ignore[call-overload]
        ("observation obs_type", lambda: state.to_observation(obs_type=bad)),  # type: ignore[call-overload]
        ("to_np pad_to", lambda: state.to_np(bad)),  # type: ignore[arg-type]
        ("rule list", lambda: env.get_actions_for_node(env.parse("x + x").tree, bad)),  # type: ignore[arg-type]
        ("difficulty", lambda: MathyEnvProblemArgs(difficulty=bad)),  # type: ignore[arg-type]
        ("gym env_max_moves", lambda: MathyGymEnv(envs.PolySimplify, env_max_moves=bad)),  # type: ignore[arg-type]
        ("gym seed", lambda: MathyGymEnv(envs.PolySimplify).reset(seed=bad)),  # type: ignore[arg-type]
        ("register_envs", lambda: register_envs({"zz-unprintable": bad})),  # type: ignore[dict-item]
        ("swarm n_walkers", lambda: SwarmConfig(n_walkers=bad)),  # type: ignore[arg-type]
        ("swarm problem", lambda: swarm_solve(bad)),  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("kind", [_RaisingRepr, _EndlessRepr, _LoudInt])
def test_messages_never_depend_on_a_repr_that_works(kind: Callable[[], object]) -> None:
    bad = kind() if kind is not _LoudInt else _LoudInt(-7)
    failures = []
    for name, call in _unprintable_calls(bad):
        try:
            call()
        except ValueError as error:
            assert len(str(error)) < MESSAGE_LIMIT, (name, str(error)[:300])
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(f"{name}: {type(error).__name__}")
        else:
            failures.append(f"{name}: accepted")
    assert not failures


# -- settings out of range or of the wrong type ---------------------------------------


def _bad_settings() -> List[Tuple[str, Callable[[], object], str]]:
    from mathy_envs.limits import MAX_MOVES, MAX_RULES
    from mathy_envs.swarm import MAX_WALKERS

    env = envs.PolySimplify()
    state = env.state_from_text("4x + 2x")
    nan, inf = float("nan"), float("inf")
    rules = env.rules
    poly = envs.PolySimplify
    return [
        ("reward_discount nan", lambda: poly(reward_discount=nan), "reward_discount"),
        ("reward_discount inf", lambda: poly(reward_discount=inf), "reward_discount"),
        ("reward_discount negative", lambda: poly(reward_discount=-0.5), "reward_discount"),
        ("reward_discount above 1", lambda: poly(reward_discount=2), "reward_discount"),
        ("reward_discount text", lambda: poly(reward_discount="0.9"), "reward_discount"),
        ("reward_discount None", lambda: poly(reward_discount=None), "reward_discount"),
        ("reward_discount bool", lambda: poly(reward_discount=True), "reward_discount"),
        ("verbose text", lambda: poly(verbose="no"), "verbose must be a bool"),
        ("verbose int", lambda: poly(verbose=1), "verbose must be a bool"),
        ("verbose None", lambda: poly(verbose=None), "verbose must be a bool"),
        ("previous_state_penalty text", lambda: poly(previous_state_penalty="False"), "previous_state_penalty"),
        ("preferred_term_commute int", lambda: poly(preferred_term_commute=0), "preferred_term_commute"),
        ("preferred_term_commute None", lambda: poly(preferred_term_commute=None), "preferred_term_commute"),
        ("too many rules", lambda: poly(rules=rules * (MAX_RULES // len(rules) + 1)), "MAX_RULES"),
        ("max_moves huge", lambda: poly(max_moves=10**30), "MAX_MOVES"),
        ("seed list of text", lambda: poly(seed=["a"]), "seed"),
        ("seed dict", lambda: poly(seed={}), "seed"),
        ("parser int", lambda: setattr(poly(), "parser", 5), "parser must be"),
        ("print_problem text", lambda: env.get_initial_state(print_problem="yes"), "print_problem"),  # type: ignore[arg-type]
        ("rule of a history step", lambda: env.get_rule_from_timestep(5), "time_step"),  # type: ignore[arg-type]
        ("render token text", lambda: env.render_state(state, "a", "3"), "token_index"),  # type: ignore[arg-type]
        ("render reward None", lambda: env.render_state(state, "a", 1, None, None), "change_reward"),  # type: ignore[arg-type]
        ("render name int", lambda: env.render_state(state, 5), "action_name"),  # type: ignore[arg-type]
        ("state max_moves negative", lambda: MathyEnvState(problem="x", max_moves=-1), "max_moves"),
        ("state max_moves huge", lambda: MathyEnvState(problem="x", max_moves=MAX_MOVES + 1), "MAX_MOVES"),
        ("gym env_max_moves huge", lambda: MathyGymEnv(poly, env_max_moves=10**30), "env_max_moves"),
        ("gym seed keyword list", lambda: MathyGymEnv(poly, seed=[1, 2]), "seed"),
        ("gym reset options int", lambda: MathyGymEnv(poly).reset(options=5), "options must be a dict"),  # type: ignore[arg-type]
        ("gym reset options text", lambda: MathyGymEnv(poly).reset(options="x"), "options must be a dict"),  # type: ignore[arg-type]
        ("swarm n_walkers huge", lambda: SwarmConfig(n_walkers=10**30), "MAX_WALKERS"),
        ("swarm n_walkers above limit", lambda: SwarmConfig(n_walkers=MAX_WALKERS + 1), "n_walkers"),
        ("swarm max_moves huge", lambda: SwarmConfig(max_moves=10**30), "max_moves"),
        ("mathy observation parser", lambda: state.to_mathy_observation(parser=5), "parser must be"),  # type: ignore[arg-type]
        ("mathy observation mask of objects", lambda: state.to_mathy_observation(move_mask=[[object()]]), "move_mask"),  # type: ignore[list-item]
        ("mathy observation mask of inf", lambda: state.to_mathy_observation(move_mask=[[inf]]), "move_mask"),  # type: ignore[list-item]
        ("mathy observation mask of fractions", lambda: state.to_mathy_observation(move_mask=[[0.5]]), "move_mask"),  # type: ignore[list-item]
        ("mathy observation mask of huge ints", lambda: state.to_mathy_observation(move_mask=[[10**30]]), "move_mask"),
    ]


@pytest.mark.parametrize("name", [name for name, _, _ in _bad_settings()])
def test_bad_settings_are_value_errors_naming_the_setting(name: str) -> None:
    _, call, setting = next(case for case in _bad_settings() if case[0] == name)
    with pytest.raises(ValueError) as info:
        call()
    assert setting in str(info.value)
    assert len(str(info.value)) < MESSAGE_LIMIT and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "field, value",
    [("n_walkers", 0), ("n_walkers", 2.5), ("max_iters", "many"), ("seed", 1.5),
     ("balance", None), ("max_seconds", "x"), ("max_steps", [1]), ("max_moves", -1)],
)
def test_a_swarm_config_changed_after_it_was_built_is_checked_again(
    field: str, value: object
) -> None:
    config = SwarmConfig(max_iters=3)
    setattr(config, field, value)
    with pytest.raises(ValueError, match=field):
        swarm_solve("4x + 2x", config)


def test_good_settings_are_kept_in_their_plain_form() -> None:
    env = envs.PolySimplify(
        verbose=np.bool_(False), reward_discount=np.float32(0.5), max_moves=_LoudInt(9)
    )
    assert type(env.verbose) is bool and type(env.reward_discount) is float
    assert type(env.max_moves) is int and env.max_moves == 9
    assert envs.PolySimplify(reward_discount=0).reward_discount == 0.0
    assert envs.PolySimplify(reward_discount=1).reward_discount == 1.0
    gym_env = MathyGymEnv(envs.PolySimplify, seed=np.int64(3))
    gym_env.reset(seed=np.int64(4))  # numpy ints seed gymnasium too
    gym_env.reset(options={})
    assert MathyEnvState(problem="x", max_moves=0).max_moves == 0
    assert SwarmConfig(n_walkers=np.int64(4)).n_walkers == 4
