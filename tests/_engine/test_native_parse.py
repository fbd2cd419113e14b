"""The differential harness of the native core against mathy_core.

For every text of a sample (the recorded trajectories, seeded random play on
every built-in env and difficulty, hand-picked hazards, texts drawn from a small
grammar and random strings of the characters mathy_core reads), the native core
either refuses the text (then the library parses it with mathy_core) or gives
exactly what mathy_core gives:

- the tree `native_tree` builds is mathy_core's parse, node for node: classes,
  attribute names, constant values with their Python type (int or float, the sign
  of a zero), variable names, links (a node two nodes hold, as the `y` of `xy^2`,
  is one object with mathy_core's parent) and the order of the node ids;
- the printed text, the in-order type ids, and `can_apply_to` of the seven core
  rules at every node (with either commutative-swap preference) are mathy_core's;
- the walk the library's node layout is made from (`walk_tree`) is the walk of
  mathy_core's tree;
- it accepts no text mathy_core rejects;
- every rewrite it writes (`Expression.apply(rule, node)`: the text of the whole
  expression after a core rule's `apply_to`, which it leaves to mathy_core, with
  None, for division, powers and equations of constants, integer overflow and
  float coefficients to factor) is mathy_core's printed result, link for link.

The default run checks a fast sample; the slow job (`-m slow`) a bigger one.
"""

import hashlib
import json
import math
import random
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

import numpy as np
import pytest
from helpers import CORE_RULE_TYPES

from mathy_core import ExpressionParser, MathExpression

from mathy_envs._engine.admission import MOVE_LIMITS, admit
from mathy_envs._engine.masks import keeps_value
from mathy_envs._engine.parse_cache import ExpressionCache
from mathy_envs.envs import ENV_TASKS
from mathy_envs._engine.expressions import ParsedExpression
from mathy_envs._engine.native import CORE
from mathy_envs._engine.native_parse import KINDS, native_tree, reads_as_native
from mathy_envs._engine.parsers import new_parser
from mathy_envs._engine.rules import core_rules
from mathy_envs._engine.terms import (
    is_simplified,
    like_term_indexes,
    like_terms_grouped,
    term_indexes,
)
from mathy_envs._engine.values import (
    POINTS,
    PRIME,
    ROOT_DENOMINATORS,
    _Evaluator,
    ValueCheck,
    check_defined,
    point_values,
    root_denominators,
    same_tree,
)
from mathy_envs._engine.walk import walk_tree
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs

native = pytest.importorskip("mathy_envs._native", reason="the native core is not built")

DATA = Path(__file__).parents[1] / "data"

HAZARDS = [
    # shared nodes: the power's base is multiplied in again
    "xy^2", "x(y + 1)^2", "2x^3y", "ab^2c", "sgn(x)y^2", "x(y)(z)^2", "x(2x)^2", "x(xx)^2",
    "x(x*y)^2", "3XX(XX)^3",
    # implicit multiplication printed without parentheses under ^ and -
    "(2x)^2", "-(2x)", "-(2x)^2", "-(x^2)", "(x^2)^3", "x^2^3", "x^y^z", "(x^y)^z",
    # unary minus
    "-3x", "-x^2", "4x - -3", "-x^2 * -y", "4 - -x", "x - -x^2", "3x - -2x", "x + -3",
    "x + -3y", "x + -3y^2", "-(x + 1)", "-(x - 1)", "-(x * 1)", "--x", "-0", "-0.0", "x - 0",
    "-0.0x + 0.0x", "x + -0.0",
    # floats and their printing
    "1.5x + 0.5x", "0.5x + 0.5x", "0.1 + 0.2", "1.0x", "2.50y", "0.000001x", ".5x", "5.x",
    "123456789.123456789", "7.0000000000001", "1000000000000000000000.5", "1e5", "1.5e",
    "100000000000000000000000.0", "0.1x + 0.1x^2", "0.3333333333333333 * x",
    "99999999999999999999999999999.0 * y", "1.7976931348623157e308", "2.2250738585072014",
    "0.00000000000000000000000000001 + x",
    # integers at the native core's limit (15 digits) and past it
    "123456789012345x", "1234567890123456x", "000000000000000000001x", "999999999999999",
    "0" * 31 + "1x", "0" * 32 + "1x", "0" * 700 + "1x + 2x", "0" * 4300 + "1", "x + -0.0",
    # a product of exactly -2^63, and an infinite float
    "1099511627776 * -8388608", "1" + "0" * 309 + ".0 + x", "x * 1" + "0" * 309 + ".0",
    "4x + -0.0", "-0.0 * x", "x^-0.0", "x\ud800", "\ud800",
    # nested powers, division chains, factorials, functions, equations
    "x^(-2)", "x^-2", "2^0.5", "x / y / z", "x / (y / z)", "(x / y) / z", "3!", "-3!", "3!x",
    "x!", "(3)!", "sgn(x) + 2", "sgnx", "sgn(-x)", "sgn(x + 1)^2", "abs(x)", "x = y + 1 = 2",
    "x = -3", "2 = 3", "[x + 1] * 2", "4x \u2013 2",
    # association
    "2 - 3 - 4", "2 - (3 - 4)", "2 + (3 + 4)", "(2 + 3) + 4", "2 * (3 * 4)", "2 * 3 * 4",
    "x * (y + z)^2", "(x + y)(x - y)", "4x * 2y^2 * 7q", "h^4 * 10f^3 * f^3",
    # malformed
    ".", "1..2", "x + ", "", "   ", "x y z", "()", "(x", "x)", "x ^", "^x", "x = ", "* x",
    "2 * * 3", "x ! y", "x$", "\u00e9", "x\ty\nz", "X + x", "Zy^2",
    # node caps and depth
    " + ".join(f"{k}x" for k in range(1, 129)),
    "(" * 60 + "x" + ")" * 60,
    "(" * 200 + "x" + ")" * 200,
    "x" + "^x" * 120,
]

