"""Whole derivations: a model's full solution checked one line at a time.

A **derivation** is text with one expression per line, from the problem to the
task's goal. How much one line may do is the **grain**, `steps_per_line`:

- `1`: each line is what one valid move gives from the line before it (the
  grain of mathy's own rules, and of `TextEpisode`);
- an int `k` (up to `MAX_STEPS_PER_LINE`): each line is what at most `k` valid
  moves give from the line before (a breadth-first search over the env's own
  moves, visiting at most `MAX_SEARCH_TEXTS` expressions per line and
  `MAX_DERIVATION_SEARCH` per derivation);
- `None`: any number of rewrites: each line has exactly the value of the line
  before (the env's exact value check), stays inside the env's limits
  (`max_seq_len` nodes), and the last line is the task's goal form, judged
  from its text and in simplest terms (`unsimplified_part`). Only for envs
  whose goal is a normal form of the expression (`free_derivations`: the
  simplify tasks): where the goal is about the problem's own terms (moving,
  grouping or acting on them), free rewrites could plant terms of their own,
  and None is a `ValueError`.

With `1` and `k`, the moves are taken with `get_next_state` (the env's move
budget and its rules on revisits apply). Lines are read in natural notation
(`mathy_envs.text.notation`), and a line is reached when it matches the
expression the moves give (`mathy_envs.text.matching`: the same but for the
grouping of products, with the same value).

What is read (`derivation_lines`): the completion's final block when it has one
(the last `<answer>...</answer>`, else the last fenced code block, else the lines
after the last `Derivation:` or `Solution:` heading), else the whole completion.
In it: one expression per line, or a chain on one line (`12z + z + z = 12z + 2z
= 14z`, also with `→`, `⇒` or `=>`: each side a line; in envs without
equations); a step label (`1. `, `2) `, `Step 3: `), a Markdown bullet, words
ending in a colon (`Combine like terms: `), an `Answer:` prefix, `$`,
`\\[ \\]`, `\\boxed{}`, Markdown bold, LaTeX's `&` and `\\\\` line
breaks, and a comment at the end (`# ...`, two or more words in parentheses)
are read past;
blank lines and lines of words with no number or operator (commentary) are
skipped. A line that restates the one before it (the problem, for the first) is
not a step. After the line that reaches the goal, a line may only restate the
goal (at grain None, also write it in another goal form). At grain None the
goal line must also be in simplest terms (`unsimplified_part`).

`score_derivation(env, problem, completion)` returns a `DerivationScore`: the
steps, how many were verified before the first bad one, whether the goal was
reached, the first bad step with its reason, and a verdict per line
(`LineVerdict`). Rewards from it:

- `reward`: 1.0 for a derivation that reaches the goal with every step verified,
  else 0.0 (all or nothing: valid steps that make no progress, a swap and its
  undo, are easy to write, and partial credit for them would be earned by
  padding);
- `fraction`: the verified share of the steps read up to the first bad one;
- `step_rewards`: 1.0 or 0.0 per line, for process (per-step) rewards. Lines
  after the first bad one are judged by value alone (kept the value of the line
  before, inside the limits), whatever the grain.
"""

import re
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple

from mathy_core import (
    AddExpression,
    ConstantExpression,
    DivideExpression,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)

from .._engine import parse, visits_of
from ..env import MathyEnv
from ..limits import quote, shorten, type_name
from ..state import MathyEnvState
from ..time_step import is_terminal_transition
from ..types import MAX_VISITS, ActionType
from .matching import chain_operands, same_expression
from .notation import read_math
from .prompts import text_moves
from .reach import MAX_SEARCH_TEXTS, MAX_STEPS_PER_LINE, SearchBudget, check_grain, moves_to
from .replies import (
    CHANGES_VALUE,
    MAX_REPLY_CHARS,
    NOT_ONE_MOVE,
    UNCHANGED,
    answer_line,
    normalize_notation,
    read_expression,
    reads_as_words,
)

