"""Whole derivations, checked one step at a time: the swarm's solutions score
1.0; each kind of bad step is found, numbered and explained."""

import functools
from typing import List, Sequence, Tuple

import pytest
from helpers import HOSTILE_REPLIES, time_limit

from mathy_envs.envs import ENV_TASKS, PolySimplify
from mathy_envs.expert import without_loops
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs.text import derivation_reward, score_derivation
from mathy_envs.text.derivations import MAX_DERIVATION_LINES
from mathy_envs.text.grpo import grpo_reward, grpo_rows

ENV = PolySimplify()
PROBLEM = "4x + 2y + 3x"
SOLUTION = "2y + 4x + 3x\n2y + (4 + 3) * x\n2y + 7x"


@pytest.mark.parametrize("task", list(ENV_TASKS))
def test_the_swarms_solutions_score_one(task: str) -> None:
    env = ENV_TASKS[task]()
    scored = 0
    for seed in range(4):
        state, _ = env.get_initial_state(seed=seed, print_problem=False)
        planned = swarm_solve(state, SwarmConfig(seed=seed), env)
        if not planned.solved:
            continue
        lines = [state.agent.problem]
        for action in without_loops(env, state, planned.actions):
            state, _, _ = env.get_next_state(state, action)
            lines.append(state.agent.problem)
        score = score_derivation(env, lines[0], "\n".join(lines), state.max_moves)
        assert score.reached_goal and score.first_bad_step is None, score
        assert score.reward == 1.0 and score.final == lines[-1]
        # Labelled steps and the problem left out read the same.
        labelled = "\n".join(f"Step {i}: {line}" for i, line in enumerate(lines[1:], 1))
        assert score_derivation(env, lines[0], labelled).reward == 1.0
        scored += 1
    assert scored >= 3


def test_after_the_goal_a_line_may_only_restate_it() -> None:
    score = score_derivation(ENV, PROBLEM, f"{PROBLEM}\n{SOLUTION}\n\nFinal answer: 2y + 7x")
    assert (score.steps, score.verified, score.reached_goal, score.first_bad_step) == (3, 3, True, None)
    assert score.fraction == 1.0 and score.reward == 1.0
    junk = score_derivation(ENV, PROBLEM, f"{SOLUTION}\nso the answer is 7")
    assert junk.first_bad_step == 4 and junk.reward == 0.0 and "may only restate it" in junk.reason
    # A problem already in goal form: an empty derivation or a restatement, not junk.
    assert score_derivation(ENV, "x + 2y", "").reward == 1.0
    assert score_derivation(ENV, "x + 2y", "x + 2y").reward == 1.0
    assert score_derivation(ENV, "x + 2y", "lol no idea 42").reward == 0.0
    # Words alone are commentary: as an empty derivation.
    assert score_derivation(ENV, "x + 2y", "lol no idea").reward == 1.0


def test_a_decimal_is_not_a_step_label() -> None:
    # "3.2y" is 3.2 times y, not step 3 then "2y": wrong values, not a solution.
    wrong = "3.2y + 4x + 3x\n1.2y + (4 + 3) * x\n9.2y + 7x"
    assert score_derivation(ENV, PROBLEM, wrong).reward == 0.0
    assert score_derivation(ENV, PROBLEM, SOLUTION.replace("2y + 7x", "0.2y + 7x")).reward == 0.0
    decimals = score_derivation(ENV, "2y + 1.5x + 2.5x", "1.5x + 2y + 2.5x")
    assert decimals.verified == 1 and decimals.first_bad_step is None
    labelled = "1. 2y + 4x + 3x\n2) 2y + (4 + 3) * x\nStep 3: 2y + 7x"
    assert score_derivation(ENV, PROBLEM, labelled).reward == 1.0


def test_a_line_that_only_prints_like_a_move_is_not_that_move() -> None:
    # mathy_core prints (6y)^2 as 6y^2: the same text, another value.
    problem = "12y^2 + 6y^2 + x"
    assert score_derivation(ENV, problem, "(12 + 6) * y^2 + x\n(18y)^2 + x").reward == 0.0
    assert score_derivation(ENV, problem, "(12 + 6) * y^2 + x\n18y^2 + x").reward == 1.0


@pytest.mark.parametrize(
    "completion,bad,verified,reason",
    [
        ("2y + 4x + 3x\n2y + 7x", 2, 1, "no single valid move gives it"),
        ("2y + 4x + 3x\n2y + 8x", 2, 1, "does not have the value"),
        ("2y + 4x + 3x\nwhat is 2 + 2", 2, 1, "reads as words"),
        ("2y + 7x", 1, 0, "no single valid move gives it"),
    ],
)
def test_the_first_bad_step_is_found(completion: str, bad: int, verified: int, reason: str) -> None:
    score = score_derivation(ENV, PROBLEM, completion)
    assert score.first_bad_step == bad and score.verified == verified
    assert not score.reached_goal and reason in score.reason and f"step {bad}" in score.reason
    assert score.fraction == pytest.approx(verified / bad) and score.reward == 0.0


