"""mathy_core parsers: making one (`new_parser`), the library's default one, the
lock that serializes each parser's use, and parsing one text into a fresh tree.

mathy_core's parser keeps its position on itself, so each parser is used by one
thread at a time: whoever parses with it holds its `parser_lock`. A text that
does not parse is a `ValueError` quoting it and the parser's complaint.
"""

import threading
from typing import Optional, Tuple
from weakref import WeakKeyDictionary

from mathy_core import ExpressionParser, MathExpression

from ..limits import check_text, quote, shorten
from .native_parse import NativeParse, native_parse
from .tokenizing import PieceTokenizer


def new_parser() -> ExpressionParser:
    """A mathy_core `ExpressionParser` whose tokenizer keeps the tokens of the
    pieces of the texts it has seen (`PieceTokenizer`): the same trees, sooner."""
    parser = ExpressionParser()
    parser.tokenizer = PieceTokenizer()
    return parser


_default_parser = new_parser()
_registry_lock = threading.Lock()
_parser_locks: "WeakKeyDictionary[ExpressionParser, threading.Lock]" = WeakKeyDictionary()


def parser_lock(parser: ExpressionParser) -> threading.Lock:
    """The lock that serializes the use of `parser`."""
    lock = _parser_locks.get(parser)
    if lock is None:
        with _registry_lock:
            lock = _parser_locks.get(parser)
            if lock is None:
                lock = _parser_locks[parser] = threading.Lock()
    return lock


def default_parser() -> ExpressionParser:
    """The parser used by every env and state that is not given its own. Each
    thread parses with a private copy of it."""
    return _default_parser


def parse_text(parser: ExpressionParser, text: str) -> MathExpression:
    """Parse `text` into a fresh tree, raising `ValueError` on bad input. Each
    parser parses one text at a time, whatever the thread."""
    return parse_locked(parser, parser_lock(parser), text)


def parse_locked(parser: ExpressionParser, lock: threading.Lock, text: str) -> MathExpression:
    """`parse_text` with the parser's lock (`parser_lock`) already looked up."""
    tree, made = parse_with_native(parser, lock, text)
    if tree is None:
        assert made is not None
        return made.tree
    return tree


def parse_with_native(
    parser: ExpressionParser, lock: threading.Lock, text: str
) -> Tuple[Optional[MathExpression], Optional[NativeParse]]:
    """`parse_locked`'s tree, or the native core's parse of the text
    (`mathy_envs._engine.native_parse.native_parse`), which makes that tree when it is
    first read: `(tree, None)` or `(None, native_parse)`."""
    check_text(text)
    with lock:
        # The native core, when the parser reads texts as it does (the parser's
        # holder may be changing it: its lock is held for this too).
        made = native_parse(parser, text)
        if made is not None:
            return None, made
        try:
            tree = parser.parse(text)
        except Exception as error:
            complaint = getattr(error, "message", None) or str(error) or type(error).__name__
            raise ValueError(
                f"cannot parse problem text {quote(text)}: {shorten(complaint)}"
            ) from error
        finally:
            # mathy_core's parser keeps every text it has seen; our cache is the
            # bounded one, so keep the parser's own cache empty.
            parser.clear_cache()
    return tree, None


__all__ = (
    "default_parser",
    "new_parser",
    "parse_locked",
    "parse_text",
    "parse_with_native",
    "parser_lock",
)
