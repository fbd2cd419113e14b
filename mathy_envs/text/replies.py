"""Replies: what a language model's reply to a prompt means, as a `Verdict`.

A reply is read from its **answer line**: the last line with text on it, less an
`Answer:` (or `Final answer:`) prefix or any words before a colon (`So we
get: `), a leading `=`, `->` or `→`, surrounding backticks or `$`, and a
trailing period. Anything before it (reasoning) is
ignored. Two modes (`mathy_envs.text.prompts`):

- **choose**: the answer names a move: its number in the prompt (`3`, `#3`,
  `move 3`) or its rule and node (`Commutative Swap at node 3`, `commutative
  swap at 3`; the rule name is matched without case);
- **rewrite**: the answer is the next expression, in natural notation
  (`mathy_envs.text.notation`: `4x`, `(10 + 5)z^2`, `x(x + 9)`, `**`, `·`,
  `\\cdot`, LaTeX's `\\frac` and `^{2}`), read with the standard precedence.
  An answer with three letters in a row, or letters and numbers side by side
  with only a space between them, is prose, not an expression. It is accepted
  when it is the result of one valid move as the prompt wrote it, but for
  spacing (that move is taken), or else when it matches the result of one valid
  move (`mathy_envs.text.matching`: the same expression but for the grouping of
  products and redundant parentheses, with the same value; the first
  such move in prompt order is taken).

Every reply gets a verdict, never an exception: `accepted`, or the reason it was
refused (`VERDICT_KINDS`).
"""

import re
from typing import NamedTuple, Optional, Sequence, Tuple

from ..env import MathyEnv
from ..limits import quote, shorten
from ..state import MathyEnvState
from .matching import first_match, same_expression
from .notation import read_math
from .prompts import CHOOSE, MODES, REWRITE, TextMove, text_moves

MAX_REPLY_CHARS = 100_000
"""Longer replies are refused (`too_long`) without being read."""
MAX_ANSWER_CHARS = 2_000
"""Longer answer lines are refused (`too_long`)."""

ACCEPTED = "accepted"
"""The reply names (choose) or writes (rewrite) one valid move, now taken."""
MALFORMED = "malformed"
"""No answer line, or one that is neither a move nor an expression the env reads."""
TOO_LONG = "too_long"
"""The reply or its answer line is longer than the limits."""
UNKNOWN_MOVE = "unknown_move"
"""choose: a move number out of range, or a rule and node that is no valid move."""
UNCHANGED = "unchanged"
"""rewrite: the expression as it already is (no move made)."""
NOT_ONE_MOVE = "not_one_move"
"""rewrite: an expression of the same value that no single valid move gives
(it skips steps, say)."""
CHANGES_VALUE = "changes_value"
"""rewrite: an expression whose value differs from the current one."""
VERDICT_KINDS = (ACCEPTED, MALFORMED, TOO_LONG, UNKNOWN_MOVE, UNCHANGED, NOT_ONE_MOVE, CHANGES_VALUE)