MAX_DERIVATION_LINES = 256
"""Lines past this many are not read (the first one past it is the bad step),
restatements of the goal included."""
MAX_DETOURS = 4
"""With an int grain, the paths to a line that end the episode early (through a
goal or a loss) looked around at most, before the line is taken as the last."""
MAX_DERIVATION_SEARCH = 4 * MAX_SEARCH_TEXTS
"""With an int grain, the expressions the searches of all the lines of one
derivation visit at most (a correct line takes a few dozen)."""
_LABEL = re.compile(r"^(?:step\s*\d{1,4}\s*[.):]?|\d{1,4}\s*[.):])\s+", re.IGNORECASE)
"""A step label: `Step 3:`, `Step 3`, `3.` or `2)`, always followed by a space
(`3.2y` is a decimal, not step 3)."""
_HEADING = re.compile(r"^[#*_ ]{0,8}(?:derivation|solution)[*_ ]{0,8}:[*_ ]{0,8}", re.IGNORECASE)
"""A heading the derivation follows (`Derivation:`, `**Solution:**`, `## Solution:`);
text after it on its line is the first line."""
_ANSWER_OPEN, _ANSWER_CLOSE, _FENCE = "<answer>", "</answer>", "```"
_BULLET = re.compile(r"^[*•] ")
"""A Markdown bullet: a star or dot, then a space (a dash is read as a sign)."""
_ARROWS = ("=>", "⇒", "⟹", "→", "->")
"""Written between two sides of a chain, as `=` is."""
_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,20}$")
"""A fenced block's language tag (```text, ```math)."""


class LineVerdict(NamedTuple):
    """The check of one line of a derivation."""

    step: int
    """Its number, from 1."""
    text: str
    """The line as read from the completion."""
    expression: Optional[str]
    """The expression it was read as, in the env's notation (None when it is no
    expression the env reads)."""
    kept_value: Optional[bool]
    """Whether it has the value of the line before (None when it was not read)."""
    moves: Optional[int]
    """The valid moves it took, when known (grains `1` and `k`)."""
    reached_goal: bool
    """It is the task's goal."""
    ok: bool
    """It passes the check of the grain in use."""
    reason: str
    """Why it does not ("" when it does)."""


class DerivationScore(NamedTuple):
    """The check of one derivation."""

    steps: int
    """Steps read: the lines after the problem, up to the goal or the first bad one."""
    verified: int
    """Steps that passed the grain's check, before the first bad one."""
    reached_goal: bool
    """The last verified step (or the problem itself) is the task's goal."""
    first_bad_step: Optional[int]
    """The number (from 1) of the first step that fails the check, or None."""
    reason: str
    """Why that step is bad, or else why the derivation falls short of the goal
    ("" for a derivation that reaches it)."""
    final: str
    """The last verified expression (the problem when none is)."""
    lines: Tuple[LineVerdict, ...] = ()
    """A verdict per line read (restatements left out), past the first bad one too."""

    @property
    def fraction(self) -> float:
        """`verified / steps` (1.0 for no steps)."""
        return self.verified / self.steps if self.steps else 1.0

    @property
    def reward(self) -> float:
        """1.0 for a derivation that reaches the goal with no bad step, else 0.0."""
        return 1.0 if self.reached_goal and self.first_bad_step is None else 0.0

    @property
    def step_rewards(self) -> Tuple[float, ...]:
        """1.0 for each line that passes its check, 0.0 for each that does not."""
        return tuple(1.0 if line.ok else 0.0 for line in self.lines)


def derivation_lines(
    completion: str, equations: bool = False, limit: Optional[int] = None
) -> List[str]:
    """The expressions of a derivation, as written: the lines of its final block
    (or of the whole completion), each less a step label, a comment and answer
    markup, and `=` chains split into their sides unless `equations`; the first
    `limit` of them when `limit` is given."""
    lines: List[str] = []
    for line in _block(completion).splitlines():
        if limit is not None and len(lines) >= limit:
            return lines[:limit]
        if not line or line.isspace():
            continue
        for piece in line.split("\\\\"):  # LaTeX line breaks
            text = piece.strip()
            if not text or text.startswith(("\\begin{", "\\end{")) or text in ("$$", "\\[", "\\]"):
                continue
            text = _without_comment(_BULLET.sub("", _LABEL.sub("", text.replace("&", ""))))
            text = answer_line(text)
            if len(text) > 4 and text.startswith("**") and text.endswith("**"):
                text = text[2:-2].strip()  # Markdown bold (a power never opens a line)
            if not equations:
                for arrow in _ARROWS:
                    text = text.replace(arrow, "=")
            for side in [text] if equations else text.split("="):
                side = answer_line(side)
                if side and not _is_prose(side):
                    lines.append(side)
    return lines