CHARACTERS = list("0123456789.xyzXab+-*/^!()[]= ") + ["sgn(", "\u2013"]
NUMBERS = ["0", "1", "2", "3", "7", "10", "12", "100", "0.5", "1.5", "2.0", "0.25",
           "0.0000001", "123.456", "123456789.0", "31622", "99999"]


def _grammar_text(rng: random.Random, depth: int = 0) -> str:
    if depth > 4 or rng.random() < 0.3:
        pick = rng.random()
        if pick < 0.4:
            return rng.choice(NUMBERS)
        if pick < 0.8:
            return rng.choice("xyzab")
        return rng.choice(["2x", "3y^2", "x^2", "-x", "4x^3", "x^0.5"])
    left, right = _grammar_text(rng, depth + 1), _grammar_text(rng, depth + 1)
    shape = rng.random()
    if shape < 0.2:
        left = f"({left})"
    elif shape > 0.8:
        right = f"({right})"
    operators = [" + ", " - ", " * ", " / ", "^", ""] + ([" = "] if depth == 0 else [])
    text = left + rng.choice(operators) + right
    if rng.random() < 0.1:
        text = "-" + text
    elif rng.random() < 0.05:
        text = f"sgn({text})"
    return text


def grammar_texts(count: int, seed: int) -> List[str]:
    rng = random.Random(seed)
    return [_grammar_text(rng) for _ in range(count)]


def random_strings(count: int, seed: int) -> List[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(CHARACTERS) for _ in range(rng.randint(1, 14)))
            for _ in range(count)]


def recorded_texts() -> List[str]:
    texts: List[str] = []
    for episode in json.loads((DATA / "trajectories.json").read_text()):
        texts.extend(step["text"] for step in episode["steps"])
    return texts


def played_texts(episodes: int, seed: int, tasks: Tuple[str, ...] = ()) -> List[str]:
    """The texts of seeded masked random play on every built-in env (or those
    of `tasks`, names of ENV_TASKS) and difficulty."""
    texts: List[str] = []
    rng = np.random.default_rng(seed)
    for task, env_class in ENV_TASKS.items():
        if tasks and task not in tasks:
            continue
        for difficulty in MathyEnvDifficulty:
            env = env_class(seed=int(rng.integers(2**31)))
            for _ in range(episodes):
                state, _ = env.get_initial_state(MathyEnvProblemArgs(difficulty=difficulty))
                for _ in range(state.max_moves):
                    texts.append(state.agent.problem)
                    valid = np.argwhere(np.asarray(env.get_valid_moves(state)))
                    if not len(valid):
                        break
                    rule, node = valid[int(rng.integers(len(valid)))]
                    state, _, _ = env.get_next_state(state, (int(rule), int(node)))
                    if env.is_terminal_state(state):
                        texts.append(state.agent.problem)
                        break
    return texts