def test_swapping_back_and_forth_loses_on_the_fourth_visit() -> None:
    swaps = "\n".join(["2y + 4x + 3x", PROBLEM] * 4)
    score = score_derivation(ENV, PROBLEM, swaps)
    assert score.first_bad_step == 6 and score.verified == 5
    assert "the episode is lost here" in score.reason and "after 3 others" in score.reason


def test_a_derivation_past_the_move_budget_is_lost() -> None:
    score = score_derivation(ENV, PROBLEM, SOLUTION, max_moves=2)
    assert score.first_bad_step == 2 and "no move is left" in score.reason


def test_completions_that_are_not_derivations_score_zero() -> None:
    for completion in ("", "\n\n", None, 42, "x" * 200_000):
        score = score_derivation(ENV, PROBLEM, completion)
        assert score.reward == 0.0 and not score.reached_goal
    long = "\n".join(["2y + 4x + 3x", PROBLEM] * (MAX_DERIVATION_LINES))
    padded = score_derivation(ENV, PROBLEM, long, max_moves=10_000)
    assert padded.reward == 0.0 and padded.first_bad_step == 6  # the fourth visit


def test_a_solved_problem_needs_no_step() -> None:
    assert score_derivation(ENV, "2y + 7x", "").reward == 1.0
    assert score_derivation(ENV, "2y + 7x", "2y + 7x").reward == 1.0


def test_derivation_reward_is_the_scores_reward() -> None:
    score = derivation_reward(ENV)
    assert score(PROBLEM, SOLUTION) == 1.0
    assert score(PROBLEM, "2y + 4x + 3x") == 0.0  # unfinished
    assert score("not a problem ((", SOLUTION) == 0.0
    with pytest.raises(ValueError, match="problem must be a text"):
        score_derivation(ENV, 3, SOLUTION)  # type: ignore[arg-type]


def test_the_grpo_reward_scores_a_batch_as_trl_passes_it() -> None:
    rows = grpo_rows(ENV, 3, seed=0)
    assert [set(row) for row in rows] == [{"prompt", "problem", "max_moves"}] * 3
    assert rows == grpo_rows(ENV, 3, seed=0) and rows[0]["problem"] in rows[0]["prompt"]
    reward = grpo_reward(ENV)
    completions = [SOLUTION, [{"role": "assistant", "content": SOLUTION}], "2y + 7x", 17]
    scores = reward(
        prompts=["p"] * 4,
        completions=completions,
        problem=[PROBLEM] * 4,
        max_moves=[20] * 4,
        completion_ids=[[1]] * 4,
        trainer_state=None,
    )
    # The default grain (None) takes the goal written at once; one rewrite per
    # line (1) does not.
    assert scores == [1.0, 1.0, 1.0, 0.0]
    one_move = grpo_reward(ENV, steps_per_line=1)
    assert one_move(completions=completions, problem=[PROBLEM] * 4) == [1.0, 1.0, 0.0, 0.0]
    assert "exactly one rewrite" in grpo_rows(ENV, 1, seed=0, steps_per_line=1)[0]["prompt"]
    assert "any number of rewrites" in rows[0]["prompt"]
    with pytest.raises(ValueError, match="steps_per_line must be"):
        grpo_reward(ENV, steps_per_line=0)
    assert reward(completions=[SOLUTION], problem=[PROBLEM]) == [1.0]
    assert reward(completions=[SOLUTION], problem=[PROBLEM], max_moves=[[3]]) == [0.0]
    with pytest.raises(ValueError, match="as long as each other"):
        reward(completions=[SOLUTION, SOLUTION], problem=[PROBLEM])


@pytest.mark.parametrize("name", list(HOSTILE_REPLIES))
def test_a_hostile_completion_is_scored_in_linear_time(name: str) -> None:
    completion = HOSTILE_REPLIES[name]
    batch = grpo_reward(ENV)
    with time_limit(5.0):  # linear: milliseconds; quadratic: minutes
        score = score_derivation(ENV, PROBLEM, completion)
        reward = derivation_reward(ENV)(PROBLEM, completion)
        rewards = batch(completions=[[{"role": "assistant", "content": completion}]], problem=[PROBLEM])
    assert score.reward == reward == rewards[0] == 0.0
    assert score.reason  # a bad step's, or why the derivation falls short


