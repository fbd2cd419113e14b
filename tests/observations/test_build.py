"""`mathy_envs.observations.build`: `observe` and `plain_observation`, the entry
points every observation goes through."""

from typing import List

import numpy as np
import pytest

from mathy_envs import MathyEnvState
from mathy_envs.envs import PolySimplify
from mathy_envs.observations import (
    FLAT,
    GRAPH,
    ObservationType,
    observe,
    plain_observation,
    problem_hash,
)


def test_observe_takes_a_kind_an_observation_type_or_a_name() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x + 2y + 2x")
    mask = env.valid_moves_array(state)
    by_kind = observe(state, GRAPH, mask)
    for name in (ObservationType.GRAPH, "graph"):
        by_name = observe(state, name, mask)
        for ours, theirs in zip(by_kind, by_name):
            assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("kind", [None, 3, "graphs", object()])
def test_observe_of_an_unknown_kind_is_a_value_error(kind: object) -> None:
    state = MathyEnvState(problem="4x + 2x")
    with pytest.raises(ValueError, match="Unknown observation type"):
        observe(state, kind)  # type: ignore[call-overload]


@pytest.mark.parametrize("state", ["4x + 2x", None, 7])
def test_observe_and_plain_observation_of_a_non_state_are_value_errors(state: object) -> None:
    with pytest.raises(ValueError, match="expected a MathyEnvState"):
        observe(state, FLAT)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="expected a MathyEnvState"):
        plain_observation(state)  # type: ignore[arg-type]


def test_the_plain_observation_of_a_state_carries_its_own_problem_hash() -> None:
    class Tagged(MathyEnvState):
        def get_problem_hash(self) -> List[float]:
            return [0.5, 0.25]

    state = Tagged(problem="4x + 2x", problem_type="ns")
    assert state.to_mathy_observation().type == [0.5, 0.25]
    plain = MathyEnvState(problem="4x + 2x", problem_type="ns")
    assert plain.to_mathy_observation().type == list(problem_hash("ns"))
    assert plain_observation(plain).type == list(problem_hash("ns"))