def _is_prose(text: str) -> bool:
    """Words with no number or operator in them (`We combine like terms.`):
    commentary, not a step. A line of words and math (`the answer is 7`) is
    read, and refused."""
    return reads_as_words(text) and not any(char.isdigit() or char in "+-*/^=" for char in text)


def _without_comment(text: str) -> str:
    """`text` less a comment at its end: `# ...` after a space, or words in
    parentheses (`(like terms)`)."""
    hash_at = text.find(" #")
    if hash_at >= 0:
        text = text[:hash_at].rstrip()
    if text.endswith(")"):
        opening = text.rfind("(")
        inside = text[opening:]
        # Words (more than one, so that `9v(xyz)` stays a product), no math.
        if opening > 0 and " " in inside.strip("() ") and reads_as_words(inside) and not any(
            char.isdigit() or char in "+-*/^=" for char in inside
        ):
            text = text[:opening].rstrip()
    return text


def _block(completion: str) -> str:
    """The part of `completion` the derivation is read from."""
    lowered = completion.lower()
    start = lowered.rfind(_ANSWER_OPEN)
    if start >= 0:
        start += len(_ANSWER_OPEN)
        end = lowered.find(_ANSWER_CLOSE, start)
        return completion[start : end if end >= 0 else len(completion)]
    pieces = completion.split(_FENCE)
    if len(pieces) >= 3:
        # The last closed block: pieces alternate outside, inside, outside...
        block = pieces[len(pieces) - 2 if len(pieces) % 2 == 1 else len(pieces) - 3]
        first, _, rest = block.partition("\n")
        return rest if _WORD.match(first.strip()) else block
    if "derivation" not in lowered and "solution" not in lowered:
        return completion
    lines = completion.splitlines()
    for index in range(len(lines) - 1, -1, -1):
        heading = _HEADING.match(lines[index])
        if heading is not None:
            return "\n".join([lines[index][heading.end() :], *lines[index + 1 :]])
    return completion


def score_derivation(
    env: MathyEnv,
    problem: str,
    completion: object,
    max_moves: Optional[int] = None,
    steps_per_line: Optional[int] = 1,
) -> DerivationScore:
    """Check `completion` (a derivation) as a solution of `problem` in `env`,
    with `max_moves` moves (the env's budget when None) at the grain
    `steps_per_line` (1, an int up to `MAX_STEPS_PER_LINE`, or None for any
    number of rewrites). Never raises for the completion; `ValueError` for a
    `problem` the env does not take or a grain out of range."""
    if not isinstance(env, MathyEnv):
        raise ValueError(f"env must be a MathyEnv, got {type_name(env)} {quote(env, 60)}")
    if not isinstance(problem, str):
        raise ValueError(f"problem must be a text, got {type_name(problem)} {quote(problem)}")
    check_grain(steps_per_line, env)
    state = env.state_from_text(problem, max_moves)
    start = env.get_state_transition(state)
    solved = is_terminal_transition(start) and start.reward > 0
    if not isinstance(completion, str):
        reason = f"a completion must be text, got {type_name(completion)}"
        return DerivationScore(0, 0, solved, 1, reason, problem)
    completion = str.__add__("", completion)  # a plain str, whatever a subclass overrides
    if len(completion) > MAX_REPLY_CHARS:
        reason = f"the completion has {len(completion):,} characters, more than {MAX_REPLY_CHARS:,}"
        return DerivationScore(1, 0, solved, 1, reason, problem)
    # The problem restated, the lines read, and the one past them.
    lines = derivation_lines(completion, env.supports_equations, MAX_DERIVATION_LINES + 2)
    return _Scoring(env, state, solved, steps_per_line).score(lines)


