"""The observation registry: a fifth observation type, registered from this file,
works everywhere `obs_type` is taken (states, envs, the Gymnasium adapter), and
registration is validated and thread-safe.

Expected values come from fresh mathy_core trees, not from the library's node
arrays.
"""

import threading
import warnings
from typing import Any, Dict, Iterator, List, NamedTuple

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from mathy_core import ConstantExpression, ExpressionParser

from mathy_envs import MathyEnvState, ObservationType, envs
from mathy_envs.gym import MathyGymEnv, observation_space
from mathy_envs.observations import (
    FloatArray,
    ObservationInputs,
    ObservationKind,
    get_observation_kind,
    observation_types,
    register_observation,
    to_observation_type,
    unregister_observation,
)
from mathy_envs.types import EnvRewards

from helpers import ALL_TYPES, MAIN, make_state, random_mask, run_python, tree

BUILT_IN = ["flat", "graph", "hierarchical", "message_passing"]
TEXT = "4x + 2y + 3 * (x + 7)"


class SequenceObservation(NamedTuple):
    """Pre-order node type ids and values, the problem hash and the mask."""

    type_ids: FloatArray
    values: FloatArray
    problem_hash: FloatArray
    action_mask: FloatArray
    num_nodes: int


class SequenceKind(ObservationKind[SequenceObservation]):
    """A fifth observation type, defined outside the package."""

    name = "sequence"

    def __init__(self) -> None:
        self.seen: List[ObservationInputs] = []

    def build(self, inputs: ObservationInputs) -> SequenceObservation:
        self.seen.append(inputs)
        length, n = inputs.max_seq_len, inputs.num_nodes
        types, values = inputs.layout.preordered(inputs.normalize)
        type_ids = np.zeros(length, np.float32)
        type_ids[:n] = types
        padded_values = np.zeros(length, np.float32)
        padded_values[:n] = values
        return SequenceObservation(
            type_ids=type_ids,
            values=padded_values,
            problem_hash=np.asarray(inputs.problem_hash, np.float32),
            action_mask=inputs.action_mask(),
            num_nodes=n,
        )

    def space(self, max_seq_len: int, num_rules: int) -> spaces.Dict:
        unit = (0.0, 1.0)
        return spaces.Dict(
            {
                "type_ids": spaces.Box(*unit, (max_seq_len,), np.float32),
                "values": spaces.Box(*unit, (max_seq_len,), np.float32),
                "problem_hash": spaces.Box(*unit, (2,), np.float32),
                "action_mask": spaces.Box(*unit, (num_rules * max_seq_len,), np.float32),
                "num_nodes": spaces.Discrete(max_seq_len + 1),
            }
        )


@pytest.fixture(autouse=True)
def registry_is_left_as_found() -> Iterator[None]:
    """Every test leaves only the built-in types registered."""
    assert list(observation_types()) == BUILT_IN
    yield
    assert list(observation_types()) == BUILT_IN


@pytest.fixture
def sequence() -> Iterator[SequenceKind]:
    kind = SequenceKind()
    register_observation(kind)
    try:
        yield kind
    finally:
        unregister_observation(kind.name)


def _preorder(text: str) -> Any:
    return ExpressionParser().parse(text).to_list("preorder")


def _raw_value(node: Any) -> float:
    return float(node.value) if isinstance(node, ConstantExpression) else 0.0


# -- the built-in types ------------------------------------------------------------


def test_the_built_in_types_are_registered_in_enum_order() -> None:
    assert list(observation_types()) == [t.value for t in ObservationType]
    for obs_type in ObservationType:
        by_enum = get_observation_kind(obs_type)
        assert by_enum is get_observation_kind(obs_type.value)
        assert by_enum.name == obs_type.value
        assert to_observation_type(obs_type.value) is obs_type


@pytest.mark.parametrize("bad", ["flatt", "GRAPH", "", "tree", 3])
def test_unknown_observation_type(bad: Any) -> None:
    state = make_state(MAIN)
    with pytest.raises(ValueError, match=r"^Unknown observation type: "):
        state.to_observation(obs_type=bad)