# -- the comparison -------------------------------------------------------------------


def _mathy_core_tree(text: str) -> Optional[MathExpression]:
    try:
        return ExpressionParser().parse(text)
    except Exception:  # mathy_core raises several kinds (RecursionError too)
        return None


def assert_same_tree(built: MathExpression, parsed: MathExpression, text: str) -> None:
    """Node for node, as the docstring says; node ids in the same order."""
    positions: Dict[int, int] = {}
    built_nodes = built.to_list("preorder")
    parsed_nodes = parsed.to_list("preorder")
    assert len(built_nodes) == len(parsed_nodes), text
    for position, node in enumerate(parsed_nodes):
        positions.setdefault(id(node), position)
    built_positions: Dict[int, int] = {}
    for position, node in enumerate(built_nodes):
        built_positions.setdefault(id(node), position)

    def where(node: Optional[MathExpression], table: Dict[int, int]) -> Optional[int]:
        return None if node is None else table[id(node)]

    for mine, theirs in zip(built_nodes, parsed_nodes):
        assert type(mine) is type(theirs), text
        assert list(mine.__dict__) == list(theirs.__dict__), text  # in the same order
        for name in ("left", "right", "parent", "child"):
            if name in theirs.__dict__:
                assert where(mine.__dict__[name], built_positions) == where(
                    theirs.__dict__[name], positions
                ), (text, name)
        for name, value in theirs.__dict__.items():
            if name in ("left", "right", "parent", "child", "id", "classes"):
                continue
            other = mine.__dict__[name]
            assert type(other) is type(value), (text, name)
            if type(value) is float:
                assert (math.isnan(value) and math.isnan(other)) or (
                    value == other and math.copysign(1, value) == math.copysign(1, other)
                ), (text, name, value, other)
            else:
                assert other == value, (text, name)
        assert mine.classes == [mine.id], text
    # The ids are numbered in the same order as mathy_core numbers them.
    assert np.argsort([int(n.id[3:]) for n in built_nodes]).tolist() == np.argsort(
        [int(n.id[3:]) for n in parsed_nodes]
    ).tolist(), text


def compare(text: str) -> bool:
    """Check the native core on `text`; whether it accepted the text."""
    expected = _mathy_core_tree(text)
    parsed = native.Expression.parse(text)
    if parsed is None:
        return False
    assert expected is not None, f"the native core accepts {text!r}, which mathy_core rejects"
    printed = str(expected)
    assert parsed.text() == printed, (text, parsed.text(), printed)
    nodes = expected.to_list("inorder")
    assert parsed.type_ids() == [node.type_id for node in nodes], text
    for preferred in (False, True):
        rules = core_rules(preferred)
        cells = bytes(int(rule.can_apply_to(node)) for rule in rules for node in nodes)
        if parsed.mask(preferred) != cells:
            got = np.frombuffer(parsed.mask(preferred), np.int8).reshape(len(rules), -1)
            want = np.frombuffer(cells, np.int8).reshape(len(rules), -1)
            raise AssertionError(
                f"{text!r} (preferred={preferred}): (rule, node) cells that differ: "
                f"{np.argwhere(got != want).tolist()[:10]}"
            )
    root, built = parsed.build(KINDS, 0)
    assert_same_tree(built[root], expected, text)
    # The layout's walk (mathy_envs._engine.walk.walk_tree), the in-order nodes as
    # the built tree's.
    order, *walked = parsed.walk()
    expected_walk = walk_tree(expected)
    # repr tells a negative zero from a zero.
    assert repr(walked) == repr(list(expected_walk[1:])), text
    assert [built[index] for index in order] == built[root].to_list("inorder"), text
    # The goal check of the simplify tasks: mathy_core's answer, or None where
    # mathy_core raises (or the native core leaves it to mathy_core).
    verdict = parsed.simplified()
    wanted = _mathy_core_simplified(expected)
    assert verdict == wanted or (verdict is None and wanted is not None), (text, verdict, wanted)
    # The goal check of PolyGroupLikeTerms: terms.py's answer, or None where the
    # Python path answers (or raises).
    grouped = parsed.like_terms_grouped()
    wanted_grouped = _python_grouped(expected)
    assert grouped == wanted_grouped or grouped is None, (text, grouped, wanted_grouped)
    # The goal of PolyHaystackLikeTerms and its lose signal: terms.py's term
    # positions, or None where the Python path answers (or raises).
    positions = parsed.like_term_positions()
    wanted_positions = _python_positions(nodes)
    assert positions == wanted_positions or positions is None, (text, positions, wanted_positions)
    assert (positions is None) == (grouped is None), text
    compare_values(parsed, expected, text)
    # Admission (limits, safety, equations) reads the native core's look at the
    # nodes as it reads mathy_core's tree.
    assert _admitted(text, built[root], parsed) == _admitted(text, expected, None), text
    return True


