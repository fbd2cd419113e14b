"""The observation entry points are typed by observation kind.

CI runs `mypy --strict` on this file: `assert_type` fails type checking when an
entry point stops giving the kind's own type. At run time each value is also
checked to be what its type says.
"""

from typing import Any, List

import numpy as np
from typing_extensions import assert_type

from mathy_envs import MathyEnvState, MathyObservation
from mathy_envs.envs import PolySimplify
from mathy_envs.observations import (
    FLAT,
    GRAPH,
    HIERARCHICAL,
    MESSAGE_PASSING,
    FloatArray,
    MathyGraphObservation,
    MathyHierarchicalObservation,
    MathyMessagePassingObservation,
    ObservationKind,
    observe,
)


def test_observe_gives_the_type_of_its_kind() -> None:
    state = MathyEnvState(problem="4x + 2y + 2x", num_rules=6)
    flat = assert_type(observe(state, FLAT), FloatArray)
    graph = assert_type(observe(state, GRAPH), MathyGraphObservation)
    levels = assert_type(observe(state, HIERARCHICAL), MathyHierarchicalObservation)
    edges = assert_type(observe(state, MESSAGE_PASSING), MathyMessagePassingObservation)
    assert isinstance(flat, np.ndarray) and flat.dtype == np.float32
    assert isinstance(graph, MathyGraphObservation)
    assert isinstance(levels, MathyHierarchicalObservation)
    assert isinstance(edges, MathyMessagePassingObservation)


def test_state_and_env_methods_give_the_type_of_a_kind() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 2x")
    graph = assert_type(state.to_observation(obs_type=GRAPH), MathyGraphObservation)
    assert isinstance(graph, MathyGraphObservation)
    edges = assert_type(
        env.state_to_observation(state, obs_type=MESSAGE_PASSING),
        MathyMessagePassingObservation,
    )
    assert isinstance(edges, MathyMessagePassingObservation)
    plain = assert_type(env.state_to_observation(state), MathyObservation)
    assert isinstance(plain, MathyObservation)


def test_a_kind_and_its_name_build_the_same_observation() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 2x")
    mask = env.valid_moves_array(state)
    kinds: List[ObservationKind[Any]] = [FLAT, GRAPH, HIERARCHICAL, MESSAGE_PASSING]
    for kind in kinds:
        by_kind = state.to_observation(move_mask=mask, obs_type=kind)
        by_name = state.to_observation(move_mask=mask, obs_type=kind.name)
        if isinstance(by_kind, np.ndarray):
            assert np.array_equal(by_kind, by_name)
        else:
            for ours, theirs in zip(by_kind, by_name):
                assert np.array_equal(ours, theirs)
