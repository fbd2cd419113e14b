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

from .._engine import default_parser, parse_text
from ..limits import MAX_DEPTH, MAX_NESTING, MAX_TEXT_LENGTH, quote

class _Node:
    """A read expression: a number (`value`, written `text`), a variable (`text`),
    a sign (`kind` "neg", `left` its operand) or an operator (`kind` one of add,
    sub, mul, div, pow, eq)."""

    __slots__ = ("kind", "text", "value", "left", "right")

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
_LATEX_SPACES = ",;:! "
"""`\\,`, `\\;`, `\\:`, `\\!` and `\\ `: LaTeX spacing, ignored."""
_OPENING = {"(": ")", "[": "]", "{": "}"}
_CLOSING = frozenset(_OPENING.values())
_OPERATORS = frozenset("+-*/^=")
_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div"}


class _Token:
    __slots__ = ("kind", "text", "spaced")

    def __init__(self, kind: str, text: str, spaced: bool) -> None:
        self.kind = kind  # num, var, op, open, close, frac
        self.text = text
        self.spaced = spaced  # white space came before it


def _tokens(text: str) -> List[_Token]:
    """The tokens of `text`, in one pass."""
    for written, meant in _SPELLINGS:
        text = text.replace(written, meant)
    tokens: List[_Token] = []
    spaced = False
    i, end = 0, len(text)
    while i < end:
        ch = text[i]
        if ch.isspace():
            spaced = True
            i += 1
            continue
        if "0" <= ch <= "9" or (ch == "." and i + 1 < end and "0" <= text[i + 1] <= "9"):
            start = i
            while i < end and "0" <= text[i] <= "9":
                i += 1
            if i < end and text[i] == "." and i + 1 < end and "0" <= text[i + 1] <= "9":
                i += 1
                while i < end and "0" <= text[i] <= "9":
                    i += 1
            tokens.append(_Token("num", text[start:i], spaced))
        elif ("a" <= ch <= "z") or ("A" <= ch <= "Z"):
            tokens.append(_Token("var", ch, spaced))
            i += 1
        elif ch == "\\":
            start = i + 1
            i = start
            while i < end and (("a" <= text[i] <= "z") or ("A" <= text[i] <= "Z")):
                i += 1
            name = text[start:i]
            if not name:
                if i < end and text[i] in _LATEX_SPACES:
                    i += 1
                    spaced = True
                    continue
                raise ValueError(f"{quote(text)} has a stray backslash at character {start}")
            if name not in _COMMANDS:
                raise ValueError(
                    f"{quote(text)} uses \\{name[:40]}, which is not read here "
                    "(write the expression with + - * / ^ and parentheses)"
                )
            meant = _COMMANDS[name]
            if meant == "frac":
                tokens.append(_Token("frac", "\\frac", spaced))
            elif meant:
                tokens.append(_Token("op", meant, spaced))
            else:
                spaced = True
            continue
        elif ch in _OPERATORS:
            tokens.append(_Token("op", ch, spaced))
            i += 1
        elif ch in _OPENING:
            tokens.append(_Token("open", ch, spaced))
            i += 1
        elif ch in _CLOSING:
            tokens.append(_Token("close", ch, spaced))
            i += 1
        else:
            raise ValueError(
                f"{quote(text)} has {ch!r} at character {i}, which is not read here "
                "(write the expression with numbers, one-letter variables, + - * / ^ "
                "and parentheses)"
            )
        spaced = False
    return tokens