def _admitted(text: str, tree: MathExpression, parsed: object) -> object:
    """What `admit` makes of `text` (with the native core's parse `parsed`, or
    None): its verdicts, or the error it raises."""
    entry = ParsedExpression(text, tree)
    entry.native = parsed
    try:
        admit(entry)
    except ValueError as error:
        return str(error)
    return entry.safe, entry.has_equation


def compare_values(parsed: object, tree: MathExpression, text: str) -> Optional[bool]:
    """The native evaluator gives values.py's values at the points, for both
    degrees a variable can have; None where it leaves the tree to values.py."""
    answered = None
    # The degree of the variables in the value checks (masks.remove_unsound).
    assert parsed.variable_powers() == (root_denominators(tree) != 1), text  # type: ignore[attr-defined]
    if parsed.point_values(((1,) * 52,), ROOT_DENOMINATORS) is not None:  # type: ignore[attr-defined]
        # What admission reads as "defined" (admission.defined_natively).
        check_defined(tree, text)
    for roots in (1, ROOT_DENOMINATORS):
        check = ValueCheck(tree, text)
        check._roots = roots
        native_values = parsed.point_values(  # type: ignore[attr-defined]
            check._variable_points(parsed.variables()), roots  # type: ignore[attr-defined]
        )
        if native_values is None:
            continue
        try:
            wanted = list(point_values(tree, text, "decimal", roots=roots))
        except ValueError:  # Undefined too: the native evaluator must have refused
            raise AssertionError(f"{text!r}: values.py raises where the native core answers")
        assert native_values == wanted, (text, roots, native_values, wanted)
        answered = True
    symbol = parsed.symbolic_value(_symbolic_prefix(text))  # type: ignore[attr-defined]
    if symbol is not None:
        assert symbol == _symbolic_value(tree, text), text
    return answered


def _symbolic_prefix(seed: str) -> str:
    """The start of every hash key of `same_expression`'s evaluator for `seed`."""
    return f"{seed}\x00symbolic\x00decimal\x00"


def _symbolic_value(tree: MathExpression, seed: str) -> int:
    """values.py's symbolic value of `tree` (see `same_expression`); an
    AssertionError where values.py raises and the native core answered."""
    try:
        return _Evaluator(f"{seed}\x00symbolic", "decimal", symbolic=True).evaluate(tree)[0]
    except ValueError:
        raise AssertionError(f"{seed!r}: values.py raises where the native core answers")


def _python_grouped(tree: MathExpression) -> Optional[bool]:
    """terms.py's `like_terms_grouped(tree)`, or None where it raises."""
    try:
        return like_terms_grouped(tree)
    except Exception:  # mathy_core's get_term asserts on what it does not expect
        return None


def _python_positions(nodes: List[MathExpression]) -> Optional[Tuple[List[int], List[int]]]:
    """terms.py's `like_term_indexes` and `term_indexes` of in-order `nodes`,
    or None where they raise."""
    try:
        return like_term_indexes(nodes), term_indexes(nodes)
    except Exception:  # mathy_core's get_term asserts on what it does not expect
        return None


def _mathy_core_simplified(tree: MathExpression) -> Optional[bool]:
    """mathy_core's `is_simplified(tree)`, or None where it raises."""
    try:
        return is_simplified(tree)
    except Exception:  # mathy_core asserts, and raises on links it does not expect
        return None