class _Scoring:
    """One derivation's check, line by line."""

    def __init__(
        self, env: MathyEnv, state: MathyEnvState, solved: bool, steps_per_line: Optional[int]
    ) -> None:
        self.env = env
        self.state = state
        self.solved = solved
        self.grain = steps_per_line
        self.verdicts: List[LineVerdict] = []
        self.readings: Dict[str, Optional[str]] = {}
        self.budget = SearchBudget(MAX_DERIVATION_SEARCH)
        self.short_of_goal = ""
        """Why the last line that kept the value is not taken as the goal."""

    def score(self, lines: Sequence[str]) -> DerivationScore:
        env = self.env
        previous = self.state.agent.problem
        verified = 0
        bad: Optional[Tuple[int, str]] = None
        if lines and _restates(env, previous, self.read(lines[0])):
            lines = lines[1:]  # the problem, restated: not a step
        for step, line in enumerate(lines, start=1):
            expression = self.read(line) if step <= MAX_DERIVATION_LINES else None
            if expression is not None and _restates(env, previous, expression):
                # A restatement of the line before (a chain's side, the goal as
                # a final answer): no move, and no step to check.
                self.verdicts.append(
                    LineVerdict(step, line, expression, True, 0, self.solved, True, "")
                )
                continue
            if step > MAX_DERIVATION_LINES:
                reason = f"the derivation has more than {MAX_DERIVATION_LINES} steps"
                self.verdicts.append(LineVerdict(step, line, expression, None, None, False, False, reason))
                if bad is None:
                    bad = (step, reason)
                break
            if bad is None:
                verdict = self.judge(step, line, expression)
            else:
                verdict = self.judge_value(step, line, expression, previous)
            self.verdicts.append(verdict)
            if bad is None and verdict.ok:
                verified += 1
                previous = self.state.agent.problem
                continue
            if bad is None:
                bad = (step, f"step {step}: {verdict.reason}")
            if expression is not None:
                previous = expression
        final = self.state.agent.problem
        if bad is not None:
            return DerivationScore(bad[0], verified, False, bad[0], bad[1], final, tuple(self.verdicts))
        short = ""
        if not self.solved:
            short = "the derivation ends before the task's goal form"
            if self.short_of_goal:
                short += f": {self.short_of_goal}"
        return DerivationScore(verified, verified, self.solved, None, short, final, tuple(self.verdicts))

    def read(self, line: str) -> Optional[str]:
        """`line` in the env's notation, or None when it is no expression the env
        reads (each distinct line read once)."""
        if line in self.readings:
            return self.readings[line]
        expression = self.readings[line] = self.read_once(line)
        return expression

    def read_once(self, line: str) -> Optional[str]:
        env = self.env
        if reads_as_words(line):
            return None  # prose, not one-letter variables side by side
        try:
            expression = read_math(normalize_notation(line), env.supports_equations, env.parser)
            printed = env.printed_text(expression)
        except (ValueError, RecursionError):
            return None
        # As the env prints it, where that reads back as the same expression
        # (mathy_core prints a few trees ambiguously).
        return printed if same_expression(env, expression, printed) else expression

    def judge(self, step: int, line: str, expression: Optional[str]) -> LineVerdict:
        """The verdict on a line while every line before it passed."""
        env, state = self.env, self.state
        if self.solved:
            if self.grain is None and expression is not None:
                # Any number of rewrites: the goal may be written again in
                # another goal form (`13y + 9v`, then `9v + 13y`).
                again = self.judge_rewrite(step, line, expression)
                if again.ok and not again.reached_goal:
                    reason = (
                        f"the goal {quote(state.agent.problem, 80)} was reached; a line "
                        f"after it must stay in the goal form, not {quote(line, 80)}"
                    )
                    return again._replace(ok=False, reason=reason)
                return again
            reason = (
                f"the goal {quote(state.agent.problem, 80)} was reached; a line after it "
                f"may only restate it, not {quote(line, 80)}"
            )
            return LineVerdict(step, line, expression, None, None, False, False, reason)
        if self.grain == 1:
            verdict = read_expression(env, state, line, text_moves(env, state, describe=False))
            if verdict.move is None:
                kept = {CHANGES_VALUE: False, NOT_ONE_MOVE: True, UNCHANGED: True}.get(verdict.kind)
                return LineVerdict(step, line, expression, kept, None, False, False, verdict.reason)
            return self.take(step, line, expression, [verdict.move])
        if expression is None:
            return self.unreadable(step, line)
        if self.grain is None:
            return self.judge_rewrite(step, line, expression)
        valued = self.judge_value(step, line, expression, state.agent.problem)
        if valued.kept_value is False:
            return valued  # a slip: no search
        avoid: Set[str] = set()
        while True:
            path = moves_to(env, state, expression, self.grain, avoid, self.budget)
            if isinstance(path, str):
                reason = f"{quote(line)}: {path} (steps_per_line={self.grain})"
                return LineVerdict(step, line, expression, True, None, False, False, reason)
            ended = self.ends_early(path)
            if ended is None or len(avoid) >= MAX_DETOURS:
                return self.take(step, line, expression, path)
            avoid.add(ended)  # the episode ends there: find a path around it

    def ends_early(self, path: Sequence[ActionType]) -> Optional[str]:
        """The text where taking `path` ends the episode before its last move,
        or None."""
        state = self.state
        for action in path[:-1]:
            state, time_step, _ = self.env.get_next_state(state, action)
            if is_terminal_transition(time_step):
                return state.agent.problem
        return None

    def take(
        self, step: int, line: str, expression: Optional[str], path: Sequence[ActionType]
    ) -> LineVerdict:
        """Take the moves of `path` (they give `line`)."""
        env = self.env
        state = self.state
        for number, action in enumerate(path, start=1):
            if self.solved:
                reason = f"the goal {quote(state.agent.problem, 80)} is reached before {quote(line, 80)}"
                return LineVerdict(step, line, expression, True, number - 1, False, False, reason)
            after, time_step, _ = env.get_next_state(state, action)
            if is_terminal_transition(time_step) and time_step.reward <= 0:
                reason = f"the episode is lost here ({_loss_reason(env, after)})"
                return LineVerdict(step, line, expression, True, number, False, False, reason)
            state = after
            self.solved = is_terminal_transition(time_step)
        self.state = state
        return LineVerdict(step, line, expression, True, len(path), self.solved, True, "")

    def judge_rewrite(self, step: int, line: str, expression: str) -> LineVerdict:
        """Grain None: the line keeps the value and fits; the goal by its text."""
        env = self.env
        current = self.state.agent.problem
        verdict = self.judge_value(step, line, expression, current)
        if not verdict.ok:
            return verdict
        state = env.state_from_text(expression, self.state.max_moves)
        transition = env.get_state_transition(state)
        self.solved = is_terminal_transition(transition) and transition.reward > 0
        if self.solved:
            leftover = unsimplified_part(parse(expression, env.parser).tree)
            if leftover:
                # The env's goal check passes it, but a careful reader would not.
                self.solved = False
                self.short_of_goal = f"{quote(line, 80)} still has {leftover} to work out"
        self.state = state
        return verdict._replace(reached_goal=self.solved)

    def judge_value(self, step: int, line: str, expression: Optional[str], before: str) -> LineVerdict:
        """Whether the line keeps the value of `before` and fits the env."""
        env = self.env
        if expression is None:
            return self.unreadable(step, line)
        if not env.has_same_value(before, expression):
            reason = f"{quote(line)} does not have the value of {quote(before, 80)}"
            return LineVerdict(step, line, expression, False, None, False, False, reason)
        nodes = env.node_count(expression)
        if nodes > env.max_seq_len:
            reason = (
                f"{quote(line, 80)} has {nodes} nodes, more than the env's "
                f"max_seq_len={env.max_seq_len}"
            )
            return LineVerdict(step, line, expression, True, None, False, False, reason)
        return LineVerdict(step, line, expression, True, None, False, True, "")

    def unreadable(self, step: int, line: str) -> LineVerdict:
        if reads_as_words(line):
            reason = f"{quote(line)} reads as words, not an expression"
            return LineVerdict(step, line, None, None, None, False, False, reason)
        try:
            read_math(normalize_notation(line), self.env.supports_equations, self.env.parser)
            reason = f"{quote(line)} is outside the env's range"
        except (ValueError, RecursionError) as error:
            reason = f"not an expression the env reads: {shorten(str(error), 240)}"
        return LineVerdict(step, line, None, None, None, False, False, reason)


