"""Text rendering of states and episodes (`mathy_envs._env.rendering`): the line of a
step (`render_state`, `print_state`), the lines of a history (`print_history`)
and a verbose env's printing of its steps."""

from typing import Type

import numpy as np
import pytest
from mathy_core.rules import CommutativeSwapRule, DistributiveFactorOutRule

from mathy_envs import MathyEnv, MathyEnvState
from mathy_envs.envs import PolyHaystackLikeTerms, PolySimplify
from mathy_envs.state import MathyEnvStateStep
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import EnvRewards

from helpers import CORE_RULE_TYPES, NAMESPACE, FixedEnv, time_limit
from oracles import expected_mask, only_action


def test_print_history_replays_the_history(capsys: pytest.CaptureFixture[str]) -> None:
    env = FixedEnv(text="4x + 2x + y", complexity=4)
    state, _ = env.get_initial_state()
    capsys.readouterr()
    texts = [state.agent.problem]
    for rule_type in (CommutativeSwapRule, DistributiveFactorOutRule):
        text = state.agent.problem
        rows = expected_mask(text)[CORE_RULE_TYPES.index(rule_type)]
        action = (CORE_RULE_TYPES.index(rule_type), rows.index(1))
        state, _, _ = env.get_next_state(state, action)
        texts.append(state.agent.problem)
    assert len(set(texts)) == 3
    for pretty in (True, False):
        env.print_history(state, pretty=pretty)
        lines = capsys.readouterr().out.strip().splitlines()
        assert len(lines) == len(state.agent.history) == 3
        assert "4x + 2x + y" in lines[0]
        for line, text in zip(lines, texts):
            assert text in line
    env.print_history(state)
    assert len(capsys.readouterr().out.strip().splitlines()) == 3


@pytest.mark.parametrize("env_class", [PolySimplify, PolyHaystackLikeTerms])
def test_print_history_rewards_are_those_of_each_step(
    env_class: Type[MathyEnv], capsys: pytest.CaptureFixture[str]
) -> None:
    """The printed reward of every step is `get_state_transition` of the state
    the episode had then, revisit penalties included."""
    env = env_class(seed=3)
    state, _ = env.get_initial_state(print_problem=False)
    rng = np.random.default_rng(3)
    prefixes = [state]
    for _ in range(12):
        rows = np.asarray(env.get_valid_moves(state))
        swap = CORE_RULE_TYPES.index(CommutativeSwapRule)
        # Swapping back and forth revisits expressions.
        choices = np.argwhere(rows[swap:swap + 1]) if rows[swap].any() else np.argwhere(rows)
        pick = choices[int(rng.integers(len(choices)))]
        action = (swap, int(pick[1])) if rows[swap].any() else (int(pick[0]), int(pick[1]))
        state, step, _ = env.get_next_state(state, action)
        prefixes.append(state)
        if is_terminal_transition(step):
            break
    env.print_history(state)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(prefixes)
    printed = [float(line.split("|")[3]) for line in lines[1:]]
    expected = [round(env.get_state_transition(s).reward, 2) for s in prefixes[1:]]
    assert printed == expected
    if len(prefixes) > 3:  # Haystack episodes are too short to revisit
        assert any(r == round(EnvRewards.PREVIOUS_LOCATION * 2, 2) for r in printed)


def test_print_history_of_a_long_history_finishes(capsys: pytest.CaptureFixture[str]) -> None:
    """30,000 steps print in linear time (a quadratic replay takes minutes)."""
    env = FixedEnv(previous_state_penalty=False)
    state = env.state_from_text("4x + 2y", max_moves=10**6)
    texts = ("4x + 2y", "2y + 4x")
    history = [state.agent.history[0]] + [
        MathyEnvStateStep(texts[i % 2], (1, 1)) for i in range(1, 30_001)
    ]
    long = MathyEnvState.from_string(
        "@".join(["1000000", "7", "900000", texts[30_000 % 2], NAMESPACE, "0.0"])
        + "@"
        + "@".join(f"{step.raw},{step.action[0]},{step.action[1]}" for step in history)
    )
    with time_limit(60.0):  # a quadratic replay takes minutes
        env.print_history(long)
    assert len(capsys.readouterr().out.splitlines()) == 30_001


def test_print_history_of_a_fresh_state(capsys: pytest.CaptureFixture[str]) -> None:
    env = FixedEnv()
    env.print_history(env.state_from_text("4x + 2x"))
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and "4x + 2x" in lines[0]


def test_render_and_print_state(capsys: pytest.CaptureFixture[str]) -> None:
    env = FixedEnv()
    state = env.state_from_text("4x + 2x + 9y")
    rendered = env.render_state(state, "some-action", 3, None, 0.5)
    assert isinstance(rendered, str)
    assert "4x + 2x + 9y" in rendered
    assert "4x + 2x + 9y" in env.render_state(state, "initial-state")
    env.print_state(state, "some-action")
    assert "4x + 2x + 9y" in capsys.readouterr().out


def test_verbose_env_prints_steps(capsys: pytest.CaptureFixture[str]) -> None:
    env = FixedEnv(verbose=True)
    state, _ = env.get_initial_state()
    assert "4x + 2x" in capsys.readouterr().out
    env.get_next_state(state, only_action("4x + 2x", DistributiveFactorOutRule))
    assert "(4 + 2) * x" in capsys.readouterr().out
    env.get_initial_state(print_problem=False)
    assert capsys.readouterr().out == ""
    quiet = FixedEnv()
    state, _ = quiet.get_initial_state()
    quiet.get_next_state(state, only_action("4x + 2x", DistributiveFactorOutRule))
    assert capsys.readouterr().out == ""