@pytest.mark.parametrize("obs_type", ALL_TYPES)
def test_string_observation_types_match_enum(obs_type: ObservationType) -> None:
    state = make_state(MAIN, moves_remaining=3)
    n = len(tree(MAIN).to_list())
    mask = random_mask(np.random.default_rng(2), 3, n)
    by_enum = state.to_observation(move_mask=mask, max_seq_len=16, obs_type=obs_type)
    by_str = state.to_observation(move_mask=mask, max_seq_len=16, obs_type=obs_type.value)
    if isinstance(by_enum, np.ndarray):
        np.testing.assert_array_equal(by_enum, by_str)
    else:
        assert type(by_str) is type(by_enum)
        for key, value in by_enum.to_dict().items():
            np.testing.assert_array_equal(value, by_str.to_dict()[key])


# -- a fifth type through every entry point -------------------------------------------


def test_state_to_observation_builds_a_registered_type(sequence: SequenceKind) -> None:
    env = envs.PolySimplify()
    state = env.state_from_text(TEXT, max_moves=10)
    L, R = 16, len(env.rules)
    moves = np.asarray(env.get_valid_moves(state))
    obs = state.to_observation(
        move_mask=moves, max_seq_len=L, normalize=False, obs_type="sequence"
    )
    assert isinstance(obs, SequenceObservation)
    pre = _preorder(TEXT)
    n = len(pre)
    assert obs.num_nodes == n == 13
    assert obs.type_ids[:n].tolist() == [node.type_id for node in pre]
    assert obs.values[:n].tolist() == [_raw_value(node) for node in pre]
    assert not obs.type_ids[n:].any() and not obs.values[n:].any()
    assert obs.problem_hash.tolist() == pytest.approx(state.get_problem_hash())
    grid = obs.action_mask.reshape(R, L)
    np.testing.assert_array_equal(grid[:, :n], moves)
    assert not grid[:, n:].any()
    # The builder saw the state itself and the checked inputs.
    inputs = sequence.seen[-1]
    assert inputs.state is state
    assert (inputs.max_seq_len, inputs.num_rules, inputs.normalize) == (L, R, False)
    assert inputs.mask_as_probabilities is False
    # Options reach the builder like they reach the built-in types.
    hashed = state.to_observation(obs_type="sequence", hash_type=[0.25, 0.75])
    assert hashed.problem_hash.tolist() == [0.25, 0.75]
    assert hashed.type_ids.shape == (128,)  # DEFAULT_MAX_SEQ_LEN
    assert hashed.type_ids.max() <= 1.0  # normalized by default
    with pytest.raises(ValueError, match=r"13 nodes.*max_seq_len=8"):
        state.to_observation(obs_type="sequence", max_seq_len=8)


def test_env_state_to_observation_builds_a_registered_type(sequence: SequenceKind) -> None:
    env = envs.PolySimplify(max_seq_len=24)
    state = env.state_from_text(TEXT)
    obs = env.state_to_observation(state, obs_type="sequence")
    assert isinstance(obs, SequenceObservation)
    assert obs.type_ids.shape == (24,)
    grid = obs.action_mask.reshape(len(env.rules), 24)
    np.testing.assert_array_equal(grid[:, :13], env.get_valid_moves(state))
    smaller = env.state_to_observation(state, max_seq_len=16, obs_type="sequence")
    assert smaller.type_ids.shape == (16,)
    # No obs_type: still the plain-list MathyObservation.
    assert type(env.state_to_observation(state)).__name__ == "MathyObservation"


def test_mask_as_probabilities_reaches_a_registered_type(sequence: SequenceKind) -> None:
    env = envs.PolySimplify()
    state = env.state_from_text(TEXT)
    moves = np.asarray(env.get_valid_moves(state))
    obs = state.to_observation(
        move_mask=moves, obs_type="sequence", max_seq_len=16, mask_as_probabilities=True
    )
    grid = obs.action_mask.reshape(-1, 16)[:, :13]
    assert obs.action_mask.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(grid[moves == 1], 1.0 / moves.sum(), rtol=1e-6)
    assert not grid[moves == 0].any()
    assert sequence.seen[-1].mask_as_probabilities is True