def unsimplified_part(tree: MathExpression) -> str:
    """What in `tree` is left to work out for an expression to be in simplest
    terms, whatever the env's own goal check says ("" for nothing): a power of a
    number or of a product (`3^3`, `(6y)^2`), an exponent of 0 or 1, a term of
    0, a factor of 0 or 1, a product of two numbers, a negation of anything but
    a variable or its power (`-(-13y)`), a negation inside a product, the
    subtraction of a negative (`13y - -9v`), a quotient, a whole number written
    as a decimal (`9.0`). Only `steps_per_line=None` needs it: the env's own
    moves never write these forms in a goal."""
    pending = [tree]
    while pending:
        node = pending.pop()
        left = getattr(node, "left", None)
        right = getattr(node, "right", None)
        if isinstance(node, ConstantExpression):
            if isinstance(node.value, float) and node.value.is_integer():
                return "a whole number written as a decimal"
        elif isinstance(node, PowerExpression):
            if not isinstance(left, VariableExpression):
                return f"a power of {'a number' if isinstance(left, ConstantExpression) else 'a product or sum'}"
            if isinstance(right, ConstantExpression) and right.value in (0, 1):
                return f"an exponent of {right.value}"
        elif isinstance(node, NegateExpression):
            child = node.get_child()
            if not (
                isinstance(child, VariableExpression)
                or (isinstance(child, PowerExpression) and isinstance(child.left, VariableExpression))
            ):
                return "a negation of a product, sum or number"
        elif isinstance(node, (AddExpression, SubtractExpression)):
            if any(isinstance(side, ConstantExpression) and side.value == 0 for side in (left, right)):
                return "a term of 0"
            if isinstance(node, SubtractExpression) and _negative(right):
                return "the subtraction of a negative"
        elif isinstance(node, MultiplyExpression):
            factors = chain_operands(node, MultiplyExpression)
            numbers = [f for f in factors if isinstance(f, ConstantExpression)]
            if any(f.value in (0, 1) for f in numbers):
                return f"a factor of {'0' if any(f.value == 0 for f in numbers) else '1'}"
            if len(numbers) > 1:
                return "a product of numbers"
            if any(isinstance(f, NegateExpression) or (_negative(f) and f is not factors[0]) for f in factors):
                return "a negation inside a product"
            pending.extend(factors)
            continue
        elif isinstance(node, DivideExpression):
            return "a quotient"
        pending.extend(child for child in (left, right) if isinstance(child, MathExpression))
    return ""