def test_restating_the_goal_counts_against_the_line_limit() -> None:
    solved = f"{SOLUTION}\n" + "2y + 7x\n" * (MAX_DERIVATION_LINES - 3)
    assert score_derivation(ENV, PROBLEM, solved).reward == 1.0
    endless = solved + "2y + 7x\n" * 10_000
    score = score_derivation(ENV, PROBLEM, endless)
    assert score.reward == 0.0 and score.first_bad_step == MAX_DERIVATION_LINES + 1
    assert "more than" in score.reason


@functools.lru_cache(maxsize=None)
def _solutions(task: str) -> Tuple[Tuple[str, ...], ...]:
    """The swarm's solutions (every expression, loops left out) of the first
    problems of `task`."""
    env = ENV_TASKS[task]()
    solutions = []
    for seed in range(3):
        state, _ = env.get_initial_state(seed=seed, print_problem=False)
        planned = swarm_solve(state, SwarmConfig(seed=seed), env)
        if not planned.solved:
            continue
        lines = [state.agent.problem]
        for action in without_loops(env, state, planned.actions):
            state, _, _ = env.get_next_state(state, action)
            lines.append(state.agent.problem)
        solutions.append(tuple(lines))
    return tuple(solutions)


def _grouped(lines: Sequence[str], k: int) -> List[str]:
    """`lines` with every `k`-th kept (the first and last always), so that each
    kept line is at most `k` moves from the one before."""
    picks = sorted(set(range(0, len(lines), k)) | {len(lines) - 1})
    return [lines[i] for i in picks]


@pytest.mark.parametrize("task", list(ENV_TASKS))
def test_valid_moves_grouped_k_to_a_line_score_one_at_grain_k_and_none(task: str) -> None:
    env = ENV_TASKS[task]()
    assert _solutions(task)
    for lines in _solutions(task):
        for k in (1, 2, 3):
            grouped = _grouped(lines, k)
            score = score_derivation(env, lines[0], "\n".join(grouped), steps_per_line=k)
            assert score.reward == 1.0, (k, grouped, score.reason)
            assert all(line.ok and line.moves is not None and line.moves <= k for line in score.lines)
            assert sum(line.moves or 0 for line in score.lines) == len(lines) - 1 or k > 1
            if k > 1:
                assert score_derivation(env, lines[0], "\n".join(grouped), steps_per_line=1).reward == (
                    1.0 if len(grouped) == len(lines) else 0.0
                )
            if not env.free_derivations:
                # The goal is about the problem's own terms: no free rewrites.
                with pytest.raises(ValueError, match="does not take free derivations"):
                    score_derivation(env, lines[0], "\n".join(grouped), steps_per_line=None)
                continue
            loose = score_derivation(env, lines[0], "\n".join(grouped), steps_per_line=None)
            assert loose.reward == 1.0, (k, grouped, loose.reason)
            assert loose.step_rewards == (1.0,) * len(loose.lines)


def _slipped(line: str) -> str:
    """`line` with a slip: its first number one more (or `+ 1` added)."""
    for index, char in enumerate(line):
        if char.isdigit():
            return line[:index] + str((int(char) + 1) % 10) + line[index + 1 :]
    return line + " + 1"


@pytest.mark.parametrize("task", list(ENV_TASKS))
def test_a_value_slip_is_found_at_its_own_line_at_every_grain(task: str) -> None:
    env = ENV_TASKS[task]()
    checked = 0
    for lines in _solutions(task):
        for grain in (1, 2, None) if env.free_derivations else (1, 2):
            grouped = _grouped(lines, grain or 2)
            for at in range(1, len(grouped)):
                slip = _slipped(grouped[at])
                if env.has_same_value(grouped[at], slip):
                    slip = grouped[at] + " + 1"
                written = [*grouped[:at], slip, *grouped[at + 1 :]]
                score = score_derivation(env, lines[0], "\n".join(written[1:]), steps_per_line=grain)
                assert score.first_bad_step == at and score.reward == 0.0, (grain, written, score)
                assert "does not have the value" in score.reason, score.reason
                verdict = score.lines[at - 1]
                assert (verdict.ok, verdict.kept_value) == (False, False)
                assert all(line.ok for line in score.lines[: at - 1])
                checked += 1
    assert checked >= 6


