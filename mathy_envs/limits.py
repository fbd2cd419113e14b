"""The supported range of problem texts, and the one check every text passes.

Every text the library reads (a problem, a state's expression, the result of a
step) passes `check_text` (its length and nesting, before it is parsed) and then
`mathy_envs._engine.admission.admit` (its parse: node count, depth, constants):
a text outside these limits raises a `ValueError` naming the limit, before any
expensive work.

| limit | value | why |
|---|---|---|
| `MAX_TEXT_LENGTH` | 2,048 characters | mathy_core's tokenizer slows down on long texts |
| `MAX_NESTING` | 64 levels of parentheses | the parser recurses per level |
| `MAX_NODES` | 256 nodes | a mask checks each action of a large tree one by one |
| `MAX_DEPTH` | 200 levels | mathy_core prints and copies trees recursively |
| `MAX_CONSTANT` | 10**9 in absolute value | mathy_core factors coefficients by trial division |
| `MAX_CONSTANT_DIGITS` | 15 significant digits | a float holds 15 digits exactly |
| `MIN_CONSTANT` | about 2.2e-308 in absolute value, or 0 | smaller floats lose digits or read as 0 |
| `MAX_RULES` | 64 rules | masks and observations hold one row per rule |

A step whose result would break a limit, or hold a constant that is not exactly
the value of the arithmetic that made it, is not a valid action.
"""

import itertools
import re
import reprlib
import sys
from fractions import Fraction
from typing import AbstractSet, Any, Dict

MAX_TEXT_LENGTH = 2048
MAX_NESTING = 64
MAX_NODES = 256
MAX_DEPTH = 200
MAX_CONSTANT = 10**9
MAX_CONSTANT_DIGITS = 15
MAX_RULES = 64
MAX_MOVES = 10**9
"""The largest move budget of an episode."""
MIN_CONSTANT = sys.float_info.min
"""The smallest nonzero constant (in absolute value): below it a float loses
digits, and reads the smallest ones as 0."""
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
    """`repr(text)`, shortened to about `limit` characters for error messages.

    Never fails and never runs long: a text is quoted from its first `limit`
    characters, containers show their first items only (`reprlib`), and an
    object whose `repr` raises (or recurses without end) is shown as
    `<TypeName object>`, so a message never depends on a user's `repr`."""
    if isinstance(text, str):
        plain = str.__str__(text)  # a plain copy: a subclass's __repr__ never runs
        if len(plain) > limit:
            return f"{plain[:limit]!r}... ({len(plain)} characters)"
        return repr(plain)
    try:
        shown = _one_line(_BoundedRepr(limit).repr(text))
    except Exception:  # RecursionError too
        shown = f"<{type_name(text)} object>"
    if len(shown) > limit:
        return f"{shown[:limit]}... ({type_name(text)})"
    return shown


def type_name(value: Any, limit: int = 60) -> str:
    """The name of `value`'s type for error messages, at most about `limit`
    characters. Read with `type`'s own descriptor, so no metaclass code runs."""
    name: str = _TYPE_NAME.__get__(type(value), type)
    return name if len(name) <= limit else f"{name[:limit]}..."


_TYPE_NAME = vars(type)["__name__"]


def _one_line(text: str) -> str:
    """`text` with each line break and the white space around it made one space
    (in time linear in its length, whatever white space it holds)."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    last = len(lines) - 1
    parts = [
        line.strip() if 0 < index < last else line.rstrip() if index == 0 else line.lstrip()
        for index, line in enumerate(lines)
    ]
    return " ".join(part for part in parts if part)


class _BoundedRepr(reprlib.Repr):
    """`reprlib`'s bounded `repr` with room for `limit` characters per item; an
    item whose `repr` fails shows as `<TypeName object>`."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxtuple = self.maxlist = self.maxarray = 30
        self.maxdeque = self.maxset = self.maxfrozenset = 30
        self.maxdict = 15
        self.maxstring = self.maxlong = self.maxother = limit

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 4 * self.maxlong:
            return f"<int of {x.bit_length()} bits>"  # too long to print in full
        return super().repr_int(x, level)

    def repr_dict(self, x: Dict[Any, Any], level: int) -> str:
        # In the dict's own order, unsorted: sorting a large dict takes long.
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        items = [
            f"{self.repr1(key, level - 1)}: {self.repr1(value, level - 1)}"
            for key, value in itertools.islice(x.items(), self.maxdict)
        ]
        return "{" + ", ".join(items) + (", ..." if len(x) > self.maxdict else "") + "}"

    def repr_set(self, x: AbstractSet[Any], level: int) -> str:
        return self._unsorted(x, level, "{", "}", "set()")

    def repr_frozenset(self, x: AbstractSet[Any], level: int) -> str:
        return self._unsorted(x, level, "frozenset({", "})", "frozenset()")

    def _unsorted(
        self, x: AbstractSet[Any], level: int, left: str, right: str, empty: str
    ) -> str:
        if not x:
            return empty
        if level <= 0:
            return f"{left}...{right}"
        items = [self.repr1(item, level - 1) for item in itertools.islice(x, self.maxset)]
        more = ", ..." if len(x) > self.maxset else ""
        return left + ", ".join(items) + more + right

    def repr_instance(self, x: Any, level: int) -> str:
        try:
            shown = repr(x)
        except Exception:  # RecursionError too
            return f"<{type_name(x)} object>"
        if len(shown) > self.maxother:
            return f"{shown[:self.maxother]}..."
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
        if digits and number.count(".") == 1 and abs(Fraction(number)) < MIN_CONSTANT:
            # A float would round it, or read it as 0.
            raise ValueError(
                f"constant {quote(number, 40)} in {quote(text)} is smaller than "
                f"MIN_CONSTANT={MIN_CONSTANT!r} in absolute value (a float can't hold it)"
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


def check_move_budget(name: str, max_moves: Any, least: int = 1) -> int:
    """An episode's move budget must be an int from `least` (1 unless given) to
    `MAX_MOVES`. Returns it as a plain int."""
    value = _plain_int(name, max_moves)
    if value < least:
        raise ValueError(f"{name} must be at least {least} (a move budget), got {value}")
    if value > MAX_MOVES:
        raise ValueError(f"{name} must be at most MAX_MOVES={MAX_MOVES}, got {quote(value, 40)}")
    return value


def _check_int(name: str, value: Any, low: int, high: int, limit: str) -> int:
    number = _plain_int(name, value)
    if not low <= number <= high:
        raise ValueError(
            f"{name} must be in [{low}, {limit}={high}], got {quote(number, 40)}"
        )
    return number


def _plain_int(name: str, value: Any) -> int:
    """`value` as a plain int (an int subclass's own methods never run again),
    or a `ValueError` when it is not an int (bools are not)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {quote(value, 40)}")
    return int.__int__(value)


__all__ = (
    "MAX_CONSTANT",
    "MAX_CONSTANT_DIGITS",
    "MAX_DEPTH",
    "MAX_MOVES",
    "MAX_NESTING",
    "MAX_NODES",
    "MAX_RULES",
    "MAX_TEXT_LENGTH",
    "MIN_CONSTANT",
    "QUOTE_LENGTH",
    "check_constant",
    "check_max_seq_len",
    "check_move_budget",
    "check_num_rules",
    "check_size",
    "check_text",
    "quote",
    "shorten",
    "type_name",
)