def _negative(node: object) -> bool:
    """A negative number, a negation, or a product led by a negative number."""
    if isinstance(node, ConstantExpression):
        return node.value is not None and bool(node.value < 0)
    if isinstance(node, NegateExpression):
        return True
    if isinstance(node, MultiplyExpression):
        return _negative(chain_operands(node, MultiplyExpression)[0])
    return False


def _restates(env: MathyEnv, before: str, expression: Optional[str]) -> bool:
    """Whether `expression` restates `before`: it prints the same and has the
    same value (mathy_core prints `(6y)^2` as `6y^2`)."""
    if expression is None:
        return False
    try:
        return env.printed_text(expression) == env.printed_text(before) and env.has_same_value(
            before, expression
        )
    except (ValueError, RecursionError):
        return False


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


def derivation_reward(
    env: MathyEnv, steps_per_line: Optional[int] = 1
) -> Callable[[str, str], float]:
    """`score(problem, completion) -> float`: `score_derivation(...).reward`
    in `env` at the grain `steps_per_line` (a problem it does not take scores
    0.0). `ValueError` for a grain out of range."""
    check_grain(steps_per_line, env)

    def score(problem: str, completion: str) -> float:
        try:
            return score_derivation(env, problem, completion, steps_per_line=steps_per_line).reward
        except ValueError:
            return 0.0

    return score


__all__ = (
    "MAX_DERIVATION_LINES",
    "MAX_SEARCH_TEXTS",
    "MAX_STEPS_PER_LINE",
    "DerivationScore",
    "LineVerdict",
    "check_grain",
    "derivation_lines",
    "derivation_reward",
    "score_derivation",
    "unsimplified_part",
)
