"""Derivation prompts state the rule of the grain, and at an int grain teach
each rule with a worked example that is one valid move of that rule."""

import re

import pytest

from mathy_envs import MathyEnv
from mathy_envs.envs import ENV_TASKS, PolySimplify
from mathy_envs.text import text_moves
from mathy_envs.text.prompts import WORKED_EXAMPLES, derivation_prompt, rule_examples


def _is_move_of(env: MathyEnv, rule: str, before: str, after: str) -> bool:
    moves = text_moves(env, env.state_from_text(before), describe=False)
    return any(move.rule == rule and move.result == after for move in moves)


def test_every_worked_example_is_one_move_of_its_rule() -> None:
    env = PolySimplify()
    assert set(WORKED_EXAMPLES) == {rule.name for rule in env.rules}
    for rule, (before, after) in WORKED_EXAMPLES.items():
        assert _is_move_of(env, rule, before, after), (rule, before, after)


@pytest.mark.parametrize("task", list(ENV_TASKS))
def test_a_one_rewrite_prompt_teaches_every_rule_with_a_move(task: str) -> None:
    env = ENV_TASKS[task]()
    state, _ = env.get_initial_state(seed=1, print_problem=False)
    problem = state.agent.problem
    prompt = derivation_prompt(env, problem, state.max_moves, steps_per_line=1)
    examples = rule_examples(env, problem)
    assert len(examples) == len(env.rules) and all(line in prompt for line in examples)
    own = 0
    for rule, line in zip(env.rules, examples):
        match = re.fullmatch(rf"  {re.escape(rule.name)}: (.+) -> (.+)", line)
        assert match, line
        assert _is_move_of(env, rule.name, match.group(1), match.group(2)), line
        own += match.group(1) == problem
    assert own >= 1  # the problem's own moves where it has them
    assert "exactly one rewrite" in prompt and f"at most {state.max_moves} rewrites" in prompt


def test_each_grain_states_its_rule() -> None:
    env = PolySimplify()
    assert "at most 3 rewrites" in derivation_prompt(env, "4x + 2y + 3x", 12, steps_per_line=3)
    loose = derivation_prompt(env, "4x + 2y + 3x", 12, steps_per_line=None)
    assert "any number of rewrites" in loose and "->" not in loose
    assert "<answer>" in loose
