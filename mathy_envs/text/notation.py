"""Natural notation: a line of math as people write it, read with the standard
precedence and written as the env's own text.

`read_math("(10 + 5)z^2")` is `"(10 + 5) * z^2"`: the same expression, in a
text the env's parser (mathy_core) reads as that expression. mathy_core reads
some natural forms another way (`(10 + 5)z^2` as `z^2 * (10 + 5) * z`, `2xy^2`
as `2 * y^2 * x * y`, `x^2y` as `x^(2y)`), so every text a model writes is read
here first, and a verdict is only ever given on what the text means.

What is read, from loosest to tightest:

- `=` between two sides (only where the env has equations);
- `+` and `-` between terms, left to right;
- `*`, `/` and a product by juxtaposition (`4x`, `x(x + 9)`, `(x + 1)(x - 2)`,
  `3x(x + 1)`), all alike, left to right: `2x/3` is `(2 * x) / 3`;
- a sign: `-x^2` is `-(x^2)`, `2 * -x` is `2 * (-x)`;
- `^`, right to left (`2^3^2` is `2^(3^2)`), its exponent one factor with an
  optional sign: `x^2y` is `x^2 * y`, `x^-2` is `x^(-2)`;
- numbers (`12`, `3.5`), one-letter variables (`xy` is `x * y`) and groups in
  `( )`, `[ ]` or `{ }`.

Other spellings: `**` for `^`; `×`, `·`, `⋅`, `\\cdot` and `\\times` for `*`;
`÷` and `\\div` for `/`; `−` for `-`; `²` and `³` for `^2` and `^3`; LaTeX
`^{2}`, `\\frac{a}{b}` (a quotient), `\\left(` and `\\right)`; LaTeX spacing
(`\\,`, `\\;`, `\\quad`) is ignored. Anything else (another character or LaTeX
command, a number right after a variable or a closing parenthesis such as
`x2`, two numbers side by side) is refused with a `ValueError` that says what
to write instead.

Reading takes time linear in the text's length; nesting deeper than
`MAX_NESTING` levels is refused.
"""

import re
from typing import List, Optional, Tuple, Union

from mathy_core import (
    AddExpression,
    ConstantExpression,
    DivideExpression,
    EqualExpression,
    ExpressionParser,
    MathExpression,
    MultiplyExpression,
    NegateExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
)

from .._engine import parse
from ..limits import MAX_DEPTH, MAX_NESTING, MAX_TEXT_LENGTH, quote

class _Node:
    """A read expression: a number (`value`, written `text`), a variable (`text`),
    a sign (`kind` "neg", `left` its operand) or an operator (`kind` one of add,
    sub, mul, div, pow, eq); `depth` is the levels of its tree."""

    __slots__ = ("kind", "text", "value", "left", "right", "depth")

    def __init__(
        self,
        kind: str,
        text: str = "",
        value: Union[int, float] = 0,
        left: "Optional[_Node]" = None,
        right: "Optional[_Node]" = None,
    ) -> None:
        self.kind = kind
        self.text = text
        self.value = value
        self.left = left
        self.right = right
        below = 0
        if left is not None:
            below = left.depth
        if right is not None and right.depth > below:
            below = right.depth
        self.depth: int = below + 1

    @property
    def negative_number(self) -> bool:
        return self.kind == "num" and self.text.startswith("-")

    def negated(self) -> "_Node":
        """This node with a sign before it (a number takes the sign, as
        mathy_core reads `-2`)."""
        if self.kind == "num" and not self.negative_number:
            return _Node("num", "-" + self.text, -self.value)
        return _Node("neg", left=self)


_SPELLINGS = (
    ("**", "^"),
    ("×", "*"),
    ("·", "*"),
    ("⋅", "*"),
    ("÷", "/"),
    ("−", "-"),
    ("²", "^2"),
    ("³", "^3"),
)
_COMMANDS = {
    "cdot": "*",
    "times": "*",
    "div": "/",
    "frac": "frac",
    "left": "",
    "right": "",
    "quad": "",
    "qquad": "",
}
"""LaTeX commands read: what each stands for ("" for none)."""
_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<num>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
    r"|(?P<var>[A-Za-z])"
    r"|\\(?P<command>[A-Za-z]+|[,;:! ])"
    r"|(?P<op>[-+*/^=])"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<other>.)",
    re.DOTALL,
)
"""One token: every character is part of exactly one match, so the tokens of a
text are found in one pass."""
_OPENING = {"(": ")", "[": "]", "{": "}"}
_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
_FACTOR_STARTS = frozenset(("var", "open", "frac"))