def _mathy_core_rewrite(
    text: str, rule: int, node: int
) -> Optional[Tuple[str, Optional[bool], MathExpression]]:
    """mathy_core's `apply_to` of core rule `rule` at in-order node `node` of a
    fresh parse of `text`, printed from the root, and whether that text parses
    back to the rule's own tree (`same_tree`; None where it does not parse), and
    that tree; None where the rule raises."""
    tree = ExpressionParser().parse(text)
    try:
        with np.errstate(all="ignore"):
            change = core_rules()[rule].apply_to(tree.to_list("inorder")[node])
            assert change.result is not None
            result = change.result.get_root()
            printed = str(result)
    except Exception:  # mathy_core raises several kinds, RecursionError too
        return None
    try:
        reads_back: Optional[bool] = same_tree(result, ExpressionParser().parse(printed))
    except Exception:
        reads_back = None
    return printed, reads_back, result


def compare_rewrites(text: str, counts: Dict[str, int]) -> None:
    """Every rewrite the native core writes for `text` is mathy_core's text."""
    parsed = native.Expression.parse(text)
    if parsed is None:
        return
    count = len(parsed)
    cells = parsed.mask(False), parsed.mask(True)
    check = ValueCheck(_mathy_core_tree(text), text)  # type: ignore[arg-type]
    for rule in range(len(CORE_RULE_TYPES)):
        for node in range(count):
            if not (cells[0][rule * count + node] or cells[1][rule * count + node]):
                assert parsed.apply(rule, node) is None, (text, rule, node)
                continue
            written = parsed.apply(rule, node)
            if written is None:
                counts["left to mathy_core"] += 1
                continue
            expected = _mathy_core_rewrite(text, rule, node)
            assert expected is not None and written == expected[0], (
                text, rule, node, written, expected
            )
            # Whether the printed text reads back as the rule's own tree (the
            # value checks of masks.keeps_value rely on it).
            reparsed = native.Expression.parse(written)
            if reparsed is not None:
                reads_as = parsed.rewrite_reads_as(rule, node, reparsed)
                assert reads_as == expected[1], (text, rule, node, reads_as, expected[1])
                counts["read back"] += bool(reads_as)
            _compare_rewrite_values(parsed, rule, node, expected[2], check)
            counts["written"] += 1
    compare_move_checks(text, parsed, counts)


class _PythonOnly(ExpressionParser):
    """A parser the library never hands to the native core."""


def compare_move_checks(text: str, parsed: object, counts: Dict[str, int]) -> None:
    """The native core's check of every move (`check_moves`, which the masks of
    expressions that are not safe and the batch kernel read) is
    masks.keeps_value's on mathy_core's trees alone, wherever it answers, on
    the expressions that are not safe (the others' moves are never checked)."""
    expressions = ExpressionCache(_PythonOnly())
    try:
        entry = expressions.parse(text)
    except ValueError:
        return  # outside the library's limits: no move of it is ever checked
    assert entry.native is None
    if entry.safe:
        return
    verdicts = parsed.check_moves(text, False, list(MOVE_LIMITS))  # type: ignore[attr-defined]
    candidates = parsed.mask(False)  # type: ignore[attr-defined]
    rules = core_rules()
    count = len(parsed)  # type: ignore[arg-type]
    for cell, verdict in enumerate(verdicts):
        if not candidates[cell]:
            assert verdict == 0, (text, cell)
            continue
        if verdict == 2:
            counts["check left"] += 1
            continue
        rule, node = divmod(cell, count)
        wanted = keeps_value(
            rules[rule], node, entry, expressions, lambda: ExpressionParser().parse(text)
        )
        assert bool(verdict) == wanted, (text, rule, node, verdict, wanted)
        counts["checked"] += 1
        counts["check broke"] += not wanted


def _compare_rewrite_values(
    parsed: object, rule: int, node: int, rewritten: MathExpression, check: ValueCheck
) -> None:
    """The native core's values of the rule's own tree (`rewrite_values`, which
    the value checks of masks.keeps_value read) are values.py's; `check` is a
    `ValueCheck` of the text."""
    text = check.seed
    points = check._variable_points(parsed.variables())  # type: ignore[attr-defined]
    made = parsed.rewrite_values(  # type: ignore[attr-defined]
        rule, node, points, check.roots, _symbolic_prefix(text)
    )
    assert made is not None, (text, rule, node)
    own_values, own_symbol = made
    if own_values is not None:
        try:
            wanted = [
                _Evaluator(f"{text}\x00{point}", "decimal", roots=check.roots).evaluate(
                    rewritten
                )[0]
                for point in range(POINTS)
            ]
        except ValueError:
            raise AssertionError(f"{text!r}: values.py raises where the native core answers")
        # Variables the text lacks have no value at the native core's points.
        assert own_values == wanted, (text, rule, node)
    if own_symbol is not None:
        assert own_symbol == _symbolic_value(rewritten, text), (text, rule, node)


