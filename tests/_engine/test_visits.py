"""Visits are counted with an episode's texts in one canonical form: a move back
to the problem is a revisit however the problem was written."""

from typing import List

import numpy as np
import pytest

from mathy_envs import MathyEnvState
from mathy_envs.batch import StepBatch
from mathy_envs.envs import PolySimplify
from mathy_envs.observations.common import revisit_feature
from mathy_envs.types import EnvRewards, MathyEnvProblem
from mathy_envs._engine.visits import canonical_text, visit_counts, visits_of

WRITTEN = ["4x+2y+3x", "4x + 2y + 3x", " 4x +2y+  3x ", "(4x) + 2y + 3x", "(4x + 2y) + 3x"]
"""One problem written several ways (the last as the generators write some of
theirs); mathy_core prints each parse the same."""
PRINTED = "4x + 2y + 3x"


def _there_and_back(env: PolySimplify, written: str) -> List[MathyEnvState]:
    """The problem as written, one commutative swap, and the swap back."""
    start = env.state_from_text(written)
    there, _, _ = env.get_next_state(start, (1, 3))
    assert there.agent.problem == "2y + 4x + 3x"
    back, _, _ = env.get_next_state(there, (1, 3))
    assert back.agent.problem == PRINTED
    return [start, there, back]


@pytest.mark.parametrize("written", WRITTEN)
def test_a_move_back_to_the_problem_is_a_revisit_however_it_was_written(written: str) -> None:
    env = PolySimplify()
    assert canonical_text(written, env.parser) == PRINTED
    start, there, back = _there_and_back(env, written)
    # The reward scheme: the second visit is penalized as a revisit.
    assert env.get_state_transition(back).reward == EnvRewards.PREVIOUS_LOCATION * 2
    # The revisit feature: seen once before.
    assert revisit_feature(back, False, env.parser) == 1.0
    assert revisit_feature(start, False, env.parser) == 0.0
    # The masks that leave out revisits: the move back is not offered while
    # another move leads somewhere new.
    assert env.valid_moves_array(there)[1, 3] == 1
    assert env.least_visited_moves_array(there)[1, 3] == 0
    assert visit_counts(back.agent.history, env.parser) == {PRINTED: 2, "2y + 4x + 3x": 1}
    assert visits_of(back.agent.history, written, env.parser) == 2
    assert visits_of(back.agent.history, PRINTED, env.parser) == 2


@pytest.mark.parametrize("written", WRITTEN)
def test_a_batch_counts_the_problem_in_its_canonical_form(written: str) -> None:
    env = PolySimplify(
        generator=lambda rng, params: MathyEnvProblem(written, 3, "mathy.polynomials.simplify")
    )
    reference = PolySimplify()
    batch = StepBatch(env, 1)
    batch.reset(seed=0)
    length = env.max_seq_len
    batch.step(np.array([1 * length + 3]))
    there = batch.states[0]
    np.testing.assert_array_equal(
        batch.masks[0], reference.flat_moves(reference.least_visited_moves_array(there))
    )
    assert batch.masks[0][1 * length + 3] == 0  # the move back is left out, still legal
    batch.step(np.array([1 * length + 3]))
    assert batch.rewards[0] == EnvRewards.PREVIOUS_LOCATION * 2
    assert batch.observations[0][3] == pytest.approx(revisit_feature(batch.states[0], True, env.parser))
    assert batch.observations[0][3] > 0


def test_the_fourth_visit_of_a_problem_written_without_spaces_loses() -> None:
    env = PolySimplify()
    state = env.state_from_text("4x+2y+3x", max_moves=20)
    for _ in range(3):
        state, step, _ = env.get_next_state(state, (1, 3))
        state, step, _ = env.get_next_state(state, (1, 3))
    assert state.agent.problem == PRINTED
    assert step.reward == EnvRewards.LOSE


def test_a_text_that_does_not_parse_is_its_own_canonical_form() -> None:
    assert canonical_text("4x + (") == "4x + ("
    assert visit_counts([("4x + (", (-1, -1)), ("4x + (", (0, 0))]) == {"4x + (": 2}
    assert visit_counts([]) == {} and visits_of([], "x") == 0


def test_print_history_scores_the_return_to_the_problem_as_a_revisit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = PolySimplify()
    _, _, back = _there_and_back(env, "4x+2y+3x")
    env.print_history(back, pretty=False)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3
    assert lines[1].split("|")[3].strip() == f"{EnvRewards.TIMESTEP:+.2f}"
    assert lines[2].split("|")[3].strip() == f"{EnvRewards.PREVIOUS_LOCATION * 2:+.2f}"


@pytest.mark.parametrize("written", WRITTEN)
def test_a_batch_counts_visits_as_get_next_state_after_an_invalid_first_move(written: str) -> None:
    # An invalid move (penalized) stays on the problem as written: it is a
    # visit of the problem in its canonical form, in the batch as in the env.
    def make() -> PolySimplify:
        return PolySimplify(
            invalid_action_response="penalize",
            generator=lambda rng, params: MathyEnvProblem(written, 3, "mathy.polynomials.simplify"),
        )

    env, reference = make(), make()
    batch = StepBatch(env, 1)
    batch.reset(seed=0)
    state = batch.states[0]
    assert env.valid_moves_array(state)[0, 0] == 0
    for rule, node in [(0, 0), (1, 3), (1, 3), (1, 3), (1, 3)]:
        state, step, _ = reference.get_next_state(state, (rule, node))
        batch.step(np.array([rule * env.max_seq_len + node]))
        assert batch.rewards[0] == step.reward, (rule, node)
        assert batch.observations[0][3] == pytest.approx(
            revisit_feature(state, True, reference.parser)
        )
    assert batch.terminated[0] and step.reward == EnvRewards.LOSE


def test_without_loops_drops_a_return_to_the_problem_however_it_was_written() -> None:
    from mathy_envs.expert import without_loops

    env = PolySimplify()
    for written in WRITTEN:
        start = env.state_from_text(written)
        solution = [(1, 3), (1, 3), (1, 7), (4, 3)]
        assert without_loops(env, start, solution) == without_loops(
            env, env.state_from_text(PRINTED), solution
        ), written