def _tokens(text: str) -> Tuple[List[str], List[str]]:
    """The kinds and texts of the tokens of `text` (an "end" token last)."""
    for written, meant in _SPELLINGS:
        text = text.replace(written, meant)
    kinds: List[str] = []
    texts: List[str] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "space":
            continue
        token = match.group(kind or "other")
        if kind == "command":
            if token not in _COMMANDS:
                if len(token) == 1:
                    continue  # LaTeX spacing: \, \; \: \! and "\ "
                raise ValueError(
                    f"{quote(text)} uses \\{token[:40]}, which is not read here "
                    "(write the expression with + - * / ^ and parentheses)"
                )
            meant = _COMMANDS[token]
            if not meant:
                continue
            kind, token = ("frac", token) if meant == "frac" else ("op", meant)
        elif kind == "other":
            what = "a stray backslash" if token == "\\" else repr(token)
            raise ValueError(
                f"{quote(text)} has {what} at character {match.start()}, which is not read "
                "here (write the expression with numbers, one-letter variables, + - * / ^ "
                "and parentheses)"
            )
        kinds.append(str(kind))
        texts.append(token)
    kinds.append("end")
    texts.append("")
    return kinds, texts


class _Reader:
    """A recursive-descent reader over the tokens of one text."""

    __slots__ = ("text", "kinds", "texts", "at", "depth", "equations")

    def __init__(self, text: str, equations: bool) -> None:
        self.text = text
        self.kinds, self.texts = _tokens(text)
        self.at = 0
        self.depth = 0
        self.equations = equations

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{quote(self.text)} {what}")

    def op_at(self, ops: str) -> bool:
        """Whether the next token is one of the operators `ops`."""
        return self.kinds[self.at] == "op" and self.texts[self.at] in ops

    def read(self) -> _Node:
        if self.kinds[0] == "end":
            raise self.fail("has no expression")
        node = self.sum()
        if self.op_at("="):
            if not self.equations:
                raise self.fail("is an equation; the task has expressions")
            self.at += 1
            node = _Node("eq", left=node, right=self.sum())
        kind, token = self.kinds[self.at], self.texts[self.at]
        if kind != "end":
            if kind == "close":
                raise self.fail(f"has an unmatched {token!r}")
            if token == "=":
                raise self.fail("has more than one '='")
            raise self.fail(f"has {token!r} where an operator or the end was expected")
        return node

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING + 1:  # the top level, then one per group
            raise self.fail(f"is nested more than {MAX_NESTING} levels deep")

    def sum(self) -> _Node:
        self.enter()
        node = self.product()
        kinds, texts = self.kinds, self.texts
        while kinds[self.at] == "op" and texts[self.at] in "+-":
            op = _BINARY[texts[self.at]]
            self.at += 1
            node = _Node(op, left=node, right=self.product())
        self.depth -= 1
        return node

    def product(self) -> _Node:
        node = self.signed()
        kinds, texts = self.kinds, self.texts
        while True:
            kind = kinds[self.at]
            if kind == "op" and texts[self.at] in "*/":
                op = _BINARY[texts[self.at]]
                self.at += 1
                operand = self.signed()
                if kinds[self.at] in _FACTOR_STARTS:
                    if op == "div":
                        raise self.fail(
                            "divides by a product written without an operator: write "
                            "a / (4x) or a / 4 * x"
                        )
                    operand = self.term(operand)
                node = _Node(op, left=node, right=operand)
            elif kind in _FACTOR_STARTS:
                node = _Node("mul", left=node, right=self.power())
            elif kind == "num":
                before, token = texts[self.at - 1], texts[self.at]
                if kinds[self.at - 1] == "num":
                    raise self.fail(
                        f"has two numbers side by side ({before} {token}): "
                        "write the operator between them"
                    )
                raise self.fail(
                    f"has the number {token} right after {before!r}: write a "
                    "number before what it multiplies (2x, not x2) or use *"
                )
            else:
                return node

    def term(self, number: _Node) -> _Node:
        """After `*`, a number and the variable (or power of one) written right
        after it are one term, as the env writes them (`a * 4x^2` is
        `a * (4 * x^2)`); anything else multiplies left to right."""
        if number.kind != "num":
            return number
        start = self.at
        factor = self.power()
        base = factor.left if factor.kind == "pow" else factor
        if base is not None and base.kind == "var":
            return _Node("mul", left=number, right=factor)
        self.at = start  # not a term: read again as the next factor of the chain
        return number

    def signed(self) -> _Node:
        if self.kinds[self.at] == "op" and self.texts[self.at] in "+-":
            sign = self.texts[self.at]
            self.at += 1
            self.enter()
            inner = self.signed()
            self.depth -= 1
            return inner if sign == "+" else inner.negated()
        return self.power()

    def power(self) -> _Node:
        base = self.atom()
        if not (self.kinds[self.at] == "op" and self.texts[self.at] == "^"):
            return base
        self.at += 1
        self.enter()
        exponent = self.exponent()
        self.depth -= 1
        return _Node("pow", left=base, right=exponent)

    def exponent(self) -> _Node:
        if self.kinds[self.at] == "op" and self.texts[self.at] in "+-":
            sign = self.texts[self.at]
            self.at += 1
            self.enter()
            inner = self.exponent()
            self.depth -= 1
            return inner if sign == "+" else inner.negated()
        return self.power()

    def atom(self) -> _Node:
        kind, token = self.kinds[self.at], self.texts[self.at]
        if kind == "end":
            raise self.fail("ends where a number, variable or '(' was expected")
        self.at += 1
        if kind == "num":
            value: Union[int, float] = float(token) if "." in token else int(token)
            return _Node("num", token, value)
        if kind == "var":
            return _Node("var", token)
        if kind == "open":
            return self.group(token)
        if kind == "frac":
            if self.kinds[self.at] != "open":
                raise self.fail("has \\frac without {numerator}{denominator}")
            self.at += 1
            numerator = self.group(self.texts[self.at - 1])
            if self.kinds[self.at] != "open":
                raise self.fail("has \\frac without {numerator}{denominator}")
            self.at += 1
            return _Node("div", left=numerator, right=self.group(self.texts[self.at - 1]))
        raise self.fail(f"has {token!r} where a number, variable or '(' was expected")

    def group(self, opening: str) -> _Node:
        inner = self.sum()
        kind, closing = self.kinds[self.at], self.texts[self.at]
        if kind != "close":
            raise self.fail(f"has an unclosed {opening!r}")
        if closing != _OPENING[opening]:
            raise self.fail(f"closes {opening!r} with {closing!r}")
        self.at += 1
        return inner