def check_rewrites(texts: Iterator[str]) -> Dict[str, int]:
    counts = {
        "written": 0, "left to mathy_core": 0, "read back": 0, "checked": 0, "check left": 0,
        "check broke": 0,
    }
    for text in dict.fromkeys(texts):
        compare_rewrites(text, counts)
    return counts


def check_all(texts: Iterator[str]) -> Dict[str, int]:
    seen: Set[str] = set()
    counts = {"accepted": 0, "refused": 0}
    for text in texts:
        if text in seen:
            continue
        seen.add(text)
        counts["accepted" if compare(text) else "refused"] += 1
    return counts


# -- the samples ------------------------------------------------------------------------


def test_the_hazards() -> None:
    counts = check_all(iter(HAZARDS))
    # Most of them are within the native core's reach.
    assert counts["accepted"] >= 70, counts


def test_the_recorded_trajectories() -> None:
    counts = check_all(iter(recorded_texts()))
    assert counts["refused"] == 0, counts  # generated problems are all within reach


def test_random_play_on_every_env() -> None:
    counts = check_all(iter(played_texts(episodes=2, seed=0)))
    assert counts["accepted"] > 500 and counts["refused"] < counts["accepted"] // 10, counts


def test_grammar_texts_and_random_strings() -> None:
    counts = check_all(iter(grammar_texts(1500, seed=0) + random_strings(1500, seed=0)))
    assert counts["accepted"] > 700, counts


def test_the_native_hash_is_blake2b_of_values_py() -> None:
    rng = random.Random(5)
    for size in list(range(0, 300)) + [1000, 4000]:
        key = "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(size))
        digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
        assert native.key_hash(key) == int.from_bytes(digest, "big") % (PRIME - 1) + 1, size


def test_the_goal_check_is_native_on_played_texts() -> None:
    # `simplified` leaves only what mathy_core would raise on, and printed
    # exponents that are not a constant or a variable, to mathy_core.
    texts = list(dict.fromkeys(played_texts(episodes=2, seed=3)))
    parsed = [native.Expression.parse(text) for text in texts]
    answers = [p.simplified() for p in parsed if p is not None]
    assert len(answers) > 500 and answers.count(None) == 0, len(answers)
    assert answers.count(True) > 0 and answers.count(False) > 0


def test_the_grouping_goal_is_native_on_played_texts() -> None:
    # `like_terms_grouped` leaves only exponents a double does not hold exactly
    # to the Python path: none in generated texts.
    texts = list(dict.fromkeys(played_texts(episodes=2, seed=3)))
    parsed = [native.Expression.parse(text) for text in texts]
    answers = [p.like_terms_grouped() for p in parsed if p is not None]
    assert len(answers) > 500 and answers.count(None) == 0, len(answers)
    assert answers.count(True) > 0 and answers.count(False) > 0


def test_the_value_checks_are_native_on_played_texts() -> None:
    # Integer polynomials, powers among them: every generated text is within the
    # native evaluator's reach (compare_values checks the values themselves).
    texts = list(dict.fromkeys(played_texts(episodes=1, seed=4)))
    answered = [
        compare_values(parsed, _mathy_core_tree(text), text)  # type: ignore[arg-type]
        for text in texts
        if (parsed := native.Expression.parse(text)) is not None
    ]
    assert len(answered) > 250 and answered.count(None) == 0, len(answered)


def test_rewrites_of_played_texts_and_the_hazards() -> None:
    # Every fourth text of the played episodes, and the hazards but the long
    # ones (each rewrite of a long text is checked on a fresh mathy_core parse):
    # the slow job checks them all.
    short = [text for text in HAZARDS if len(text) <= 200]
    counts = check_rewrites(iter(played_texts(episodes=1, seed=0)[::4] + short))
    assert counts["written"] > 1200 and counts["left to mathy_core"] < counts["written"] // 20, (
        counts
    )
    assert counts["read back"] > counts["written"] // 2, counts
    assert counts["checked"] > 30 and counts["check broke"] > 0, counts