def _check_env(**kwargs: Any) -> None:
    """gymnasium's env_checker passes, without a warning, on an env made by id
    (a spec lets it test every render mode)."""
    import mathy_envs.gym  # noqa: F401  (registers the mathy-* ids)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        made = gymnasium.make("mathy-poly-normal-v0", **kwargs)
        check_env(made.unwrapped)
        made.close()


def test_gym_adapter_plays_a_registered_type(sequence: SequenceKind) -> None:
    _check_env(obs_type="sequence", max_seq_len=48)
    env = MathyGymEnv(envs.PolySimplify, obs_type="sequence", max_seq_len=48)
    assert env.obs_type == "sequence"
    assert isinstance(env.observation_space, spaces.Dict)
    assert set(env.observation_space.spaces) == set(SequenceObservation._fields)
    obs, info = env.reset(seed=4)
    env.action_space.seed(4)
    for _ in range(30):
        assert isinstance(obs, dict) and set(obs) == set(SequenceObservation._fields)
        assert env.observation_space.contains(obs)
        assert env.state is not None
        assert obs["num_nodes"] == len(_preorder(env.state.agent.problem))
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
        obs, _, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            obs, info = env.reset()


def test_gym_adapter_with_probabilities_and_a_registered_type(
    sequence: SequenceKind,
) -> None:
    _check_env(obs_type="sequence", mask_as_probabilities=True)
    env = MathyGymEnv(
        envs.PolySimplify, obs_type="sequence", mask_as_probabilities=True
    )
    obs, info = env.reset(seed=21)
    for _ in range(8):
        mask = info["action_mask"]
        probabilities = obs["action_mask"]
        assert env.observation_space.contains(obs)
        assert probabilities.sum() == pytest.approx(1.0, abs=1e-5)
        np.testing.assert_array_equal(probabilities > 0, mask == 1)
        np.testing.assert_allclose(probabilities[mask == 1], 1.0 / mask.sum(), rtol=1e-5)
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        if terminated or truncated:
            break


@pytest.mark.parametrize("probabilities", [False, True])
def test_oversize_step_shows_the_last_observation_with_no_valid_action(
    sequence: SequenceKind, probabilities: bool
) -> None:
    # (x + 1)(x + 2) has 7 nodes; distributing the product gives 11 > 8.
    env = MathyGymEnv(
        envs.PolySimplify,
        env_problem="(x + 1)(x + 2)",
        max_seq_len=8,
        obs_type="sequence",
        mask_as_probabilities=probabilities,
    )
    before, info = env.reset(seed=0)
    assert before["action_mask"].any()
    rules = [type(rule).__name__ for rule in env.mathy.rules]
    distribute = rules.index("DistributiveMultiplyRule")
    node = int(np.flatnonzero(info["action_mask"].reshape(len(rules), 8)[distribute])[0])
    obs, reward, terminated, _, info = env.step(distribute * 8 + node)
    assert terminated is True and bool(info["oversize"]) is True
    assert reward == EnvRewards.LOSE
    assert env.observation_space.contains(obs)
    assert not obs["action_mask"].any()
    for key in ("type_ids", "values", "problem_hash", "num_nodes"):
        np.testing.assert_array_equal(obs[key], before[key])


def test_a_registered_type_has_its_gym_space(sequence: SequenceKind) -> None:
    space = observation_space("sequence", 10, 3)
    assert isinstance(space, spaces.Dict)
    assert space["action_mask"].shape == (30,)
    assert space["num_nodes"].n == 11
    assert to_observation_type("sequence") == "sequence"


# -- unknown and removed types ----------------------------------------------------------


def test_an_unregistered_type_is_unknown_again() -> None:
    state = MathyEnvState(problem=TEXT)
    kind = register_observation(SequenceKind())
    try:
        assert isinstance(state.to_observation(obs_type="sequence"), SequenceObservation)
    finally:
        assert unregister_observation("sequence") is kind
    for call in (
        lambda: state.to_observation(obs_type="sequence"),
        lambda: envs.PolySimplify().state_to_observation(state, obs_type="sequence"),
        lambda: MathyGymEnv(envs.PolySimplify, obs_type="sequence"),
        lambda: observation_space("sequence", 8, 2),
        lambda: get_observation_kind("sequence"),
    ):
        with pytest.raises(ValueError, match=r"^Unknown observation type: 'sequence'"):
            call()


