"""The supported range of problem texts, and the one check every text passes.

Every text the library reads (a problem, a state's expression, the result of a
step) is admitted by `admit_tree` and the checks before it: a text outside these
limits raises a `ValueError` naming the limit, before any expensive work.

| limit | value | why |
|---|---|---|
| `MAX_TEXT_LENGTH` | 2,048 characters | mathy_core's tokenizer slows down on long texts |
| `MAX_NESTING` | 64 levels of parentheses | the parser recurses per level |
| `MAX_NODES` | 256 nodes | a mask checks each action of a large tree one by one |
| `MAX_DEPTH` | 200 levels | mathy_core prints and copies trees recursively |
| `MAX_CONSTANT` | 10**9 in absolute value | mathy_core factors coefficients by trial division |
| `MAX_CONSTANT_DIGITS` | 15 significant digits | a float holds 15 digits exactly |
| `MAX_RULES` | 64 rules | masks and observations hold one row per rule |

A step whose result would break a limit, or hold a constant that is not exactly
the value of the arithmetic that made it, is not a valid action.
"""

import re
from typing import Any

MAX_TEXT_LENGTH = 2048
MAX_NESTING = 64
MAX_NODES = 256
MAX_DEPTH = 200
MAX_CONSTANT = 10**9
MAX_CONSTANT_DIGITS = 15
MAX_RULES = 64
DEFAULT_MAX_SEQ_LEN = 128
"""The default `max_seq_len`: the node count observations are padded to, and the
largest generated problem."""
QUOTE_LENGTH = 200
"""Error messages quote at most this many characters of a text."""

_NUMBER = re.compile(r"[0-9.]+")
_LONG_NUMBER = re.compile(r"[0-9.]{%d,}" % (MAX_CONSTANT_DIGITS + 1))
"""A run of more characters than a number within `MAX_CONSTANT_DIGITS` can have
(only these can hold too many significant digits)."""


def quote(text: Any, limit: int = QUOTE_LENGTH) -> str:
    """`repr(text)`, shortened to about `limit` characters for error messages."""
    if isinstance(text, str) and len(text) > limit:
        return f"{text[:limit]!r}... ({len(text)} characters)"
    shown = repr(text)
    if len(shown) > limit:
        return f"{shown[:limit]}... ({type(text).__name__})"
    return shown


def shorten(message: str, limit: int = QUOTE_LENGTH) -> str:
    """`message` on one line (runs of white space become one space), cut to
    about `limit` characters."""
    message = " ".join(message.split())
    return message if len(message) <= limit else message[:limit] + "..."


def check_text(text: Any) -> str:
    """Check what can be checked before parsing: the type, the length, the depth
    of parentheses and the digits of each number. Returns the text."""
    if not isinstance(text, str):
        raise ValueError(f"problem text must be a str, got {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise ValueError(
            f"problem text {quote(text)} is longer than MAX_TEXT_LENGTH="
            f"{MAX_TEXT_LENGTH} characters"
        )
    # Only a text with more opening brackets than MAX_NESTING can nest too deep,
    # and only a long run of digits can hold too many significant ones.
    if text.count("(") + text.count("[") > MAX_NESTING:
        _check_nesting(text)
    if _LONG_NUMBER.search(text) is not None:
        _check_digits(text)
    return text


def _check_nesting(text: str) -> None:
    depth = 0
    for char in text:
        if char in "([":
            depth += 1
            if depth > MAX_NESTING:
                raise ValueError(
                    f"problem text {quote(text)} nests parentheses deeper than "
                    f"MAX_NESTING={MAX_NESTING}"
                )
        elif char in ")]":
            depth -= 1


def _check_digits(text: str) -> None:
    for number in _NUMBER.findall(text):
        digits = len(number.replace(".", "").strip("0"))
        if digits > MAX_CONSTANT_DIGITS:
            raise ValueError(
                f"constant {quote(number, 40)} in {quote(text)} has more than "
                f"MAX_CONSTANT_DIGITS={MAX_CONSTANT_DIGITS} significant digits"
            )


def check_constant(value: Any, text: str) -> None:
    """A parsed constant must be a finite int or float within `MAX_CONSTANT`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(
            f"constant {quote(value, 40)} in {quote(text)} is not an int or float"
        )
    if not abs(value) <= MAX_CONSTANT:
        raise ValueError(
            f"constant {quote(value, 40)} in {quote(text)} is outside the supported "
            f"range |c| <= MAX_CONSTANT={MAX_CONSTANT}"
        )


def check_size(num_nodes: int, depth: int, text: str) -> None:
    if num_nodes > MAX_NODES:
        raise ValueError(
            f"expression {quote(text)} has {num_nodes} nodes, more than "
            f"MAX_NODES={MAX_NODES}"
        )
    if depth > MAX_DEPTH:
        raise ValueError(
            f"expression {quote(text)} is {depth} levels deep, more than "
            f"MAX_DEPTH={MAX_DEPTH}"
        )


def check_max_seq_len(max_seq_len: Any) -> int:
    """`max_seq_len` must be an int in [1, MAX_NODES]."""
    return _check_int("max_seq_len", max_seq_len, 1, MAX_NODES, "MAX_NODES")


def check_num_rules(num_rules: Any) -> int:
    """`num_rules` must be an int in [0, MAX_RULES]."""
    return _check_int("num_rules", num_rules, 0, MAX_RULES, "MAX_RULES")


def check_move_budget(name: str, max_moves: Any) -> int:
    """An episode's move budget must be an int of at least 1."""
    if isinstance(max_moves, bool) or not isinstance(max_moves, int):
        raise ValueError(f"{name} must be an int, got {quote(max_moves, 40)}")
    if max_moves < 1:
        raise ValueError(f"{name} must be at least 1 (a move budget), got {max_moves}")
    return max_moves


def _check_int(name: str, value: Any, low: int, high: int, limit: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {quote(value, 40)}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {limit}={high}], got {value}")
    return value


__all__ = (
    "MAX_CONSTANT",
    "MAX_CONSTANT_DIGITS",
    "MAX_DEPTH",
    "MAX_NESTING",
    "MAX_NODES",
    "MAX_RULES",
    "MAX_TEXT_LENGTH",
    "QUOTE_LENGTH",
    "check_constant",
    "check_max_seq_len",
    "check_move_budget",
    "check_num_rules",
    "check_size",
    "check_text",
    "quote",
    "shorten",
)
