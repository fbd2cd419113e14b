"""The Gymnasium adapter, `mathy_envs.gym`.

Expected values come from the documentation and from the wrapped `MathyEnv` (masks from
`valid_moves_array`, rewards from `EnvRewards`), never from the adapter itself.
"""

import importlib
import importlib.util
import pickle
import re
import subprocess
import threading
import warnings
from typing import Any, Dict, List, Tuple

import mathy_envs  # noqa: F401  (first: it lets mathy_core import on Python 3.13)
import numpy as np
import pytest

import gymnasium
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

import mathy_envs.gym
from helpers import run_python
from mathy_envs import MathyEnvState, ObservationType
from mathy_envs.observations.flat import flat_head
from oracles import parse
from mathy_envs.envs import ENV_TASKS, ComplexSimplify, PolySimplify, PolySimplifyBlockers
from mathy_envs.gym import (
    GYM_ENV_CLASSES,
    GYM_ENV_IDS,
    MaskedDiscrete,
    MathyGymEnv,
    StepChange,
)
from mathy_envs.time_step import TimeStep, is_terminal_transition
from mathy_envs.types import (
    EnvRewards,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)

TASKS = dict(ENV_TASKS)
"""Every registered task: each has an id per difficulty."""
DIFFICULTIES = ["easy", "normal", "hard"]
EXPECTED_IDS = [f"mathy-{t}-{d}-v0" for t in TASKS for d in DIFFICULTIES]
OBS_TYPES = ["flat", "graph", "hierarchical", "message_passing"]
STEP_INFO_KEYS = {"action_mask", "valid", "oversize", "win"}
"""The keys of every step info: an int8 array and numpy bools."""
OBJECT_INFO_KEYS = {"change", "transition", "done", "truncated"}
"""The keys `published_info=True` adds (mathy_envs 0.12's)."""


def _make(env_id: str, **kwargs: Any) -> MathyGymEnv:
    env = gymnasium.make(env_id, **kwargs).unwrapped
    assert isinstance(env, MathyGymEnv)
    return env


def _problem(env: MathyGymEnv) -> str:
    assert env.state is not None
    return env.state.agent.problem


def _expected_mask(env: MathyGymEnv) -> np.ndarray:
    """The flat `(rule, node)` mask of the env's state, from the wrapped MathyEnv
    (the moves it offers: with `mask_revisits`, those to the least visited
    expressions)."""
    assert env.state is not None
    mathy = env.mathy
    moves = np.asarray(
        mathy.least_visited_moves_array(env.state)
        if env.mask_revisits
        else mathy.valid_moves_array(env.state)
    )
    full = np.zeros((len(env.mathy.rules), env.mathy.max_seq_len), np.int8)
    full[: moves.shape[0], : moves.shape[1]] = moves != 0
    return full.reshape(-1)


def _obs_mask(observation: Any, env: MathyGymEnv) -> np.ndarray:
    """The action-mask part of an observation."""
    if isinstance(observation, np.ndarray):
        return observation[flat_head(env.revisits) + 2 * env.mathy.max_seq_len :]
    return np.asarray(observation["action_mask"])


def _assert_same_obs(a: Any, b: Any) -> None:
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
        return
    assert set(a) == set(b)
    for key in a:
        np.testing.assert_array_equal(np.asarray(a[key]), np.asarray(b[key]))