@pytest.mark.parametrize("bad", ["sequence", "Flat", "", None, 3, ["flat"], {"a": 1}])
def test_unknown_names_are_value_errors(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"^Unknown observation type: ") as info:
        get_observation_kind(bad)
    assert "flat, graph, hierarchical, message_passing" in str(info.value)


# -- validation -------------------------------------------------------------------------


def test_a_duplicate_name_is_refused(sequence: SequenceKind) -> None:
    with pytest.raises(ValueError, match="'sequence' is already registered"):
        register_observation(SequenceKind())
    with pytest.raises(ValueError, match="already registered"):
        register_observation(sequence)
    assert get_observation_kind("sequence") is sequence


@pytest.mark.parametrize("obs_type", BUILT_IN)
def test_a_built_in_name_can_be_neither_replaced_nor_removed(obs_type: str) -> None:
    kind = SequenceKind()
    kind.name = obs_type
    with pytest.raises(ValueError, match="already registered"):
        register_observation(kind)
    with pytest.raises(ValueError, match="built-in"):
        unregister_observation(obs_type)
    assert get_observation_kind(obs_type).name == obs_type


class _NoName(SequenceKind):
    name = None  # type: ignore[assignment]


class _NoBuild(SequenceKind):
    build = None  # type: ignore[assignment]


def _named(name: Any) -> SequenceKind:
    kind = SequenceKind()
    kind.name = name
    return kind


MALFORMED: Dict[str, Any] = {
    "the class": SequenceKind,
    "a function": lambda inputs: inputs,
    "a dict": {"name": "x", "build": print, "space": print},
    "None": None,
    "no name": _NoName(),
    "no build": _NoBuild(),
    "empty name": _named(""),
    "name with a space": _named("my type"),
    "name with a slash": _named("a/b"),
    "leading dash": _named("-x"),
    "int name": _named(5),
    "long name": _named("x" * 65),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_kind_is_refused(name: str) -> None:
    with pytest.raises(ValueError) as info:
        register_observation(MALFORMED[name])
    message = str(info.value)
    assert len(message) < 300 and "\n" not in message


def test_the_class_instead_of_an_instance_says_how_to_fix_it() -> None:
    with pytest.raises(ValueError, match=r"register_observation\(SequenceKind\(\)\)"):
        register_observation(SequenceKind)  # type: ignore[arg-type]


def test_an_abstract_kind_cannot_be_made() -> None:
    class Partial(ObservationKind[int]):
        name = "partial"

        def build(self, inputs: ObservationInputs) -> int:
            return 0

    with pytest.raises(TypeError):
        Partial()  # type: ignore[abstract]


def test_unregistering_an_unknown_name_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="^Unknown observation type: 'nothing'"):
        unregister_observation("nothing")


# -- threads ----------------------------------------------------------------------------


def _in_threads(count: int, work: Any) -> List[Any]:
    """Run `work(i)` in `count` threads started together; their results or
    exceptions, by thread index."""
    barrier = threading.Barrier(count)
    results: List[Any] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = work(index)
        except Exception as error:  # collected for the assertions
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_concurrent_registrations_of_one_name_register_it_once() -> None:
    kinds = [SequenceKind() for _ in range(8)]
    try:
        results = _in_threads(8, lambda i: register_observation(kinds[i]))
        winners = [r for r in results if isinstance(r, SequenceKind)]
        errors = [r for r in results if isinstance(r, ValueError)]
        assert len(winners) == 1 and len(errors) == 7
        assert get_observation_kind("sequence") is winners[0]
    finally:
        unregister_observation("sequence")