class _Reader:
    """A recursive-descent reader over the tokens of one text."""

    def __init__(self, text: str, tokens: List[_Token], equations: bool) -> None:
        self.text = text
        self.tokens = tokens
        self.at = 0
        self.depth = 0
        self.equations = equations

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{quote(self.text)} {what}")

    def peek(self) -> Optional[_Token]:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def is_op(self, token: Optional[_Token], ops: str) -> bool:
        return token is not None and token.kind == "op" and token.text in ops

    def read(self) -> _Node:
        if not self.tokens:
            raise self.fail("has no expression")
        node = self.sum()
        token = self.peek()
        if self.is_op(token, "="):
            if not self.equations:
                raise self.fail("is an equation; the task has expressions")
            self.take()
            node = _Node("eq", left=node, right=self.sum())
            token = self.peek()
        if token is not None:
            if token.kind == "close":
                raise self.fail(f"has an unmatched {token.text!r}")
            if self.is_op(token, "="):
                raise self.fail("has more than one '='")
            raise self.fail(f"has {token.text!r} where an operator or the end was expected")
        return node

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING + 1:  # the top level, then one per group
            raise self.fail(f"is nested more than {MAX_NESTING} levels deep")

    def sum(self) -> _Node:
        self.enter()
        node = self.product()
        while self.is_op(self.peek(), "+-"):
            op = _BINARY[self.take().text]
            node = _Node(op, left=node, right=self.product())
        self.depth -= 1
        return node

    def product(self) -> _Node:
        node = self.signed()
        while True:
            token = self.peek()
            if self.is_op(token, "*/"):
                op = _BINARY[self.take().text]
                operand = self.signed()
                if self.juxtaposed():
                    if op == "div":
                        raise self.fail(
                            "divides by a product written without an operator: write "
                            "a / (4x) or a / 4 * x"
                        )
                    operand = self.term(operand)
                node = _Node(op, left=node, right=operand)
            elif token is not None and token.kind in ("var", "open", "frac"):
                node = _Node("mul", left=node, right=self.power())
            elif token is not None and token.kind == "num":
                before = self.tokens[self.at - 1]
                if before.kind == "num":
                    raise self.fail(
                        f"has two numbers side by side ({before.text} {token.text}): "
                        "write the operator between them"
                    )
                raise self.fail(
                    f"has the number {token.text} right after {before.text!r}: write a "
                    "number before what it multiplies (2x, not x2) or use *"
                )
            else:
                return node

    def juxtaposed(self) -> bool:
        """Whether a factor follows with no operator before it."""
        token = self.peek()
        return token is not None and token.kind in ("var", "open", "frac")

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
        token = self.peek()
        if self.is_op(token, "+-"):
            self.take()
            self.enter()
            inner = self.signed()
            self.depth -= 1
            return inner if token is not None and token.text == "+" else inner.negated()
        return self.power()

    def power(self) -> _Node:
        base = self.atom()
        if not self.is_op(self.peek(), "^"):
            return base
        self.take()
        self.enter()
        exponent = self.exponent()
        self.depth -= 1
        return _Node("pow", left=base, right=exponent)

    def exponent(self) -> _Node:
        token = self.peek()
        if self.is_op(token, "+-"):
            self.take()
            self.enter()
            inner = self.exponent()
            self.depth -= 1
            return inner if token is not None and token.text == "+" else inner.negated()
        return self.power()

    def atom(self) -> _Node:
        token = self.peek()
        if token is None:
            raise self.fail("ends where a number, variable or '(' was expected")
        self.take()
        if token.kind == "num":
            literal = token.text
            value: Union[int, float] = float(literal) if "." in literal else int(literal)
            return _Node("num", literal, value)
        if token.kind == "var":
            return _Node("var", token.text)
        if token.kind == "open":
            return self.group(token)
        if token.kind == "frac":
            opening = self.peek()
            if opening is None or opening.kind != "open":
                raise self.fail("has \\frac without {numerator}{denominator}")
            numerator = self.group(self.take())
            opening = self.peek()
            if opening is None or opening.kind != "open":
                raise self.fail("has \\frac without {numerator}{denominator}")
            return _Node("div", left=numerator, right=self.group(self.take()))
        if token.kind == "close":
            raise self.fail(f"has {token.text!r} where a number, variable or '(' was expected")
        raise self.fail(f"has {token.text!r} where a number, variable or '(' was expected")

    def group(self, opening: _Token) -> _Node:
        inner = self.sum()
        closing = self.peek()
        wanted = _OPENING[opening.text]
        if closing is None or closing.kind != "close":
            raise self.fail(f"has an unclosed {opening.text!r}")
        if closing.text != wanted:
            raise self.fail(f"closes {opening.text!r} with {closing.text!r}")
        self.take()
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


def _depth(node: _Node) -> int:
    """The levels of `node`'s tree (iteratively)."""
    deepest = 0
    pending = [(node, 1)]
    while pending:
        item, depth = pending.pop()
        deepest = max(deepest, depth)
        for child in (item.left, item.right):
            if child is not None:
                pending.append((child, depth + 1))
    return deepest


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
    if len(text) > MAX_TEXT_LENGTH:
        raise ValueError(f"the expression has {len(text):,} characters, more than {MAX_TEXT_LENGTH:,}")
    node = _Reader(text, _tokens(text), equations).read()
    if _depth(node) > MAX_DEPTH:
        raise ValueError(f"{quote(text)} is more than {MAX_DEPTH} levels deep")
    out: List[str] = []
    _write(node, out)
    written = "".join(out)
    tree = parse_text(parser if parser is not None else default_parser(), written)
    if not _same_tree(node, tree):
        raise ValueError(
            f"{quote(text)} can't be written in the env's notation unchanged: "
            "write it with * between factors and parentheses around each group"
        )
    return written


__all__ = ("read_math",)