def _play(
    env: MathyGymEnv, seed: int, max_steps: int = 500
) -> List[Tuple[Any, float, bool, bool, Dict[str, Any]]]:
    """One masked random episode; checks every step against the contract and
    returns the steps."""
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    assert env.observation_space.contains(obs), _problem(env)
    steps = []
    for _ in range(max_steps):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (env.action_size,)
        np.testing.assert_array_equal(mask, _expected_mask(env))
        np.testing.assert_array_equal(env.action_masks(), mask.astype(bool))
        np.testing.assert_array_equal(_obs_mask(obs, env), mask)
        assert mask.any(), f"no valid action in a live episode: {_problem(env)}"
        action = env.action_space.sample()
        assert mask[action] == 1, (action, _problem(env))
        moves_before = env.state.agent.moves_remaining if env.state else None
        obs, reward, terminated, truncated, info = env.step(action)
        steps.append((obs, reward, terminated, truncated, info))
        assert env.observation_space.contains(obs), _problem(env)
        assert set(info) == STEP_INFO_KEYS | (OBJECT_INFO_KEYS if env.published_info else set())
        for key in STEP_INFO_KEYS - {"action_mask"}:
            assert info[key].shape == () and info[key].dtype == np.bool_, (key, info[key])
        assert bool(info["valid"]) is True
        if env.published_info:
            assert isinstance(info["change"], StepChange)
            assert info["change"].expression == _problem(env)
            assert info["change"].node == int(action) % env.mathy.max_seq_len
            rule = env.mathy.rules[int(action) // env.mathy.max_seq_len]
            assert info["change"].rule == rule.name
            assert isinstance(info["transition"], TimeStep)
            assert terminated == is_terminal_transition(info["transition"])
            assert reward == pytest.approx(info["transition"].reward)
        assert env.state is not None and moves_before is not None
        assert env.state.agent.moves_remaining == moves_before - 1
        assert truncated == (env.state.agent.moves_remaining <= 0)
        if env.published_info:
            assert info["truncated"] is truncated
            assert info["done"] is (terminated or truncated)
        assert info["win"] == (terminated and not info["oversize"] and reward > 0)
        if info["win"]:
            assert reward == pytest.approx(env.mathy.get_win_signal(env.state))
        if terminated or truncated:
            return steps
    raise AssertionError(f"episode did not end in {max_steps} steps")


# -- registration ------------------------------------------------------------------


def test_registered_ids() -> None:
    assert sorted(GYM_ENV_IDS) == sorted(EXPECTED_IDS)
    assert len(set(GYM_ENV_IDS)) == len(ENV_TASKS) * len(MathyEnvDifficulty)
    mathy_ids = {i for i in gymnasium.registry if i.startswith("mathy-")}
    assert mathy_ids == set(EXPECTED_IDS)


@pytest.mark.parametrize("env_id", EXPECTED_IDS)
def test_ids_are_registered_with_gymnasium_keywords(env_id: str) -> None:
    """Entry point `MathyGymEnv`, and the env class and difficulty as `kwargs`."""
    task, difficulty = re.fullmatch(r"mathy-(.+)-(easy|normal|hard)-v0", env_id).groups()
    spec = gymnasium.spec(env_id)
    assert spec.entry_point == "mathy_envs.gym.env:MathyGymEnv"
    assert set(spec.kwargs) == {"env_class", "env_problem_args"}
    assert spec.kwargs["env_class"] is TASKS[task]
    assert spec.kwargs["env_problem_args"] == MathyEnvProblemArgs(MathyEnvDifficulty(difficulty))
    assert not hasattr(mathy_envs.gym.registration, f"{TASKS[task].__name__}EasyGymEnv")


def test_make_keywords_override_the_registered_ones() -> None:
    env = _make("mathy-poly-easy-v0", env_problem_args=MathyEnvProblemArgs("hard"))
    assert env.env_problem_args == MathyEnvProblemArgs(MathyEnvDifficulty.hard)
    again = _make("mathy-poly-easy-v0")  # the registered keywords are untouched
    assert again.env_problem_args == MathyEnvProblemArgs(MathyEnvDifficulty.easy)
    assert again.env_problem_args is not gymnasium.spec("mathy-poly-easy-v0").kwargs[
        "env_problem_args"
    ]


@pytest.mark.parametrize("env_id", EXPECTED_IDS)
def test_gym_env_classes_build_the_envs_of_make(env_id: str) -> None:
    assert list(GYM_ENV_CLASSES) == GYM_ENV_IDS
    factory = GYM_ENV_CLASSES[env_id]
    env = factory(max_seq_len=64, obs_type="graph", seed=4)
    made = _make(env_id, max_seq_len=64, obs_type="graph", seed=4)
    assert type(env) is type(made) is MathyGymEnv
    assert type(env.mathy) is type(made.mathy)
    assert env.env_problem_args == made.env_problem_args
    assert env.mathy.max_seq_len == 64 and env.obs_type is ObservationType.GRAPH
    _assert_same_obs(env.reset()[0], made.reset()[0])
    assert _problem(env) == _problem(made)
    assert pickle.loads(pickle.dumps(factory)) == factory
    hard = factory(env_problem_args=MathyEnvProblemArgs("hard"))
    assert hard.env_problem_args == MathyEnvProblemArgs(MathyEnvDifficulty.hard)


def test_register_envs_from_threads_registers_each_id_once() -> None:
    tasks = {"threaded-poly": PolySimplify, "threaded-complex": ComplexSimplify}
    ids = [f"mathy-{t}-{d}-v0" for t in tasks for d in DIFFICULTIES]
    results: List[List[str]] = []
    errors: List[BaseException] = []
    barrier = threading.Barrier(8)

    def register() -> None:
        try:
            barrier.wait()
            results.append(mathy_envs.gym.register_envs(tasks))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an id registered twice would warn
            threads = [threading.Thread(target=register) for _ in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        assert not errors, errors
        assert results == [ids] * 8
        for env_id in ids:
            assert gymnasium.spec(env_id).kwargs["env_class"] in tasks.values()
        assert not set(ids) & set(GYM_ENV_IDS)
    finally:
        for env_id in ids:
            gymnasium.registry.pop(env_id, None)


@pytest.mark.parametrize("env_id", EXPECTED_IDS)
def test_id_builds_its_task_at_its_difficulty(env_id: str) -> None:
    task, difficulty = re.fullmatch(r"mathy-(.+)-(easy|normal|hard)-v0", env_id).groups()
    env = _make(env_id)
    assert type(env.mathy) is TASKS[task]
    assert env.env_problem_args is not None
    assert env.env_problem_args.difficulty is MathyEnvDifficulty(difficulty)
    assert env.action_size == len(env.mathy.rules) * env.mathy.max_seq_len
    assert isinstance(env.action_space, MaskedDiscrete)
    assert env.action_space.n == env.action_size
    env.reset(seed=0)
    assert env.state is not None
    assert env.state.agent.problem_type == env.mathy.get_env_namespace()


def test_reimporting_never_fails() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even an "overriding environment" warning
        importlib.reload(mathy_envs.gym)
        mathy_envs.gym.register_envs()
    assert {i for i in gymnasium.registry if i.startswith("mathy-")} == set(EXPECTED_IDS)
    gymnasium.make("mathy-poly-easy-v0").reset(seed=0)


def test_fresh_reimport_in_one_process_never_fails() -> None:
    code = """
import sys
import warnings
import mathy_envs  # before mathy_core: it lets mathy_core import on Python 3.13
import mathy_core
import gymnasium
import mathy_envs.gym
warnings.simplefilter("error")
for name in [m for m in sys.modules if m.startswith("mathy_envs")]:
    del sys.modules[name]
import mathy_envs.gym
import mathy_envs.gym.registration
__import__("importlib").reload(mathy_envs.gym)
from mathy_envs.envs import ENV_TASKS
from mathy_envs.types import MathyEnvDifficulty
ids = sorted(i for i in gymnasium.registry if i.startswith("mathy-"))
assert len(ids) == len(ENV_TASKS) * len(MathyEnvDifficulty), ids
env = gymnasium.make("mathy-complex-hard-v0")
obs, info = env.reset(seed=1)
env.step(int(info["action_mask"].argmax()))
print("ok")
"""
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("ok")


def test_import_error_names_the_extra() -> None:
    code = """
import sys
sys.modules["gymnasium"] = None
import mathy_envs
from mathy_envs import envs, MathyEnv  # the core package needs no gymnasium
for attempt in range(2):
    try:
        import mathy_envs.gym
    except ImportError as error:
        print(str(error))
    else:
        raise SystemExit("mathy_envs.gym imported without gymnasium")
"""
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        assert "pip install mathy_envs[gym]" in line


# -- env_checker -------------------------------------------------------------------


@pytest.mark.parametrize("obs_type", OBS_TYPES)
@pytest.mark.parametrize("env_id", EXPECTED_IDS)
def test_check_env_passes_without_warnings(env_id: str, obs_type: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make(env_id, obs_type=obs_type)
        check_env(env.unwrapped)
        # The passive checker gymnasium.make adds is quiet too.
        obs, info = env.reset(seed=3)
        obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        env.close()


# -- observation spaces ------------------------------------------------------------


@pytest.mark.parametrize(
    "obs_type",
    list(ObservationType) + OBS_TYPES,
    ids=[f"enum-{t.value}" for t in ObservationType] + [f"str-{t}" for t in OBS_TYPES],
)
@pytest.mark.parametrize("revisits", [True, False])
def test_obs_type_passes_through_make(obs_type: Any, revisits: bool) -> None:
    """The revisit feature (on by default) adds a value after the time of flat
    observations and a fifth node-feature column; without it the layout is the
    published one."""
    env = _make("mathy-poly-normal-v0", obs_type=obs_type, max_seq_len=96, revisits=revisits)
    assert env.obs_type is ObservationType(obs_type)
    obs, _ = env.reset(seed=5)
    L, R = 96, len(env.mathy.rules)
    if env.obs_type is ObservationType.FLAT:
        assert isinstance(env.observation_space, spaces.Box)
        head = 4 if revisits else 3
        assert isinstance(obs, np.ndarray) and obs.shape == (head + 2 * L + R * L,)
    else:
        assert isinstance(env.observation_space, spaces.Dict)
        assert isinstance(obs, dict)
        assert obs["node_features"].shape == (L, 5 if revisits else 4)
        assert obs["action_mask"].shape == (R * L,)
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("name", ["mask_as_probabilities", "repeat_problem"])
@pytest.mark.parametrize("value", ["no", 1, None])
def test_flags_must_be_bools(name: str, value: Any) -> None:
    """A truthy string would otherwise switch the option on."""
    with pytest.raises(ValueError, match=f"{name} must be a bool"):
        gymnasium.make("mathy-poly-easy-v0", **{name: value})


def test_a_misspelled_keyword_is_a_type_error_naming_it() -> None:
    # Python's own error for an unknown keyword, which wrappers rely on.
    with pytest.raises(TypeError, match="mask_in_obs.*MathyGymEnv's own keywords"):
        gymnasium.make("mathy-poly-easy-v0", mask_in_obs=True)


# -- composition: every MathyEnv keyword passes through ------------------------------

FIXED = MathyEnvProblem("4x + 2y + 2x", 3, "mathy.test.fixed")


def _fixed_problem(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
    assert isinstance(rng, np.random.Generator)
    return FIXED


@pytest.mark.parametrize("env_id", EXPECTED_IDS)
def test_every_id_takes_a_generator(env_id: str) -> None:
    """`generator=` reaches the MathyEnv, and reset plays its problems (drawn
    from the generator `reset(seed=...)` makes)."""
    seen: List[np.random.Generator] = []

    def fixed(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        seen.append(rng)
        return _fixed_problem(rng, params)

    env = _make(env_id, generator=fixed)
    assert env.mathy.generator is fixed
    obs, info = env.reset(seed=1)
    assert _problem(env) == FIXED.text
    assert seen == [env.np_random]
    assert env.observation_space.contains(obs)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    # the registered keywords are untouched
    assert "generator" not in gymnasium.spec(env_id).kwargs
    _make(env_id).reset(seed=1)


def test_a_generator_and_repeat_problem_and_the_factory() -> None:
    factory = GYM_ENV_CLASSES["mathy-complex-hard-v0"]
    env = factory(generator=_fixed_problem, repeat_problem=True)
    for seed in range(3):
        env.reset(seed=seed)
        assert _problem(env) == FIXED.text
    assert env.env_problem_args == MathyEnvProblemArgs(MathyEnvDifficulty.hard)


def test_a_generator_whose_problems_never_fit_fails_reset_clearly() -> None:
    env = _make("mathy-poly-easy-v0", generator=_fixed_problem, max_seq_len=8)
    with pytest.raises(ValueError, match="max_seq_len=8 is too small"):
        env.reset(seed=0)


@pytest.mark.parametrize("bad", ["simplify_terms", 3])
def test_a_generator_that_is_not_a_function_is_a_value_error(bad: Any) -> None:
    with pytest.raises(ValueError, match="generator must be a function"):
        gymnasium.make("mathy-poly-easy-v0", generator=bad)


def test_a_generator_returning_something_else_fails_reset_clearly() -> None:
    env = _make("mathy-poly-easy-v0", generator=lambda rng, params: "4x + 2x")
    with pytest.raises(ValueError, match="must return a MathyEnvProblem"):
        env.reset(seed=0)
    assert env.state is None  # a failed reset changes nothing


def test_unknown_obs_type_is_rejected() -> None:
    with pytest.raises(ValueError, match="Unknown observation type"):
        gymnasium.make("mathy-poly-easy-v0", obs_type="pixels")


def test_observation_space_rejects_out_of_range_values() -> None:
    """The bounds are real: values outside [0, 1] or the wrong shape don't fit."""
    env = _make("mathy-poly-easy-v0")
    obs, _ = env.reset(seed=0)
    bad = obs.copy()
    bad[3] = 1.5
    assert not env.observation_space.contains(bad)
    bad = obs.copy()
    bad[0] = -0.1
    assert not env.observation_space.contains(bad)
    assert not env.observation_space.contains(obs[:-1])


@pytest.mark.parametrize("env_id", EXPECTED_IDS)
def test_masked_random_play_stays_in_space(env_id: str) -> None:
    for episode, obs_type in enumerate(OBS_TYPES):
        env = _make(env_id, obs_type=obs_type, published_info=episode % 2 == 0)
        steps = _play(env, seed=1000 + episode)
        assert steps


def test_random_play_ends_in_wins_and_losses() -> None:
    """Across many easy episodes both outcomes occur, each reported consistently."""
    env = _make("mathy-poly-easy-v0")
    outcomes = set()
    for seed in range(40):
        *_, (_, reward, terminated, truncated, info) = _play(env, seed)
        outcomes.add(bool(info["win"]))
        if info["win"]:
            assert terminated and reward > 1.0
        else:
            assert reward < 0
    assert outcomes == {True, False}


def _rule_action(env: MathyGymEnv, info: Dict[str, Any], rule_name: str) -> int:
    """The one valid action of a rule (by class name) in the current mask."""
    names = [type(r).__name__ for r in env.mathy.rules]
    row = names.index(rule_name)
    nodes = np.flatnonzero(info["action_mask"].reshape(len(names), -1)[row])
    assert len(nodes) >= 1, (rule_name, _problem(env))
    return row * env.mathy.max_seq_len + int(nodes[0])


def test_running_out_of_moves_truncates() -> None:
    env = MathyGymEnv(
        PolySimplify, env_problem="4x + 2y + 3x", env_max_moves=3, published_info=True
    )
    obs, info = env.reset(seed=0)
    results = []
    for _ in range(3):
        action = _rule_action(env, info, "CommutativeSwapRule")
        obs, reward, terminated, truncated, info = env.step(action)
        assert bool(info["valid"]) is True
        results.append((reward, terminated, truncated))
    assert [r[2] for r in results] == [False, False, True]
    assert [r[1] for r in results] == [False, False, True]
    assert results[-1][0] == EnvRewards.LOSE
    assert info["done"] and info["truncated"] and bool(info["win"]) is False
    assert env.observation_space.contains(obs)


def test_winning_step_terminates_without_truncation() -> None:
    env = MathyGymEnv(PolySimplify, env_problem="4x + 2x", env_max_moves=5, published_info=True)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        _rule_action(env, info, "DistributiveFactorOutRule")
    )
    assert (terminated, truncated) == (False, False) and bool(info["win"]) is False
    assert reward == EnvRewards.HELPFUL_MOVE
    obs, reward, terminated, truncated, info = env.step(
        _rule_action(env, info, "ConstantsSimplifyRule")
    )
    assert _problem(env) == "6x"
    assert terminated is True and truncated is False
    assert bool(info["win"]) is True and info["done"] is True
    # WIN plus the 1/moves-used bonus: 1 + 1/2
    assert reward == pytest.approx(1.5)
    assert env.observation_space.contains(obs)


# -- seeding -----------------------------------------------------------------------


@pytest.mark.parametrize("env_id", EXPECTED_IDS)
def test_same_seed_same_first_observation(env_id: str) -> None:
    a, b = _make(env_id), _make(env_id)
    obs_a, info_a = a.reset(seed=42)
    a.reset(seed=7)  # a different episode in between changes nothing
    obs_a2, _ = a.reset(seed=42)
    obs_b, info_b = b.reset(seed=42)
    np.testing.assert_array_equal(obs_a, obs_b)
    np.testing.assert_array_equal(obs_a, obs_a2)
    np.testing.assert_array_equal(info_a["action_mask"], info_b["action_mask"])
    assert _problem(a) == _problem(b)


@pytest.mark.parametrize("env_id", EXPECTED_IDS)
def test_different_seeds_different_problems(env_id: str) -> None:
    env = _make(env_id)
    problems = []
    for seed in range(8):
        env.reset(seed=seed)
        problems.append(_problem(env))
    assert len(set(problems)) >= 6, problems


def _problems_after(env: MathyGymEnv, seed: int, resets: int) -> List[str]:
    env.reset(seed=seed)
    problems = [_problem(env)]
    for _ in range(resets):
        env.reset()
        problems.append(_problem(env))
    return problems


def test_seeded_reset_drives_the_problem_sequence() -> None:
    env = _make("mathy-poly-normal-v0")
    first = _problems_after(env, 11, 5)
    assert _problems_after(env, 11, 5) == first
    assert len(set(first)) > 1  # unseeded resets continue the seeded stream
    # Gymnasium's np_random is the problem generator
    assert env.mathy.np_random is env.np_random
    # ... and it is the generator `reset(seed=...)` made: the same draws as a
    # MathyEnv seeded the same way
    env.reset(seed=123)
    reference = PolySimplify(seed=123)
    state, _ = reference.get_initial_state(env.env_problem_args, print_problem=False)
    assert _problem(env) == state.agent.problem


def test_seed_keyword_passes_through_make() -> None:
    """`seed` is a MathyEnv keyword: an env made with it plays the same problems as
    one reset with that seed."""
    a = _make("mathy-poly-normal-v0", seed=5)
    b = _make("mathy-poly-normal-v0", seed=5)
    c = _make("mathy-poly-normal-v0")
    a.reset()
    b.reset()
    c.reset(seed=5)
    assert _problem(a) == _problem(b) == _problem(c)
    for _ in range(3):
        a.reset()
        b.reset()
        assert _problem(a) == _problem(b)


def test_seeding_is_the_same_in_every_process() -> None:
    code = (
        "import gymnasium, mathy_envs.gym\n"
        "env = gymnasium.make('mathy-poly-blockers-normal-v0')\n"
        "env.reset(seed=2024)\n"
        "for _ in range(3): env.reset()\n"
        "print(env.unwrapped.state.agent.problem)\n"
    )
    outputs = []
    for hashseed in ("0", "12345"):
        result = run_python("-c", code, hash_seed=hashseed)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout.strip())
    env = _make("mathy-poly-blockers-normal-v0")
    env.reset(seed=2024)
    for _ in range(3):
        env.reset()
    assert outputs == [_problem(env), _problem(env)]


# -- masks -------------------------------------------------------------------------


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_info_mask_matches_action_masks(obs_type: str) -> None:
    env = _make("mathy-poly-grouping-normal-v0", obs_type=obs_type)
    obs, info = env.reset(seed=9)
    for _ in range(10):
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (env.action_size,)
        assert info["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(info["action_mask"], masks.astype(np.int8))
        np.testing.assert_array_equal(info["action_mask"], _expected_mask(env))
        action = int(np.flatnonzero(masks)[-1])
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break


def test_action_space_sample_only_picks_valid_actions() -> None:
    env = _make("mathy-poly-hard-v0")
    _, info = env.reset(seed=4)
    env.action_space.seed(4)
    valid = set(np.flatnonzero(info["action_mask"]).tolist())
    assert 1 < len(valid) < env.action_size
    samples = {int(env.action_space.sample()) for _ in range(500)}
    assert samples <= valid
    assert len(samples) > 1  # sampling is spread over the valid actions
    assert env.action_space.contains(np.int64(next(iter(valid))))


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_mask_as_probabilities_sums_to_one(obs_type: str) -> None:
    env = _make("mathy-poly-normal-v0", obs_type=obs_type, mask_as_probabilities=True)
    obs, info = env.reset(seed=21)
    for _ in range(8):
        probabilities = _obs_mask(obs, env)
        mask = info["action_mask"]
        assert probabilities.sum() == pytest.approx(1.0, abs=1e-5)
        assert np.all(probabilities >= 0)
        np.testing.assert_array_equal(probabilities > 0, mask == 1)
        np.testing.assert_allclose(probabilities[mask == 1], 1.0 / mask.sum(), rtol=1e-5)
        assert env.observation_space.contains(obs)
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        if terminated or truncated:
            break


def test_mask_is_binary_without_probabilities() -> None:
    env = _make("mathy-poly-normal-v0")
    obs, info = env.reset(seed=21)
    np.testing.assert_array_equal(_obs_mask(obs, env), info["action_mask"])
    assert info["action_mask"].sum() > 1


# -- keywords, invalid actions, rendering ------------------------------------------


def test_mathy_env_keywords_pass_through_make() -> None:
    rules = PolySimplify.core_rules()[:3]
    env = _make(
        "mathy-poly-easy-v0",
        rules=rules,
        max_moves=7,
        verbose=False,
        invalid_action_response="terminal",
        reward_discount=0.5,
        max_seq_len=40,
        previous_state_penalty=False,
        ops=["+", "-"],
    )
    mathy = env.mathy
    assert [type(r) for r in mathy.rules] == [type(r) for r in rules]
    assert mathy.max_moves == 7
    assert mathy.verbose is False
    assert mathy.invalid_action_response == "terminal"
    assert mathy.reward_discount == 0.5
    assert mathy.max_seq_len == 40
    assert mathy.previous_state_penalty is False
    assert env.action_size == 3 * 40 == env.action_space.n
    assert env.observation_space.shape == (4 + 2 * 40 + 3 * 40,)
    obs, info = env.reset(seed=0)
    assert info["action_mask"].shape == (120,)
    assert env.observation_space.contains(obs)
    # "terminal": an invalid action ends the episode with the lose signal
    invalid = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(invalid)
    assert bool(info["valid"]) is False and terminated is True
    assert reward == EnvRewards.LOSE
    assert env.observation_space.contains(obs)

    committed = _make("mathy-poly-easy-v0", preferred_term_commute=True)
    assert committed.mathy.preferred_term_commute is True
    swap = next(r for r in committed.mathy.rules if type(r).__name__ == "CommutativeSwapRule")
    assert swap.preferred is True


def test_invalid_actions_are_penalized_by_default() -> None:
    env = _make("mathy-complex-easy-v0", published_info=True)
    obs, info = env.reset(seed=0)
    problem = _problem(env)
    moves = env.state.agent.moves_remaining
    invalid = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(invalid)
    assert bool(info["valid"]) is False
    assert reward == EnvRewards.INVALID_MOVE
    assert not terminated and not truncated
    assert info["change"].expression == problem == _problem(env)
    assert env.state.agent.moves_remaining == moves - 1
    assert env.observation_space.contains(obs)


def test_fixed_problem_and_repeat_problem() -> None:
    fixed = MathyGymEnv(ComplexSimplify, env_problem="4x * 2y", env_max_moves=9)
    fixed.reset(seed=0)
    assert _problem(fixed) == "4x * 2y"
    assert fixed.state.max_moves == 9
    fixed.reset(seed=1)
    assert _problem(fixed) == "4x * 2y"
    with pytest.raises(ValueError):
        MathyGymEnv(ComplexSimplify, env_problem="4x * * (")

    repeat = _make("mathy-poly-normal-v0", repeat_problem=True)
    repeat.reset(seed=0)
    first = _problem(repeat)
    for seed in (1, 2, None):
        repeat.reset(seed=seed)
        assert _problem(repeat) == first


def test_step_before_reset_raises() -> None:
    env = _make("mathy-poly-easy-v0")
    with pytest.raises(ValueError, match="reset"):
        env.step(0)


def test_render_ansi() -> None:
    env = gymnasium.make("mathy-poly-easy-v0", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and _problem(env.unwrapped) in text


# -- oversize expressions ----------------------------------------------------------


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_oversize_step_ends_the_episode(obs_type: str) -> None:
    # (x + 1)(x + 2) has 7 nodes; distributing the product gives 11 > 8
    env = MathyGymEnv(
        PolySimplify,
        env_problem="(x + 1)(x + 2)",
        max_seq_len=8,
        obs_type=obs_type,
        published_info=True,
    )
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    rules = [type(r).__name__ for r in env.mathy.rules]
    distribute = rules.index("DistributiveMultiplyRule")
    row = info["action_mask"].reshape(len(rules), 8)[distribute]
    nodes = np.flatnonzero(row)
    assert len(nodes) == 1
    action = distribute * 8 + int(nodes[0])
    obs, reward, terminated, truncated, info = env.step(action)
    assert terminated is True
    assert reward == EnvRewards.LOSE
    assert env.observation_space.contains(obs)
    assert bool(info["valid"]) is True
    assert info["done"] is True and bool(info["win"]) is False
    assert len(env.mathy.parse(info["change"].expression)) > 8
    assert not info["action_mask"].any() and not env.action_masks().any()


def test_oversize_expressions_in_random_play() -> None:
    """Binomial hard with a small max_seq_len: every problem fits at reset, some
    episodes grow too long and end cleanly with the lose signal."""
    L = 13
    env = _make("mathy-binomial-hard-v0", max_seq_len=L)
    oversize = 0
    for seed in range(30):
        steps = _play_allowing_oversize(env, seed)
        *_, (obs, reward, terminated, truncated, info) = steps
        if len(env.mathy.parse(_problem(env))) > L:
            oversize += 1
            assert terminated is True and bool(info["win"]) is False
            assert reward == EnvRewards.LOSE
    assert oversize > 0


def _play_allowing_oversize(env: MathyGymEnv, seed: int) -> List[Any]:
    obs, info = env.reset(seed=seed)
    assert len(env.mathy.parse(_problem(env))) <= env.mathy.max_seq_len
    env.action_space.seed(seed)
    steps = []
    for _ in range(500):
        assert env.observation_space.contains(obs)
        action = env.action_space.sample()
        assert info["action_mask"][action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        steps.append((obs, reward, terminated, truncated, info))
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            return steps
    raise AssertionError("episode did not end")


def test_reset_skips_problems_that_do_not_fit() -> None:
    L = 9
    env = _make("mathy-binomial-hard-v0", max_seq_len=L)
    sizes = []
    for seed in range(30):
        obs, _ = env.reset(seed=seed)
        sizes.append(len(env.mathy.parse(_problem(env))))
        assert env.observation_space.contains(obs)
    assert max(sizes) <= L
    # the same seeds without the limit do draw longer problems
    unlimited = _make("mathy-binomial-hard-v0")
    longer = 0
    for seed in range(30):
        unlimited.reset(seed=seed)
        longer += len(unlimited.mathy.parse(_problem(unlimited))) > L
    assert longer > 0


def test_reset_gives_up_when_max_seq_len_is_too_small() -> None:
    env = _make("mathy-poly-hard-v0", max_seq_len=3)
    with pytest.raises(ValueError, match=r"max_seq_len.*too small"):
        env.reset(seed=0)


# -- construction, failed resets and finished episodes ------------------------------

LONG_PROBLEM = " + ".join(f"{i + 2}x" for i in range(40))


def test_a_fixed_problem_longer_than_max_seq_len_fails_at_construction() -> None:
    nodes = len(parse(LONG_PROBLEM).to_list())  # mathy_core's count: 159
    assert nodes > 128
    with pytest.raises(ValueError) as raised:
        MathyGymEnv(PolySimplify, env_problem=LONG_PROBLEM)
    message = str(raised.value)
    assert f"{nodes} nodes" in message
    assert "max_seq_len=128" in message
    # The message quotes the start of the problem, not all 591 characters of it.
    assert LONG_PROBLEM[:40] in message
    assert LONG_PROBLEM not in message
    assert len(message) < 400
    # One node short fails too; a max_seq_len that fits works.
    with pytest.raises(ValueError, match=f"max_seq_len={nodes - 1}"):
        MathyGymEnv(PolySimplify, env_problem=LONG_PROBLEM, max_seq_len=nodes - 1)
    env = MathyGymEnv(PolySimplify, env_problem=LONG_PROBLEM, max_seq_len=nodes)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert _problem(env) == LONG_PROBLEM
    obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert bool(info["valid"]) is True and env.observation_space.contains(obs)


@pytest.mark.parametrize("problem", [42, None, b"4x + 2x", ["4x + 2x"]])
def test_a_fixed_problem_must_be_text(problem: Any) -> None:
    if problem is None:  # None means "generate problems": that is fine
        MathyGymEnv(PolySimplify, env_problem=problem).reset(seed=0)
        return
    with pytest.raises(ValueError, match="env_problem"):
        MathyGymEnv(PolySimplify, env_problem=problem)


class _Outgrowing(PolySimplify):
    """PolySimplify whose problem generator can be switched to problems too long
    for any observation."""

    too_long = False

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        problem = super().problem_fn(params)
        if self.too_long:
            return MathyEnvProblem(LONG_PROBLEM, problem.complexity, problem.type)
        return problem


def _fail_reset_by_generator(env: MathyGymEnv, seed: Any) -> None:
    env.mathy.too_long = True  # type: ignore[attr-defined]
    try:
        with pytest.raises(ValueError, match="max_seq_len=128 is too small"):
            env.reset(seed=seed)
    finally:
        env.mathy.too_long = False  # type: ignore[attr-defined]


def _fail_reset_late(env: MathyGymEnv, seed: Any) -> None:
    """A reset whose new state is built and only its observation fails."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("observation failed")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MathyEnvState, "to_observation", broken)
        with pytest.raises(ValueError, match="observation failed"):
            env.reset(seed=seed)


@pytest.mark.parametrize("seed", [None, 99])
@pytest.mark.parametrize("fail", [_fail_reset_by_generator, _fail_reset_late])
def test_a_failed_reset_leaves_the_env_as_it_was(fail: Any, seed: Any) -> None:
    """A twin env that never saw the failed reset plays on identically: same
    state, mask, observations and problem stream."""
    args = MathyEnvProblemArgs(MathyEnvDifficulty.normal)
    env = MathyGymEnv(_Outgrowing, env_problem_args=args, published_info=True)
    twin = MathyGymEnv(_Outgrowing, env_problem_args=args, published_info=True)
    for each in (env, twin):
        obs, info = each.reset(seed=3)
        each.step(int(np.flatnonzero(info["action_mask"])[0]))
    state, masks, line = env.state, env.action_masks(), env.render()

    fail(env, seed)

    assert env.state is state
    np.testing.assert_array_equal(env.action_masks(), masks)
    np.testing.assert_array_equal(env.action_space.mask, masks.astype(np.int8))
    assert env.render() == line
    action = int(np.flatnonzero(masks)[-1])
    out, twin_out = env.step(action), twin.step(action)
    _assert_same_obs(out[0], twin_out[0])
    assert out[1:4] == twin_out[1:4]
    np.testing.assert_array_equal(out[4]["action_mask"], twin_out[4]["action_mask"])
    assert out[4]["change"] == twin_out[4]["change"]
    # The failed reset drew nothing from the problem stream and kept its seed.
    assert env.np_random_seed == twin.np_random_seed
    for _ in range(3):
        obs, _ = env.reset()
        twin_obs, _ = twin.reset()
        assert _problem(env) == _problem(twin)
        _assert_same_obs(obs, twin_obs)


def test_a_failed_reset_keeps_the_last_observation() -> None:
    """The oversize step shows the last observation that fit: after a failed
    reset it is still the one of the live episode."""
    env = MathyGymEnv(PolySimplify, env_problem="(x + 1)(x + 2)", max_seq_len=8)
    obs, info = env.reset(seed=0)
    expected = obs.copy()
    expected[len(expected) - env.action_size :] = 0.0
    env.env_problem = "(x + 1)(x + 2)(x + 3)"  # 11 nodes: the reset fails
    with pytest.raises(ValueError, match=r"11 nodes.*max_seq_len=8"):
        env.reset(seed=1)
    env.env_problem = "(x + 1)(x + 2)"
    _fail_reset_late(env, 2)
    assert _problem(env) == "(x + 1)(x + 2)"
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"] == 1)
    distribute = [type(r).__name__ for r in env.mathy.rules].index(
        "DistributiveMultiplyRule"
    )
    node = int(np.flatnonzero(info["action_mask"].reshape(-1, 8)[distribute])[0])
    obs, reward, terminated, _, info = env.step(distribute * 8 + node)
    assert terminated is True and reward == EnvRewards.LOSE
    np.testing.assert_array_equal(obs, expected)
    obs, info = env.reset()
    assert _problem(env) == "(x + 1)(x + 2)" and info["action_mask"].any()


def _end_by_winning(env: MathyGymEnv, info: Dict[str, Any]) -> Dict[str, Any]:
    for rule in ("DistributiveFactorOutRule", "ConstantsSimplifyRule"):
        *_, info = env.step(_rule_action(env, info, rule))
    assert bool(info["win"]) is True
    return info


def _end_by_running_out_of_moves(
    env: MathyGymEnv, info: Dict[str, Any]
) -> Dict[str, Any]:
    for _ in range(env.env_max_moves):
        _, _, terminated, truncated, info = env.step(
            _rule_action(env, info, "CommutativeSwapRule")
        )
    assert truncated is True and bool(info["win"]) is False
    return info


def _end_by_an_invalid_action(
    env: MathyGymEnv, info: Dict[str, Any]
) -> Dict[str, Any]:
    env.mathy.invalid_action_response = "terminal"
    invalid = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, _, terminated, _, info = env.step(invalid)
    assert terminated is True and bool(info["valid"]) is False
    return info


def _end_by_outgrowing(env: MathyGymEnv, info: Dict[str, Any]) -> Dict[str, Any]:
    _, _, terminated, _, info = env.step(
        _rule_action(env, info, "DistributiveMultiplyRule")
    )
    assert terminated is True and bool(info["oversize"]) is True
    return info


ENDINGS = [
    ("4x + 2x", 5, 128, _end_by_winning),
    ("4x + 2y + 3x", 3, 128, _end_by_running_out_of_moves),
    ("4x + 2y + 3x", 9, 128, _end_by_an_invalid_action),
    ("(x + 1)(x + 2)", 9, 8, _end_by_outgrowing),
]


@pytest.mark.parametrize(
    "problem, moves, max_seq_len, end",
    ENDINGS,
    ids=[end.__name__.lstrip("_") for *_, end in ENDINGS],
)
def test_step_after_the_episode_ended_raises_until_reset(
    problem: str, moves: int, max_seq_len: int, end: Any
) -> None:
    env = MathyGymEnv(
        PolySimplify,
        env_problem=problem,
        env_max_moves=moves,
        max_seq_len=max_seq_len,
        published_info=True,
    )
    for episode in range(2):
        _, info = env.reset(seed=episode)
        info = end(env, info)
        assert info["done"] is True
        state, masks = env.state, env.action_masks()
        assert state is not None
        moves_left = state.agent.moves_remaining
        still_valid = np.flatnonzero(info["action_mask"])[:1].tolist()
        for action in [0, *still_valid]:
            with pytest.raises(ValueError, match=r"reset\(\)") as raised:
                env.step(action)
            assert "episode" in str(raised.value)
            # Nothing changed: no move was used, the mask is the same.
            assert env.state is state
            assert env.state.agent.moves_remaining == moves_left
            np.testing.assert_array_equal(env.action_masks(), masks)
    # After a reset play goes on as in a fresh episode.
    obs, info = env.reset(seed=5)
    assert _problem(env) == problem
    obs, reward, terminated, truncated, info = env.step(
        int(np.flatnonzero(info["action_mask"])[0])
    )
    assert bool(info["valid"]) is True
    assert env.state is not None and env.state.agent.moves_remaining == moves - 1
    assert env.observation_space.contains(obs)


# -- pickling and vector envs ------------------------------------------------------


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_envs_pickle(obs_type: str) -> None:
    made = gymnasium.make("mathy-poly-blockers-normal-v0", obs_type=obs_type)
    pickle.loads(pickle.dumps(made))  # before reset, with gymnasium's wrappers
    env = made.unwrapped
    obs, info = env.reset(seed=8)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    clone = pickle.loads(pickle.dumps(env))
    assert type(clone) is type(env) is MathyGymEnv
    assert type(clone.mathy) is PolySimplifyBlockers
    assert _problem(clone) == _problem(env)
    assert clone.state.to_string() == env.state.to_string()
    np.testing.assert_array_equal(clone.action_masks(), env.action_masks())
    # both continue identically, including their random streams
    action = int(np.flatnonzero(env.action_masks())[-1])
    out_a = env.step(action)
    out_b = clone.step(action)
    _assert_same_obs(out_a[0], out_b[0])
    assert out_a[1:4] == out_b[1:4]
    env.reset()
    clone.reset()
    assert _problem(clone) == _problem(env)


@pytest.mark.parametrize("obs_type", ["flat", "message_passing"])
def test_async_vector_env(obs_type: str) -> None:
    # Workers are spawned, not forked (forking a multi-threaded process is
    # deprecated since Python 3.12), so each imports mathy_envs.gym itself through
    # the `module:id` form of the id.
    env_fns = [
        lambda: gymnasium.make("mathy_envs.gym:mathy-poly-easy-v0", obs_type=obs_type)
        for _ in range(2)
    ]
    envs = gymnasium.vector.AsyncVectorEnv(env_fns, context="spawn")
    try:
        obs, infos = envs.reset(seed=[1, 2])
        assert envs.observation_space.contains(obs)
        rng = np.random.default_rng(0)
        episodes_ended = 0
        valid_steps = 0
        for _ in range(100):
            masks = infos["action_mask"]
            assert masks.shape == (2, envs.single_action_space.n)
            actions = []
            for mask in masks:
                valid = np.flatnonzero(mask)
                # an all-zero mask follows a finished episode: the next step is
                # gymnasium's autoreset and ignores the action
                actions.append(int(rng.choice(valid)) if len(valid) else 0)
            obs, rewards, terminated, truncated, infos = envs.step(np.array(actions))
            assert envs.observation_space.contains(obs)
            assert np.all(np.isfinite(rewards))
            if "valid" in infos:
                valid_steps += int(infos["valid"][infos["_valid"]].sum())
                assert infos["valid"][infos["_valid"]].all()
            episodes_ended += int(np.sum(terminated | truncated))
        assert episodes_ended > 0
        assert valid_steps > 150
    finally:
        envs.close()


@pytest.mark.parametrize(
    "autoreset_mode",
    [None, gymnasium.vector.AutoresetMode.SAME_STEP],
    ids=["default", "same-step"],
)
def test_sync_vector_env_autoreset_never_steps_a_finished_episode(
    autoreset_mode: Any,
) -> None:
    """Gymnasium's autoreset resets a finished env instead of stepping it, so the
    "episode is over" error never fires. Binomial hard with a small max_seq_len
    also ends episodes by outgrowing it, which leaves an all-zero mask row."""
    L = 13
    env_fns = [
        lambda: gymnasium.make("mathy-binomial-hard-v0", max_seq_len=L) for _ in range(2)
    ]
    kwargs = {} if autoreset_mode is None else {"autoreset_mode": autoreset_mode}
    envs = gymnasium.vector.SyncVectorEnv(env_fns, **kwargs)
    try:
        obs, infos = envs.reset(seed=[4, 5])
        rng = np.random.default_rng(0)
        episodes_ended = valid_steps = empty_masks = 0
        for _ in range(500):
            actions = []
            for mask in infos["action_mask"]:
                valid = np.flatnonzero(mask)
                empty_masks += len(valid) == 0
                actions.append(int(rng.choice(valid)) if len(valid) else 0)
            obs, rewards, terminated, truncated, infos = envs.step(np.array(actions))
            assert envs.observation_space.contains(obs)
            assert np.all(np.isfinite(rewards))
            if "valid" in infos:
                stepped = infos["_valid"]
                assert infos["valid"][stepped].all()
                valid_steps += int(stepped.sum())
            episodes_ended += int(np.sum(terminated | truncated))
        assert episodes_ended > 20
        assert valid_steps > 500
        if autoreset_mode is None:
            assert empty_masks > 0  # the all-zero rows came up and were handled
    finally:
        envs.close()


# -- the MaskablePPO example -------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="sb3-contrib is not installed"
)
def test_maskable_ppo_example_runs(
    maskable_ppo_run: "subprocess.CompletedProcess[str]",
) -> None:
    """The shipped example trains and reports a win rate (the training run is
    shared with `tests/test_snippets.py`, see `conftest.maskable_ppo_run`)."""
    result = maskable_ppo_run
    assert result.returncode == 0, result.stderr
    match = re.search(r"win rate: ([0-9.]+)", result.stdout)
    assert match, result.stdout
    assert 0.0 <= float(match.group(1)) <= 1.0


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_observations_carry_the_revisits_that_end_the_episode(obs_type: str) -> None:
    """Swapping `4x + 2y + 3x` back and forth: every observation shows how often
    its expression was seen before (over 3), up to the fourth visit, which loses;
    with `revisits=False` no observation has that value."""
    seen = []
    env = MathyGymEnv(
        PolySimplify, env_problem="4x + 2y + 3x", env_max_moves=10, obs_type=obs_type
    )
    obs, info = env.reset(seed=0)
    swap = 1 * env.mathy.max_seq_len + 3  # commutative swap at the first "+"
    for _ in range(7):
        if isinstance(obs, np.ndarray):
            seen.append(float(obs[3]))
        else:
            features = obs["node_features"]
            column = features[: int(obs["num_nodes"]), 4]
            assert (column == column[0]).all() and not features[int(obs["num_nodes"]) :].any()
            seen.append(float(column[0]))
        if len(seen) == 7:
            break
        obs, reward, terminated, truncated, info = env.step(swap)
    assert seen == pytest.approx([0, 0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1])
    assert terminated and reward == EnvRewards.LOSE and not truncated
    published = MathyGymEnv(
        PolySimplify, env_problem="4x + 2y + 3x", obs_type=obs_type, revisits=False
    )
    obs, _ = published.reset(seed=0)
    width = obs.shape[0] if isinstance(obs, np.ndarray) else obs["node_features"].shape[1]
    assert width == (3 + 9 * published.mathy.max_seq_len if obs_type == "flat" else 4)


@pytest.mark.parametrize("obs_type", OBS_TYPES)
def test_the_move_back_is_not_offered_but_stays_valid(obs_type: str) -> None:
    """After a swap in `4x + 2y + 3x`, the swap back is left out of every mask
    the agent reads (info, `action_masks()`, the observation); taking it anyway
    is a valid move, scored as a revisit. `mask_revisits=False` offers it."""
    swap = 1 * 16 + 3  # commutative swap at the first +
    offered = MathyGymEnv(
        PolySimplify, env_problem="4x + 2y + 3x", max_seq_len=16, obs_type=obs_type
    )
    published = MathyGymEnv(
        PolySimplify,
        env_problem="4x + 2y + 3x",
        max_seq_len=16,
        obs_type=obs_type,
        mask_revisits=False,
    )
    for env in (offered, published):
        env.reset()
        obs, _, _, _, info = env.step(swap)
        assert _problem(env) == "2y + 4x + 3x"
        np.testing.assert_array_equal(info["action_mask"], _expected_mask(env))
        np.testing.assert_array_equal(_obs_mask(obs, env), info["action_mask"])
        np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
        assert info["action_mask"][swap] == (0 if env is offered else 1)
        assert info["action_mask"].sum() == published.mathy.valid_moves_array(env.state).sum() - (
            env is offered
        )
    obs, reward, terminated, _, info = offered.step(swap)
    assert info["valid"] and not terminated
    assert _problem(offered) == "4x + 2y + 3x"
    assert reward == EnvRewards.PREVIOUS_LOCATION * 2
