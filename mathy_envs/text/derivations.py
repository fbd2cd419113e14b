"""Whole derivations: a model's full solution checked one step at a time.

A **derivation** is text with one expression per line: each line must be what
one valid move gives from the line before it, starting from the problem, until
the task's goal is reached. Lines are read as rewrite-mode answers
(`mathy_envs.text.replies`: the same prefixes and notations are accepted), and a
line may also start with a step label followed by a space (`1. `, `2) `,
`Step 3: `). Blank lines are skipped; a first line that restates the problem is
not a step. After the line that reaches the goal, a line may only restate the
goal (a final answer); anything else is a bad step.

`score_derivation(env, problem, completion)` returns a `DerivationScore`: the
steps written, how many were verified before the first bad one, whether the goal
was reached, and the first bad step with its reason. Its `reward` is the single
number a GRPO-style trainer needs: 1.0 for a derivation that reaches the goal
with every step verified, else 0.0. It gives no partial credit: valid steps that
make no progress (a swap and its undo) are easy to write, and a reward for them
would be earned by padding. `fraction` and `first_bad_step` are there for
shaping rewards of your own.
"""

import re
from typing import Callable, List, NamedTuple, Optional

from ..env import MathyEnv
from ..limits import quote, type_name
from ..state import MathyEnvState
from ..time_step import is_terminal_transition
from ..types import MAX_VISITS
from .._engine import visits_of
from .prompts import text_moves
from .replies import MAX_REPLY_CHARS, answer_line, normalize_notation, read_expression

MAX_DERIVATION_LINES = 256
"""Lines past this many are not read (the first one past it is the bad step),
restatements of the goal included."""

_LABEL = re.compile(r"^(?:step\s*\d{1,4}\s*[.):]?|\d{1,4}\s*[.):])\s+", re.IGNORECASE)
"""A step label: `Step 3:`, `Step 3`, `3.` or `2)`, always followed by a space
(`3.2y` is a decimal, not step 3)."""


class DerivationScore(NamedTuple):
    """The check of one derivation."""

    steps: int
    """Steps read: the lines after the problem, up to the goal or the first bad one."""
    verified: int
    """Steps that were each one valid move of the line before."""
    reached_goal: bool
    """The last verified step (or the problem itself) is the task's goal."""
    first_bad_step: Optional[int]
    """The number (from 1) of the first step that is not one valid move, or None."""
    reason: str
    """Why that step is bad ("" when none is)."""
    final: str
    """The last verified expression (the problem when none is)."""

    @property
    def fraction(self) -> float:
        """`verified / steps` (1.0 for no steps)."""
        return self.verified / self.steps if self.steps else 1.0

    @property
    def reward(self) -> float:
        """1.0 for a derivation that reaches the goal with no bad step, else 0.0."""
        return 1.0 if self.reached_goal and self.first_bad_step is None else 0.0


def derivation_lines(completion: str) -> List[str]:
    """The expressions of a derivation: its non-blank lines, each less a step
    label and read as an answer line."""
    lines: List[str] = []
    for line in completion.splitlines():
        text = _LABEL.sub("", line.strip())
        text = answer_line(text)
        if text:
            lines.append(text)
    return lines


def score_derivation(
    env: MathyEnv, problem: str, completion: object, max_moves: Optional[int] = None
) -> DerivationScore:
    """Check `completion` (a derivation) as a solution of `problem` in `env`,
    with `max_moves` moves (the env's budget when None). Never raises for the
    completion; `ValueError` for a `problem` the env does not take."""
    if not isinstance(env, MathyEnv):
        raise ValueError(f"env must be a MathyEnv, got {type_name(env)} {quote(env, 60)}")
    if not isinstance(problem, str):
        raise ValueError(f"problem must be a text, got {type_name(problem)} {quote(problem)}")
    state = env.state_from_text(problem, max_moves)
    start = env.get_state_transition(state)
    solved = is_terminal_transition(start) and start.reward > 0
    if not isinstance(completion, str):
        return DerivationScore(
            0, 0, solved, 1, f"a completion must be text, got {type_name(completion)}", problem
        )
    completion = str.__add__("", completion)  # a plain str, whatever a subclass overrides
    if len(completion) > MAX_REPLY_CHARS:
        reason = f"the completion has {len(completion):,} characters, more than {MAX_REPLY_CHARS:,}"
        return DerivationScore(1, 0, solved, 1, reason, problem)
    lines = derivation_lines(completion)
    if lines and _prints_as(env, lines[0], problem):
        lines = lines[1:]
    verified = 0
    for number, line in enumerate(lines, start=1):
        if number > MAX_DERIVATION_LINES:
            reason = f"the derivation has more than {MAX_DERIVATION_LINES} steps"
            return DerivationScore(number, verified, False, number, reason, state.agent.problem)
        if solved:
            # Past the goal, a line may only restate it (a final answer line).
            if _prints_as(env, line, state.agent.problem):
                continue
            reason = (
                f"step {number}: the goal {quote(state.agent.problem, 80)} was reached; "
                f"a line after it may only restate it, not {quote(line, 80)}"
            )
            return DerivationScore(number, verified, False, number, reason, state.agent.problem)
        verdict = read_expression(env, state, line, text_moves(env, state, describe=False))
        if verdict.move is None:
            reason = f"step {number}: {verdict.reason}"
            return DerivationScore(number, verified, False, number, reason, state.agent.problem)
        after, time_step, _ = env.get_next_state(state, verdict.move)
        if is_terminal_transition(time_step) and time_step.reward <= 0:
            reason = f"step {number}: the episode is lost here ({_loss_reason(env, after)})"
            return DerivationScore(number, verified, False, number, reason, state.agent.problem)
        state = after
        verified += 1
        solved = is_terminal_transition(time_step)
    return DerivationScore(verified, verified, solved, None, "", state.agent.problem)


def _loss_reason(env: MathyEnv, state: MathyEnvState) -> str:
    """Why the move into `state` lost the episode."""
    text = state.agent.problem
    if env.node_count(text) > env.max_seq_len:
        return f"the expression has more than max_seq_len={env.max_seq_len} nodes"
    if state.agent.moves_remaining <= 0:
        return f"no move is left of the {state.max_moves}"
    visits = visits_of(state.agent.history, text, env.parser)
    if visits > MAX_VISITS:
        return f"a visit of {quote(text, 80)} after {MAX_VISITS} others"
    return "the task's own rule ends it as a loss"


def _prints_as(env: MathyEnv, line: str, problem: str) -> bool:
    """Whether `line` restates `problem`: it reads as the same text and has the
    same value (mathy_core prints `(6y)^2` as `6y^2`)."""
    text = normalize_notation(line)
    try:
        return env.printed_text(text) == env.printed_text(problem) and env.has_same_value(
            problem, text
        )
    except (ValueError, RecursionError):
        return False


def derivation_reward(env: MathyEnv) -> Callable[[str, str], float]:
    """`score(problem, completion) -> float`: `score_derivation(...).reward`
    in `env` (a problem it does not take scores 0.0)."""

    def score(problem: str, completion: str) -> float:
        try:
            return score_derivation(env, problem, completion).reward
        except ValueError:
            return 0.0

    return score


__all__ = (
    "MAX_DERIVATION_LINES",
    "DerivationScore",
    "derivation_lines",
    "derivation_reward",
    "score_derivation",
)