_PREFIX = re.compile(
    r"^\**\s*(?:final\s+answer|answer|next)[\s*]*[:=][\s*]*|^(?:=|->|→)\s*",
    re.IGNORECASE,
)
"""An answer prefix (`Answer:`, `**Final answer** =`, `->`). Every pattern here
is written so that no two quantifiers can share a run of characters (no
`\\s*\\**\\s*`): a match or a failure costs time linear in the text, whatever
a reply holds (an ambiguous pattern backtracks quadratically on a long run of
spaces)."""
_COMMENT = re.compile(r"^[A-Za-z][A-Za-z ,'-]{2,80}:\s*")
"""Words before a colon, ahead of the answer: `So the next expression is: `."""
_WRAPPED = re.compile(r"^(?:\\boxed\{(?P<boxed>.*)\}|\\\((?P<inline>.*)\\\)|\\\[(?P<display>.*)\\\])$")
_NUMBER = re.compile(r"^(?:move\s*)?(?:#\s*)?(\d{1,6})\s*[.)]?$", re.IGNORECASE)
_RULE_AT = re.compile(r"^([A-Za-z][A-Za-z ]{0,60}?)\s+at\s+(?:node\s+)?(\d{1,6})$", re.IGNORECASE)
_PROSE = re.compile(r"[A-Za-z]{3,}|[A-Za-z0-9]\s+[A-Za-z0-9]")
"""Words (three letters in a row) or letters and numbers side by side with only
a space between them: prose, not a product of one-letter variables."""
_WORD = re.compile(r"[A-Za-z]{3,}")
_COMMAND = re.compile(r"\\[A-Za-z]+")
"""A LaTeX command (`\\frac`): not a word (`mathy_envs.text.notation` reads it)."""
_NOTATION = (
    ("**", "^"),
    ("\\cdot", "*"),
    ("\\times", "*"),
    ("\\div", "/"),
    ("÷", "/"),
    ("×", "*"),
    ("·", "*"),
    ("⋅", "*"),
    ("−", "-"),
)


class Verdict(NamedTuple):
    """What a reply was judged to be."""

    kind: str
    """One of `VERDICT_KINDS`."""
    move: Optional[Tuple[int, int]]
    """The `(rule_index, node)` taken, when accepted."""
    expression: Optional[str]
    """The expression the move gives, when accepted."""
    reason: str
    """Why, in a sentence (quoting at most about 200 characters of the reply)."""

    @property
    def accepted(self) -> bool:
        return self.kind == ACCEPTED


def answer_line(reply: str) -> str:
    """The answer line of `reply` ("" when it has none)."""
    for line in reversed(reply.splitlines()):
        text = line.strip()
        if text:
            break
    else:
        return ""
    for _ in range(3):
        text = _PREFIX.sub("", text).strip()
        text = _COMMENT.sub("", text)
        text = text.strip("`$").strip()
        wrapped = _WRAPPED.match(text)
        if wrapped is not None:
            text = next(part for part in wrapped.groups() if part is not None).strip()
        if text.endswith((".", ";")) and not text[:-1].rstrip().endswith("."):
            text = text[:-1].rstrip()
    return text


def reads_as_words(text: str) -> bool:
    """Whether `text` holds a word (three letters in a row, LaTeX commands
    aside): prose, not an expression of one-letter variables."""
    return _WORD.search(_COMMAND.sub("", text)) is not None


def names_a_move(answer: str) -> bool:
    """Whether an answer line names a move (a number, or a rule and node) rather
    than writing an expression."""
    if len(answer) > MAX_ANSWER_CHARS:
        return False  # no move is named at such length (and the patterns stay short)
    return bool(_NUMBER.match(answer) or _RULE_AT.match(answer))


def normalize_notation(text: str) -> str:
    """`text` with the notations a model may write replaced by the parser's."""
    for written, meant in _NOTATION:
        text = text.replace(written, meant)
    return text