_PRECEDENCE = {"eq": 0, "add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4}
_SYMBOL = {"add": " + ", "sub": " - ", "mul": " * ", "div": " / ", "pow": "^", "eq": " = "}


def _is_atom(node: _Node) -> bool:
    return node.kind == "var" or (node.kind == "num" and not node.negative_number)


def _write(node: _Node, out: List[str]) -> None:
    """`node` as text that mathy_core reads as `node`: every operator written,
    every operand that is not a plain number or variable in parentheses where
    mathy_core could read it another way."""
    kind = node.kind
    if kind in ("num", "var"):
        out.append(node.text)
        return
    left, right = node.left, node.right
    assert left is not None
    if kind == "neg":
        out.append("-(")
        _write(left, out)
        out.append(")")
        return
    assert right is not None
    if kind == "pow":
        _operand(left, _is_atom(left), out)
        out.append("^")
        _operand(right, _is_atom(right), out)
        return
    level = _PRECEDENCE[kind]
    _operand(left, _is_atom(left) or _PRECEDENCE.get(left.kind, 9) >= level, out)
    out.append(_SYMBOL[kind])
    _operand(right, _is_atom(right) or _PRECEDENCE.get(right.kind, 9) > level, out)


def _operand(node: _Node, bare: bool, out: List[str]) -> None:
    if node.kind == "neg" or node.negative_number:
        bare = False  # `x^(-2)`, `a + (-(b))`: mathy_core's reading of a sign varies
    if not bare:
        out.append("(")
    _write(node, out)
    if not bare:
        out.append(")")


def _same_tree(node: _Node, tree: MathExpression) -> bool:
    """Whether mathy_core's `tree` is the read `node` (iteratively)."""
    pending: List[Tuple[_Node, MathExpression]] = [(node, tree)]
    while pending:
        mine, theirs = pending.pop()
        kind = mine.kind
        if kind == "num":
            if type(theirs) is not ConstantExpression or theirs.value != mine.value:
                return False
            continue
        if kind == "var":
            if type(theirs) is not VariableExpression or theirs.identifier != mine.text:
                return False
            continue
        assert mine.left is not None
        if kind == "neg":
            child = theirs.get_child() if type(theirs) is NegateExpression else None
            if child is None:
                return False
            pending.append((mine.left, child))
            continue
        assert mine.right is not None
        if type(theirs) is not _TREE_TYPES[kind] or theirs.left is None or theirs.right is None:
            return False
        pending.append((mine.left, theirs.left))
        pending.append((mine.right, theirs.right))
    return True


_TREE_TYPES = {
    "add": AddExpression,
    "sub": SubtractExpression,
    "mul": MultiplyExpression,
    "div": DivideExpression,
    "pow": PowerExpression,
    "eq": EqualExpression,
}

def read_math(text: str, equations: bool = False, parser: Optional[ExpressionParser] = None) -> str:
    """`text` (one expression in natural notation) as a text mathy_core reads
    as the same expression, with every product written with `*`.

    `equations`: whether one `=` between two sides is read (else it is refused).
    `parser`: the mathy_core parser the text is for (a default one when None).
    `ValueError` with the reason for a text that is not one expression.
    """
    if not isinstance(text, str):
        raise ValueError(f"an expression must be text, got {type(text).__name__}")
    text = str.__add__("", text)  # a plain str, whatever a subclass overrides
    if len(text) > MAX_TEXT_LENGTH:
        raise ValueError(f"the expression has {len(text):,} characters, more than {MAX_TEXT_LENGTH:,}")
    node = _Reader(text, equations).read()
    if node.depth > MAX_DEPTH:
        raise ValueError(f"{quote(text)} is more than {MAX_DEPTH} levels deep")
    out: List[str] = []
    _write(node, out)
    written = "".join(out)
    # Through the thread's cache of the parser: the env reads this text next.
    tree = parse(written, parser).tree
    if not _same_tree(node, tree):
        raise ValueError(
            f"{quote(text)} can't be written in the env's notation unchanged: "
            "write it with * between factors and parentheses around each group"
        )
    return written


__all__ = ("read_math",)