def test_each_line_gets_a_verdict_for_process_rewards() -> None:
    # A correct line, a slip, then a line correct from the slip's value.
    completion = "<answer>\n2y + 4x + 3x\n2y + 8x\n8x + 2y\n</answer>"
    score = score_derivation(ENV, PROBLEM, completion, steps_per_line=None)
    assert [line.text for line in score.lines] == ["2y + 4x + 3x", "2y + 8x", "8x + 2y"]
    assert [line.kept_value for line in score.lines] == [True, False, True]
    assert score.step_rewards == (1.0, 0.0, 1.0)
    assert (score.first_bad_step, score.verified, score.reward) == (2, 1, 0.0)
    one = score_derivation(ENV, PROBLEM, "2y + 4x + 3x\n2y + (4 + 3) * x\n2y + 7x", steps_per_line=1)
    assert [line.moves for line in one.lines] == [1, 1, 1] and one.lines[-1].reached_goal


@pytest.mark.parametrize(
    "completion",
    [
        "Combine the x terms.\n<answer>\n4x + 2y + 3x = 2y + 4x + 3x = 2y + 7x\n</answer>",
        "Thinking...\n```text\n2y + 4x + 3x\n2y + 7x\n```\nDone.",
        "I will combine like terms.\n\n**Solution:**\n$2y + 4x + 3x$\n$$2y + 7x$$",
        "Derivation: 2y + 4x + 3x\nStep 2: Combine like terms: 2y + 7x",
        "\\begin{align}\n4x + 2y + 3x &= 2y + 4x + 3x \\\\\n&= 2y + 7x\n\\end{align}",
        "<answer>\n2y + (4 + 3)x\nAnswer: \\boxed{2y + 7x}\n</answer>",
    ],
)
def test_completions_are_read_as_models_write_them(completion: str) -> None:
    score = score_derivation(ENV, PROBLEM, completion, steps_per_line=None)
    assert score.reward == 1.0, score
    assert score_derivation(ENV, PROBLEM, completion.replace("7x", "8x"), steps_per_line=None).reward == 0.0


def test_the_grain_is_checked() -> None:
    for bad in (0, 5, True, 1.0, "1"):
        with pytest.raises(ValueError, match="steps_per_line must be None or an int"):
            score_derivation(ENV, PROBLEM, SOLUTION, steps_per_line=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="steps_per_line must be None or an int"):
        derivation_reward(ENV, steps_per_line=-1)


@pytest.mark.parametrize(
    "task,problem,completion",
    [
        ("complex", "6a * o * 10o * a * 5o", "\\[ 6a \\cdot o \\cdot 10o \\cdot a \\cdot 5o \\]\n\\[ = 300a^2o^3 \\]"),
        ("complex", "6a * o * 10o * a * 5o", "\\boxed{6a \\cdot o \\cdot 10o \\cdot a \\cdot 5o = 300a^2o^3}"),
        ("poly", "12y + y + 9v", "We combine like terms\n13y + 9v"),
        ("poly", "12y + y + 9v", "13y + 9v\nAnswer: 9v + 13y"),
        ("poly", "9x + 2x", "* 9x + 2x\n* 11x"),
        ("poly", "9x + 2x", "**11x**"),
        ("poly", "9x + 2x", "9x + 2x → 11x"),
        ("poly", "9x + 2x", "(9 + 2)x (factor out x)\n11x # done"),
        ("binomial", "(5c + 10)(8c^3 + 4)", "40c^4 + 20c + 80c^3 + 40\n40c^4 + 80c^3 + 20c + 40"),
    ],
)
def test_markup_and_commentary_around_the_lines_are_read_past(task: str, problem: str, completion: str) -> None:
    env = ENV_TASKS[task]()
    score = score_derivation(env, problem, completion, steps_per_line=None)
    assert score.reward == 1.0, score
    # A slip in the last line is still found.
    at = completion.rfind("1")
    slipped = completion[:at] + "2" + completion[at + 1 :]
    assert score_derivation(env, problem, slipped, steps_per_line=None).reward == 0.0


@pytest.mark.parametrize(
    "problem,last,leftover",
    [
        ("3x * 3x * y", "(3x)^2y", "a power of a product"),
        ("6y * 6y", "(6y)^2", "a power of a product"),
        ("(x + 3)(x + 9)", "x^2 + 12x + 3^3", "a power of a number"),
        ("(x + 3)(x + 9)", "x^2 + 12x^1 + 27", "an exponent of 1"),
        ("a^2 * a^2 * 8a^2", "8a^6 + 0", "a term of 0"),
    ],
)
def test_a_last_line_with_work_left_is_no_goal_at_grain_none(problem: str, last: str, leftover: str) -> None:
    # mathy_core's own goal checks pass these forms, which the env's moves never
    # write; a line written freely must be in simplest terms to be the goal.
    env = ENV_TASKS["binomial" if "(x" in problem else "complex"]()
    score = score_derivation(env, problem, last, steps_per_line=None)
    assert score.reward == 0.0 and score.first_bad_step is None
    assert leftover in score.reason, score.reason