def read_reply(
    env: MathyEnv,
    state: MathyEnvState,
    reply: object,
    mode: str = REWRITE,
    moves: Sequence[TextMove] = (),
) -> Verdict:
    """The verdict on `reply` to the prompt of `state` in `mode` (`moves`: the
    state's `text_moves`, when already computed). Never raises for a reply;
    `ValueError` for a `mode` that is not "choose" or "rewrite"."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {quote(mode, 40)}")
    if not isinstance(reply, str):
        return _refuse(MALFORMED, f"a reply must be text, got {type(reply).__name__}")
    reply = str.__add__("", reply)  # a plain str, whatever a subclass of str overrides
    if len(reply) > MAX_REPLY_CHARS:
        return _refuse(TOO_LONG, f"the reply has {len(reply):,} characters, more than {MAX_REPLY_CHARS:,}")
    answer = answer_line(reply)
    if not answer:
        return _refuse(MALFORMED, "the reply has no answer line")
    if len(answer) > MAX_ANSWER_CHARS:
        return _refuse(
            TOO_LONG, f"the answer line has {len(answer):,} characters, more than {MAX_ANSWER_CHARS:,}"
        )
    listed = tuple(moves) or text_moves(env, state, describe=False)
    if mode == CHOOSE:
        return _choose(env, answer, listed)
    return read_expression(env, state, answer, listed)


def _choose(env: MathyEnv, answer: str, moves: Sequence[TextMove]) -> Verdict:
    number = _NUMBER.match(answer)
    if number is not None:
        index = int(number.group(1))
        if 1 <= index <= len(moves):
            return _accept(moves[index - 1], f"move {index}")
        return _refuse(UNKNOWN_MOVE, f"there is no move {index} (the moves are 1 to {len(moves)})")
    named = _RULE_AT.match(answer)
    if named is not None:
        rule = " ".join(named.group(1).split()).lower()
        node = int(named.group(2))
        for move in moves:
            if move.rule.lower() == rule and move.node == node:
                return _accept(move, f"{move.rule} at node {node}")
        if not any(r.name.lower() == rule for r in env.rules):
            return _refuse(UNKNOWN_MOVE, f"no rule is named {quote(named.group(1), 60)}")
        return _refuse(UNKNOWN_MOVE, f"{quote(named.group(1), 60)} is not a valid move at node {node}")
    return _refuse(
        MALFORMED,
        f"{quote(answer)} names no move: write its number or its rule and node",
    )


def read_expression(
    env: MathyEnv, state: MathyEnvState, answer: str, moves: Sequence[TextMove]
) -> Verdict:
    """The rewrite-mode verdict on an answer line `answer` (an expression)."""
    text = normalize_notation(answer)
    current = state.agent.problem
    if _PROSE.search(_COMMAND.sub("", text)):
        return _refuse(
            MALFORMED,
            f"{quote(answer)} reads as words, not an expression (write products with * "
            "or as 4x, one letter a variable)",
        )
    squeezed = "".join(text.split())
    for move in moves:
        # A move's result as the prompt wrote it: the env's own text.
        if "".join(move.result.split()) == squeezed:
            return _accept(move, f"{move.rule} at node {move.node}")
    try:
        text = read_math(text, env.supports_equations, env.parser)
        env.printed_text(text)
    except (ValueError, RecursionError) as error:
        return _refuse(MALFORMED, f"not an expression the env reads: {shorten(str(error), 240)}")
    results = [move.result for move in moves]
    # The result of a move as the env prints it, then (unless the expression is
    # the current one but for grouping) as people write it.
    index = first_match(env, text, results, exact=True)
    kept = env.has_same_value(current, text)
    if index < 0 and kept and same_expression(env, current, text):
        return _refuse(UNCHANGED, "the expression is unchanged: make one move")
    if index < 0:
        index = first_match(env, text, results)
    if index >= 0:
        move = moves[index]
        return _accept(move, f"{move.rule} at node {move.node}")
    if not kept:
        return _refuse(CHANGES_VALUE, f"{quote(answer)} does not have the value of {quote(current, 80)}")
    return _refuse(
        NOT_ONE_MOVE,
        f"{quote(answer)} keeps the value, but no single valid move gives it: "
        "write one rewrite at a time",
    )


def _accept(move: TextMove, what: str) -> Verdict:
    return Verdict(ACCEPTED, move.action, move.result, f"{what} gives {quote(move.result, 120)}")


def _refuse(kind: str, reason: str) -> Verdict:
    return Verdict(kind, None, None, reason)


__all__ = (
    "ACCEPTED",
    "CHANGES_VALUE",
    "MALFORMED",
    "MAX_ANSWER_CHARS",
    "MAX_REPLY_CHARS",
    "NOT_ONE_MOVE",
    "TOO_LONG",
    "UNCHANGED",
    "UNKNOWN_MOVE",
    "VERDICT_KINDS",
    "Verdict",
    "answer_line",
    "names_a_move",
    "normalize_notation",
    "read_expression",
    "read_reply",
    "reads_as_words",
)
