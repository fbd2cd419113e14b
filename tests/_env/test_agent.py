"""`mathy_envs._env.agent`: the agent's side of a state (`MathyAgentState`) and one
step of its history (`MathyEnvStateStep`)."""

from mathy_envs._env.agent import MathyAgentState, MathyEnvStateStep


def test_agent_state_default_history() -> None:
    agent = MathyAgentState(3, "2y", "ns")
    assert agent.reward == 0.0
    assert agent.history == [MathyEnvStateStep("2y", (-1, -1))]
    step = MathyEnvStateStep(raw="x", action=(1, 2))
    assert step.raw == "x" and step.action == (1, 2)
    assert tuple(step) == ("x", (1, 2))


def test_agent_state_copies_given_history() -> None:
    history = [MathyEnvStateStep("2y", (-1, -1))]
    agent = MathyAgentState(3, "2y", "ns", history=history)
    history.append(MathyEnvStateStep("y2", (1, 0)))
    assert len(agent.history) == 1


def test_owning_holds_the_history_it_is_given() -> None:
    history = [MathyEnvStateStep("4x + 2x", (-1, -1)), MathyEnvStateStep("6x", (3, 1))]
    made = MathyAgentState(3, "6x", "ns", 0.5, history)
    owning = MathyAgentState.owning(3, "6x", "ns", 0.5, history)
    assert owning == made and repr(owning) == repr(made)
    assert owning.history is history and made.history is not history