def test_move_checks_of_played_texts_that_are_not_safe() -> None:
    # The envs whose expressions are often not safe (powers of sums, larger
    # constants): every move the native core checks is checked as the Python
    # path checks it, and it leaves none of them to Python.
    counts = check_rewrites(iter(played_texts(episodes=4, seed=6, tasks=("complex", "binomial"))))
    assert counts["checked"] > 250 and counts["check left"] == 0, counts


def test_rewrites_of_grammar_texts() -> None:
    counts = check_rewrites(iter(grammar_texts(600, seed=1)))
    assert counts["written"] > 1500, counts


def test_no_rewrite_outside_the_mask_or_the_tree() -> None:
    parsed = native.Expression.parse("4x + 2x")
    assert parsed is not None
    for rule, node in ((0, 0), (3, 0), (-1, 3), (7, 3), (3, -1), (3, 5), (3, 99)):
        assert parsed.apply(rule, node) is None
    assert parsed.apply(3, 3) == "(4 + 2) * x"


@pytest.mark.slow
def test_rewrites_of_the_recorded_trajectories() -> None:
    counts = check_rewrites(iter(recorded_texts()))
    assert counts["written"] > 20000 and counts["left to mathy_core"] == 0, counts


@pytest.mark.slow
def test_rewrites_of_every_hazard() -> None:
    counts = check_rewrites(iter(HAZARDS))
    assert counts["written"] > 600, counts


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_rewrites_of_bigger_samples(seed: int) -> None:
    counts = check_rewrites(
        iter(played_texts(episodes=4, seed=seed + 10) + grammar_texts(6000, seed=seed + 10))
    )
    assert counts["written"] > 40000, counts


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_bigger_samples(seed: int) -> None:
    counts = check_all(
        iter(played_texts(episodes=10, seed=seed + 1)
             + grammar_texts(25000, seed=seed + 1) + random_strings(10000, seed=seed + 1))
    )
    assert counts["accepted"] > 10000, counts


# -- the library's use of it ----------------------------------------------------------


def test_the_library_parser_and_a_plain_one_read_as_native() -> None:
    assert reads_as_native(new_parser()) and reads_as_native(ExpressionParser())


def test_texts_without_a_native_reading_go_to_mathy_core() -> None:
    parser = new_parser()
    # No UTF-8 form, not a str, and integers whose leading zeros Python's int()
    # may count against its digit limit.
    for text in ("x\ud800", b"4x + 2", bytearray(b"4x"), "0" * 700 + "1x + 2x"):
        assert native_tree(parser, text) is None  # type: ignore[arg-type]


def test_a_changed_parser_is_parsed_by_mathy_core() -> None:
    class Subclass(ExpressionParser):
        pass

    patched = ExpressionParser()
    patched.parse_add = lambda: None  # type: ignore[method-assign, assignment]
    with_function = new_parser()
    with_function.tokenizer.functions = {**with_function.tokenizer.functions, "abs": KINDS[0]}
    padded = ExpressionParser()
    padded.tokenizer.exclude_padding = False
    for parser in (Subclass(), patched, with_function, padded):
        assert not reads_as_native(parser)
        assert native_tree(parser, "4x + 2") is None


@pytest.mark.skipif(CORE != "native", reason="MATHY_ENVS_CORE chose the pure-Python core")
def test_native_tree_is_a_fresh_tree_each_time() -> None:
    parser = new_parser()
    first, second = native_tree(parser, "4x + 2y"), native_tree(parser, "4x + 2y")
    assert first is not None and second is not None and first is not second
    assert not {id(n) for n in first.to_list()} & {id(n) for n in second.to_list()}


def test_the_core_in_use_parses_the_library_texts() -> None:
    # With the native core in use, the library's caches keep its parse (whose
    # mask the core rules use); with the pure-Python core, they never do.
    entry = ExpressionCache().parse("4x + 2y + 2x")
    assert (entry.native is not None) == (CORE == "native")
    assert str(entry.tree) == "4x + 2y + 2x" and len(entry) == 11


def test_every_core_rule_type_is_checked() -> None:
    # The mask rows compared above are exactly the seven core rules, in action order.
    assert [type(rule) for rule in core_rules()] == list(CORE_RULE_TYPES)
    assert native.CORE_RULES == len(CORE_RULE_TYPES)