def test_concurrent_registrations_of_many_names_all_land() -> None:
    names = [f"sequence-{i}" for i in range(16)]
    state = MathyEnvState(problem=TEXT)

    def register_and_use(index: int) -> int:
        register_observation(_named(names[index]))
        # Look-ups of other types go on while the registry changes.
        for obs_type in BUILT_IN:
            state.to_observation(obs_type=obs_type, max_seq_len=16)
        obs = state.to_observation(obs_type=names[index], max_seq_len=16)
        return int(obs.num_nodes)

    try:
        assert _in_threads(16, register_and_use) == [13] * 16
        registered = list(observation_types())
        assert registered[:4] == BUILT_IN and sorted(registered[4:]) == sorted(names)
    finally:
        for name in names:
            if name in observation_types():
                unregister_observation(name)


# -- gymnasium stays optional ------------------------------------------------------------


def test_observations_are_built_without_gymnasium() -> None:
    code = """
import sys
sys.modules["gymnasium"] = None  # as if it were not installed
import mathy_envs
from mathy_envs import MathyEnvState, ObservationType
from mathy_envs.observations import get_observation_kind
state = MathyEnvState(problem="4x + 2y", num_rules=3)
for obs_type in ObservationType:
    state.to_observation(obs_type=obs_type, max_seq_len=8)
try:
    get_observation_kind("graph").space(8, 3)
except ImportError:
    print("ok")
"""
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


class _SeenKind(ObservationKind[np.ndarray]):
    """A user's type that keeps the revisit feature it is given; its space takes
    `revisits` when `takes` is set."""

    def __init__(self, name: str, takes: bool) -> None:
        self.name = name
        self.given: List[Any] = []
        if takes:
            self.space = self._space_with  # type: ignore[method-assign]

    def build(self, inputs: ObservationInputs) -> np.ndarray:
        self.given.append(inputs.revisits)
        return np.full(1, 0.0 if inputs.revisits is None else inputs.revisits, np.float32)

    def space(self, max_seq_len: int, num_rules: int) -> "spaces.Box":
        return spaces.Box(0.0, 1.0, (1,), np.float32)

    def _space_with(self, max_seq_len: int, num_rules: int, revisits: bool = False) -> Any:
        return spaces.Box(0.0, 1.0, (2 if revisits else 1,), np.float32)


@pytest.mark.parametrize("takes", [False, True])
def test_a_users_type_gets_the_revisit_feature_and_keeps_its_space(takes: bool) -> None:
    """Builders get `inputs.revisits` (None unless asked for); the Gymnasium
    adapter passes `revisits=True` only to a `space` that takes it."""
    kind = _SeenKind(f"seen_{takes}", takes)
    register_observation(kind)
    try:
        state = make_state(MAIN, num_rules=7)
        state.to_observation(max_seq_len=16, obs_type=kind.name)
        state.to_observation(max_seq_len=16, obs_type=kind.name, revisits=True)
        assert kind.given == [None, 0.0]
        assert kind.space_for(16, 7, revisits=True).shape == ((2,) if takes else (1,))
        assert observation_space(kind.name, 16, 7, revisits=True).shape == (
            (2,) if takes else (1,)
        )
        env = MathyGymEnv(envs.PolySimplify, obs_type=kind.name)
        assert env.observation_space.shape == ((2,) if takes else (1,))
        env.reset(seed=0)
        # The adapter asks for the feature only from a type whose space takes it.
        assert kind.given[-1] == (0.0 if takes else None)
        assert kind.takes_revisits() is takes
    finally:
        unregister_observation(kind.name)


class _FeaturesKind(ObservationKind[np.ndarray]):
    """A user's type written before the revisit feature: node features from
    `inputs.node_features()`, and a space of four columns."""

    name = "user_features"

    def build(self, inputs: ObservationInputs) -> np.ndarray:
        return inputs.node_features()

    def space(self, max_seq_len: int, num_rules: int) -> "spaces.Box":
        return spaces.Box(0.0, 1.0, (max_seq_len, 4), np.float32)


def test_a_users_type_from_before_the_feature_still_fits_its_space() -> None:
    register_observation(_FeaturesKind())
    try:
        env = MathyGymEnv(envs.PolySimplify, obs_type="user_features")
        obs, info = env.reset(seed=0)
        assert obs.shape == (env.mathy.max_seq_len, 4)
        assert env.observation_space.contains(obs)
        obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert env.observation_space.contains(obs)
    finally:
        unregister_observation("user_features")
