"""The built-in environments, every task of `ENV_TASKS`.

Expected values are derived independently of `mathy_envs`: problems are re-parsed
with a fresh mathy_core `ExpressionParser`, terms are counted with `get_terms`,
likeness comes from mathy_core's `terms_are_like`, the goals are recomputed from
their documented definitions, and the difficulty ranges, namespaces and move budgets are
copied from the documented table (not from the env modules).

Every test is parametrized from `ENV_TASKS`; what a test needs to know of one env
is keyed by its task name (`FAMILIES`, `HAND_MADE`, `EPISODES`), and a registered
task with no entry fails with a message saying what to add.
"""

import json
import math
import random
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple, Type

import numpy as np
import pytest
from helpers import (
    CORE_RULE_TYPES,
    ENV_DIFFICULTY_CASES,
    is_last,
    is_mid,
    random_play_states,
    rule_index,
    run_python,
    valid_actions,
)
from oracles import factor_out_anywhere, like_pairs, parse, simplified
from mathy_core import (
    AddExpression,
    ConstantExpression,
    MathExpression,
    MultiplyExpression,
    PowerExpression,
    SubtractExpression,
    VariableExpression,
    get_term_ex,
    get_terms,
)
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from mathy_envs import MathyEnv, MathyEnvState
from mathy_envs.env import UNREAD_TREE
from mathy_envs.envs import (
    ENV_TASKS,
    MATHY_BUILTIN_ENVS,
    BinomialDistribute,
    ComplexSimplify,
    PolyCombineInPlace,
    PolyCommuteLikeTerms,
    PolyGroupLikeTerms,
    PolyHaystackLikeTerms,
    PolySimplify,
    PolySimplifyBlockers,
)
from mathy_envs.envs.goal import GoalEnv
from mathy_envs.time_step import TimeStep
from mathy_envs.types import (
    EnvRewards,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)

EASY, NORMAL, HARD = MathyEnvDifficulty.easy, MathyEnvDifficulty.normal, MathyEnvDifficulty.hard
MAX_SEQ_LEN = 128
PROBLEMS_PER_CASE = 300


# -- independent oracles ------------------------------------------------------------


def summands(tree: MathExpression) -> List[MathExpression]:
    """The terms of a sum, left to right: the nodes reached from the root through
    add and subtract nodes only (a factored `(4 + 2) * x` is one term)."""
    out: List[MathExpression] = []

    def walk(node: Optional[MathExpression]) -> None:
        if isinstance(node, (AddExpression, SubtractExpression)):
            walk(node.left)
            walk(node.right)
        elif node is not None:
            out.append(node)

    walk(tree.get_root())
    return out


def kind(term: MathExpression) -> Tuple[Tuple[str, Optional[float]], ...]:
    """What makes terms alike, read off the tree: each variable with the constant
    it is raised to. Constants are ignored, so `4x`, `x * 4` and the factored
    `(4 + 2) * x` are one kind, and plain constants are another."""
    signature = []
    for var in term.find_type(VariableExpression):
        exponent = None
        parent = var.parent
        if (
            isinstance(parent, PowerExpression)
            and parent.left is var
            and isinstance(parent.right, ConstantExpression)
        ):
            exponent = parent.right.value
        signature.append((str(var.identifier), exponent))
    return tuple(sorted(signature))


def grouped(tree: MathExpression) -> bool:
    """Each kind of term forms one contiguous run."""
    kinds = [kind(term) for term in summands(tree)]
    for i in range(len(kinds)):
        for k in range(i + 2, len(kinds)):
            if kinds[i] == kinds[k] and any(kinds[j] != kinds[i] for j in range(i + 1, k)):
                return False
    return True


def inorder_index(tree: MathExpression) -> Dict[int, int]:
    return {id(node): index for index, node in enumerate(tree.to_list("inorder"))}


def term_node_indexes(tree: MathExpression) -> List[int]:
    where = inorder_index(tree)
    return sorted(where[id(term)] for term in summands(tree))


def like_term_node_indexes(tree: MathExpression) -> List[int]:
    where = inorder_index(tree)
    terms = summands(tree)
    return sorted(
        {where[id(terms[k])] for pair in like_pairs(terms) for k in pair}
    )


def haystack_lose_reward(previous_text: str, node_index: int) -> float:
    """LOSE - min(1, distance / max_term_index), indexes in the acted-on expression."""
    tree = parse(previous_text)
    likes = like_term_node_indexes(tree)
    terms = term_node_indexes(tree)
    if not likes:
        return EnvRewards.LOSE
    distance = min(abs(node_index - like) for like in likes)
    return EnvRewards.LOSE - min(1.0, distance / max(terms))


# -- the documented table -----------------------------------------------------------------

Check = Callable[[MathyEnv, MathyEnvState, MathyEnvProblem, MathyEnvDifficulty], int]


@dataclass(frozen=True)
class Family:
    cls: Type[MathyEnv]
    namespace: str
    ranges: Dict[MathyEnvDifficulty, Tuple[int, int]]
    """The documented range of the knob `check` returns (terms, blockers, k, factors)."""
    max_moves: Callable[[int], int]
    check: Check
    won: Callable[[str, Tuple[int, int], str], bool]
    """Whether the state after `action` was applied to `previous` (text) is won."""


def check_simplify(
    env: MathyEnv, state: MathyEnvState, problem: MathyEnvProblem, d: MathyEnvDifficulty
) -> int:
    tree = parse(problem.text)
    terms = get_terms(tree)
    assert problem.complexity == len(terms), problem
    assert like_pairs(terms), problem  # some group of like terms
    assert not simplified(tree), problem
    return len(terms)


def check_blockers(
    env: MathyEnv, state: MathyEnvState, problem: MathyEnvProblem, d: MathyEnvDifficulty
) -> int:
    tree = parse(problem.text)
    terms = get_terms(tree)
    pairs = like_pairs(terms)
    assert len(pairs) == 1, problem  # one like pair, everything else unlike
    (i, j), n = pairs[0], len(terms)
    blockers = j - i - 1
    assert problem.complexity == n, problem
    if (i, j) == (0, n - 1):  # the pair alone around the blockers
        assert problem.complexity == blockers + 2, problem
    else:  # the pair inside a four-term frame
        assert (i, j) == (1, n - 2), problem
        assert problem.complexity == blockers + 4, problem
    if blockers > 1:  # the blockers form one parenthesized group
        assert problem.text.count("(") == 1, problem
        inner = problem.text[problem.text.index("(") + 1 : problem.text.index(")")]
        assert len(get_terms(parse(inner))) == blockers, problem
    assert not simplified(tree), problem
    return blockers


def check_combine(
    env: MathyEnv, state: MathyEnvState, problem: MathyEnvProblem, d: MathyEnvDifficulty
) -> int:
    tree = parse(problem.text)
    terms = get_terms(tree)
    assert problem.complexity == len(terms), problem
    pairs = like_pairs(terms)
    assert len(pairs) == 1, problem
    i, j = pairs[0]
    assert j == i + 1, problem  # the pair is adjacent
    # winnable in two moves: factor out, then simplify constants
    factor = rule_index(env, DistributiveFactorOutRule)
    constants = rule_index(env, ConstantsSimplifyRule)
    mask = env.get_valid_moves(state)
    wins = 0
    for node in [n for n, ok in enumerate(mask[factor]) if ok]:
        middle, step, _ = env.get_next_state(state, (factor, node))
        assert is_mid(step), (problem, middle.agent.problem)
        row = env.get_valid_moves(middle)[constants]
        for node2 in [n for n, ok in enumerate(row) if ok]:
            end, step, _ = env.get_next_state(middle, (constants, node2))
            assert is_last(step)  # two moves is the whole budget
            if simplified(parse(end.agent.problem)):
                assert step.reward == env.get_win_signal(end) > 1.0
                wins += 1
            else:
                assert step.reward == EnvRewards.LOSE
    assert wins > 0, problem
    return len(terms)


def check_commute(
    env: MathyEnv, state: MathyEnvState, problem: MathyEnvProblem, d: MathyEnvDifficulty
) -> int:
    tree = parse(problem.text)
    terms = get_terms(tree)
    pairs = like_pairs(terms)
    assert len(pairs) == 1, problem
    i, j = pairs[0]
    k = j - i - 1
    assert problem.complexity == k + 1, problem
    assert not factor_out_anywhere(tree), problem
    return k


def check_group(
    env: MathyEnv, state: MathyEnvState, problem: MathyEnvProblem, d: MathyEnvDifficulty
) -> int:
    tree = parse(problem.text)
    terms = get_terms(tree)
    assert problem.complexity == len(terms), problem
    assert like_pairs(terms), problem
    assert not grouped(tree), problem  # some kind of term is split
    return len(terms)


def check_haystack(
    env: MathyEnv, state: MathyEnvState, problem: MathyEnvProblem, d: MathyEnvDifficulty
) -> int:
    tree = parse(problem.text)
    terms = get_terms(tree)
    assert problem.complexity == 2, problem
    assert len(like_pairs(terms)) == 1, problem
    mask = np.asarray(env.get_valid_moves(state))
    term_nodes = term_node_indexes(tree)
    likes = like_term_node_indexes(tree)
    assert len(term_nodes) == len(terms) and len(likes) == 2
    for node in term_nodes:  # every term node has a valid action
        assert mask[:, node].any(), (problem, node)
    for node in likes:  # acting at either like term wins at once
        rule = int(np.flatnonzero(mask[:, node])[0])
        after, step, _ = env.get_next_state(state, (rule, node))
        assert is_last(step), (problem, node)
        assert step.reward == env.get_win_signal(after) == 2.0
    unlike = [node for node in term_nodes if node not in likes][0]
    rule = int(np.flatnonzero(mask[:, unlike])[0])
    _, step, _ = env.get_next_state(state, (rule, unlike))
    assert is_mid(step), (problem, unlike)
    return len(terms)


def check_complex(
    env: MathyEnv, state: MathyEnvState, problem: MathyEnvProblem, d: MathyEnvDifficulty
) -> int:
    tree = parse(problem.text)
    assert isinstance(tree, MultiplyExpression), problem
    factors = [piece.strip() for piece in problem.text.split("*")]
    for factor in factors:  # each factor is one simple term such as 4x or 2y^2
        assert get_term_ex(parse(factor)) is not None, problem
    assert problem.complexity == len(factors), problem
    assert not simplified(tree), problem
    return len(factors)


def check_binomial(
    env: MathyEnv, state: MathyEnvState, problem: MathyEnvProblem, d: MathyEnvDifficulty
) -> int:
    tree = parse(problem.text)
    assert isinstance(tree, MultiplyExpression), problem
    assert isinstance(tree.left, AddExpression), problem
    assert get_term_ex(tree.left.left) is not None, problem
    assert get_term_ex(tree.left.right) is not None, problem
    if isinstance(tree.right, AddExpression):  # binomial x binomial
        assert get_term_ex(tree.right.left) is not None, problem
        assert get_term_ex(tree.right.right) is not None, problem
        assert problem.complexity == 4, problem
    else:  # binomial x monomial
        assert get_term_ex(tree.right) is not None, problem
        assert problem.complexity == 3, problem
    if d is not HARD:  # one simple variable and constants
        assert "^" not in problem.text, problem
        names = {str(v.identifier) for v in tree.find_type(VariableExpression)}
        assert len(names) == 1, problem
    assert not simplified(tree), problem
    return problem.complexity


def won_simplified(previous: str, action: Tuple[int, int], text: str) -> bool:
    return simplified(parse(text))


def won_commute(previous: str, action: Tuple[int, int], text: str) -> bool:
    return factor_out_anywhere(parse(text))


def won_group(previous: str, action: Tuple[int, int], text: str) -> bool:
    return grouped(parse(text))


def won_haystack(previous: str, action: Tuple[int, int], text: str) -> bool:
    return action[1] in like_term_node_indexes(parse(previous))


FAMILIES: Dict[str, Family] = {
    "poly": Family(
        PolySimplify,
        "mathy.polynomials.simplify",
        {EASY: (2, 5), NORMAL: (4, 7), HARD: (4, 9)},
        lambda c: c * 4,
        check_simplify,
        won_simplified,
    ),
    "poly-blockers": Family(
        PolySimplifyBlockers,
        "mathy.polynomials.commute_then_simplify",
        {EASY: (1, 2), NORMAL: (2, 4), HARD: (3, 6)},
        lambda c: c * 4,
        check_blockers,
        won_simplified,
    ),
    "poly-combine": Family(
        PolyCombineInPlace,
        "mathy.polynomials.combine.in.place",
        {EASY: (6, 12), NORMAL: (9, 16), HARD: (16, 22)},
        lambda c: 2,
        check_combine,
        won_simplified,
    ),
    "poly-commute": Family(
        PolyCommuteLikeTerms,
        "mathy.polynomials.commute.like.terms",
        {EASY: (1, 2), NORMAL: (2, 3), HARD: (5, 9)},
        lambda c: c * 4,
        check_commute,
        won_commute,
    ),
    "poly-grouping": Family(
        PolyGroupLikeTerms,
        "mathy.polynomials.group_like_terms",
        {EASY: (5, 7), NORMAL: (5, 10), HARD: (11, 16)},
        lambda c: c * 4,
        check_group,
        won_group,
    ),
    "poly-like-terms-haystack": Family(
        PolyHaystackLikeTerms,
        "mathy.polynomials.haystack.like.terms",
        {EASY: (3, 8), NORMAL: (4, 7), HARD: (5, 12)},
        lambda c: c,
        check_haystack,
        won_haystack,
    ),
    "complex": Family(
        ComplexSimplify,
        "mathy.monomials.complex_simplify",
        {EASY: (2, 3), NORMAL: (3, 5), HARD: (4, 7)},
        lambda c: c * 8,
        check_complex,
        won_simplified,
    ),
    "binomial": Family(
        BinomialDistribute,
        "mathy.binomials.mulptiply",
        {EASY: (3, 4), NORMAL: (3, 4), HARD: (3, 4)},
        lambda c: c * 4,
        check_binomial,
        won_simplified,
    ),
}
"""Task name -> the documented row of its environment."""


def documented(task: str) -> Family:
    """The documented row of a registered task; a clear failure when it has none."""
    family = FAMILIES.get(task)
    if family is None:
        pytest.fail(
            f"the registered task {task!r} ({ENV_TASKS[task].__name__}) has no "
            f"documented row: add FAMILIES[{task!r}] to {__file__}"
        )
    assert family.cls is ENV_TASKS[task], (
        f"FAMILIES[{task!r}] documents {family.cls.__name__}, but the task is "
        f"registered for {ENV_TASKS[task].__name__}"
    )
    return family


@pytest.fixture
def family(task: str) -> Family:
    return documented(task)


CASES = ENV_DIFFICULTY_CASES
EASY_CASES = [pytest.param(task, id=env_class.__name__) for task, env_class in ENV_TASKS.items()]


# -- registration, namespaces, rules, budgets ------------------------------------------


def test_builtin_envs_follow_the_registry() -> None:
    # MATHY_BUILTIN_ENVS is derived from ENV_TASKS, the one registry
    assert MATHY_BUILTIN_ENVS == list(ENV_TASKS.values())
    assert len(MATHY_BUILTIN_ENVS) == len(set(MATHY_BUILTIN_ENVS)) == len(ENV_TASKS)
    assert set(MATHY_BUILTIN_ENVS) == {documented(task).cls for task in ENV_TASKS}
    for cls in MATHY_BUILTIN_ENVS:
        assert issubclass(cls, MathyEnv)
    stale = sorted(set(FAMILIES) - set(ENV_TASKS))
    assert not stale, f"FAMILIES documents tasks that are not registered: {stale}"


@pytest.mark.parametrize("task", EASY_CASES)
def test_namespace_rules_and_rewards(family: Family) -> None:
    env = family.cls()
    assert env.get_env_namespace() == family.namespace
    state, problem = env.get_initial_state()
    assert problem.type == family.namespace
    assert state.agent.problem_type == family.namespace
    assert [type(rule) for rule in env.rules] == CORE_RULE_TYPES
    assert env.action_size == len(CORE_RULE_TYPES) * MAX_SEQ_LEN
    rewarding = set(env.get_rewarding_actions(state))
    penalizing = set(env.get_penalizing_actions(state))
    if family.cls is PolyHaystackLikeTerms:
        # every non-subtraction core rule is penalized
        assert penalizing == set(CORE_RULE_TYPES) - {RestateSubtractionRule}
        assert not rewarding & penalizing
    else:  # the MathyEnv defaults
        assert rewarding == {
            RestateSubtractionRule,
            ConstantsSimplifyRule,
            DistributiveFactorOutRule,
            VariableMultiplyRule,
        }
        assert penalizing == {AssociativeSwapRule, DistributiveMultiplyRule}


@pytest.mark.parametrize("task", EASY_CASES)
def test_env_kwargs_pass_through(family: Family) -> None:
    env = family.cls(max_seq_len=64, invalid_action_response="penalize", seed=3)
    assert env.max_seq_len == 64
    assert env.invalid_action_response == "penalize"
    assert env.action_size == len(CORE_RULE_TYPES) * 64


def test_haystack_commutes_preferred_terms_by_default() -> None:
    swap = rule_index(PolyHaystackLikeTerms(), CommutativeSwapRule)
    assert PolyHaystackLikeTerms().rules[swap].preferred is True  # type: ignore[attr-defined]
    text = "4x + 2y + 9k + 3x"
    # in-order: 4 * x + 2 * y + 9 * k + 3 * x -> the term nodes are the four `*`
    env = PolyHaystackLikeTerms()
    mask = np.asarray(env.get_valid_moves(env.state_from_text(text)))
    assert all(mask[:, node].any() for node in (1, 5, 9, 13))
    # without it, commutative swap leaves preferred terms alone and `4x` is stuck
    strict = PolyHaystackLikeTerms(preferred_term_commute=False)
    assert strict.rules[swap].preferred is False  # type: ignore[attr-defined]
    strict_mask = np.asarray(strict.get_valid_moves(strict.state_from_text(text)))
    assert not strict_mask[:, 1].any()


@pytest.mark.parametrize("task", EASY_CASES)
def test_max_moves_follow_the_table(family: Family) -> None:
    env = family.cls()
    for complexity in (1, 2, 3, 7, 12):
        problem = MathyEnvProblem("4x + 2x", complexity, family.namespace)
        for difficulty in MathyEnvDifficulty:
            budget = env.max_moves_fn(problem, MathyEnvProblemArgs(difficulty))
            assert budget == family.max_moves(complexity)


# -- generated problems ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("task,difficulty", CASES)
def test_generated_problems_match_the_table(
    family: Family, difficulty: MathyEnvDifficulty
) -> None:
    env = family.cls(seed=1234)
    args = MathyEnvProblemArgs(difficulty)
    knobs: List[int] = []
    for _ in range(PROBLEMS_PER_CASE):
        state, problem = env.get_initial_state(args)
        assert problem.type == family.namespace
        tree = parse(problem.text)  # parses with a fresh mathy_core parser
        assert len(tree.to_list()) <= MAX_SEQ_LEN, problem
        env.state_to_observation(state, obs_type="flat")  # fits max_seq_len
        assert state.max_moves == family.max_moves(problem.complexity), problem
        assert state.agent.moves_remaining == state.max_moves
        assert state.agent.problem == problem.text
        step = env.get_state_transition(state)
        assert is_mid(step), problem  # not won (nor lost) at its first step
        assert not env.is_terminal_state(state), problem
        assert not family.won(problem.text, (-1, -1), problem.text), problem
        assert valid_actions(env, state), problem
        knobs.append(family.check(env, state, problem, difficulty))
    low, high = family.ranges[difficulty]
    assert set(knobs) == set(range(low, high + 1))


def test_blockers_use_both_shapes() -> None:
    env = PolySimplifyBlockers(seed=5)
    alone = framed = 0
    for _ in range(100):
        terms = get_terms(parse(env.get_initial_state()[1].text))
        ((i, j),) = like_pairs(terms)
        alone += (i, j) == (0, len(terms) - 1)
        framed += (i, j) == (1, len(terms) - 2)
    assert alone > 10 and framed > 10


def test_combine_in_place_is_sometimes_parenthesized() -> None:
    env = PolyCombineInPlace(seed=5)
    texts = [env.get_initial_state()[1].text for _ in range(100)]
    assert 10 < sum("(" in text for text in texts) < 90


def test_binomial_forms_and_hard_features() -> None:
    env = BinomialDistribute(seed=5)
    hard = MathyEnvProblemArgs(HARD)
    problems = [env.get_initial_state(hard)[1] for _ in range(200)]
    assert {p.complexity for p in problems} == {3, 4}
    # hard problems use powers and coefficients on the variables
    assert sum("^" in p.text for p in problems) > 20
    with_coefficient = 0
    for p in problems:
        term = get_term_ex(parse(p.text).left.left)  # type: ignore[union-attr]
        assert term is not None
        with_coefficient += term.coefficient is not None and term.variable is not None
    assert with_coefficient > 20


# -- hand-made wins and non-wins ---------------------------------------------------------

HAND_MADE: Dict[str, List[Tuple[str, bool]]] = {
    "poly": [
        ("4x + 2y", True),
        ("x^2 + x + 3", True),
        ("4x + 2y + x", False),
        ("x * 4 + y", False),
    ],
    "poly-blockers": [
        ("5x + (y + f)", True),
        ("7a + (2f + j) + 5x + 3d", True),
        ("4x + (y + f) + x", False),
        ("7a + 4x + (2f + j) + x + 3d", False),
    ],
    "poly-combine": [
        ("3a + 6x + 5b + 7c + y^2", True),
        ("3a + 4x + 2x + 5b + 7c + y^2", False),
        ("3a + (4 + 2) * x + 5b + 7c + y^2", False),
    ],
    "poly-commute": [
        ("4x + 2x + y", True),
        ("y + 4x + 2x", True),
        ("5b + 7a + 2z + z + 3m", True),
        ("4x + y + 2x", False),
        ("5b + 2z + 7a + 8k + z + 3m", False),
        ("4x + 2y", False),
    ],
    "poly-grouping": [
        ("4x + x + 2y", True),
        ("2y + 4x + x", True),
        ("x^2 + 3x + 5x + 2y + y", True),
        ("4x + (x + 2y)", True),
        ("4x + 2y + x", False),
        ("x^2 + 3x + 5x^2", False),
        ("4x + (2y + x)", False),
        ("3 + x + 4", False),
        ("(4 + 2) * x + y + (3 + 5) * z", True),
        ("(4 + 2) * x + y + 3z + 2y", False),
        ("(4 + 2) * x + y + 3x", False),
        ("3x + (4 + 2) * x + y", True),
        ("x * 4 + x + 2y", True),
    ],
    # won by acting at a like term, not by a text: see the PolyHaystackLikeTerms
    # tests below
    "poly-like-terms-haystack": [],
    "complex": [
        ("56x^2", True),
        ("x^3", True),
        ("4x * 3x", False),
        ("2x * x", False),
        ("x * 4", False),
        ("4x * 2y * 7q", False),
    ],
    "binomial": [
        ("x^2 + 5x + 6", True),
        ("k^2 + 2k", True),
        ("(x + 2)(x + 3)", False),
        ("(k + 2) * k", False),
        ("x^2 + 3x + 2x + 6", False),
        ("x * x + 5x + 6", False),
    ],
}
"""Task name -> texts whose win (or not) is reasoned out by hand."""


@pytest.mark.parametrize("task", EASY_CASES)
def test_every_registered_task_has_hand_made_states(task: str) -> None:
    if task not in HAND_MADE:
        pytest.fail(
            f"the registered task {task!r} has no hand-made states: add "
            f"HAND_MADE[{task!r}] (won and not won texts) to {__file__}"
        )
    cases = HAND_MADE[task]
    if cases:  # an empty list says the task's wins are tested on their own
        assert {wins for _, wins in cases} == {True, False}, task
    stale = sorted(set(HAND_MADE) - set(ENV_TASKS))
    assert not stale, f"HAND_MADE holds tasks that are not registered: {stale}"


@pytest.mark.parametrize(
    "task,text,wins",
    [
        pytest.param(task, text, wins, id=f"{ENV_TASKS[task].__name__}:{text}")
        for task in ENV_TASKS
        for text, wins in HAND_MADE.get(task, [])
    ],
)
def test_hand_made_states(task: str, text: str, wins: bool) -> None:
    # the expectation above is reasoned out by hand; the oracle must agree with it
    assert documented(task).won(text, (-1, -1), text) == wins
    env = ENV_TASKS[task]()
    start = env.state_from_text(text, max_moves=10)
    step = env.get_state_transition(start)
    later = start.get_out_state(text, (1, 0), 6)  # four moves used
    later_step = env.get_state_transition(later)
    if wins:
        assert is_last(step) and step.discount == 0.0
        assert step.reward == env.get_win_signal(start) == 2.0
        assert is_last(later_step)
        assert later_step.reward == pytest.approx(EnvRewards.WIN + 1 / 4)
        assert env.is_terminal_state(later)
    else:
        assert is_mid(step)
        assert step.reward < EnvRewards.WIN
        assert not env.is_terminal_state(start)
        out_of_moves = start.get_out_state(text, (1, 0), 0)
        final = env.get_state_transition(out_of_moves)
        assert is_last(final) and final.reward == EnvRewards.LOSE


def test_built_in_goals_judge_the_unread_tree_as_the_states_own_tree() -> None:
    # The library's own scoring gives its own is_goal UNREAD_TREE instead of the
    # state's tree: every built-in goal must give the verdict it gives on the
    # state's tree (here a fresh mathy_core parse of the text), on the hand-made
    # states (as first states and as the result of a step) and on random play.
    cases: List[Tuple[MathyEnv, MathyEnvState]] = random_play_states(6)
    for task, texts in HAND_MADE.items():
        env = ENV_TASKS[task]()
        for text, _ in texts:
            start = env.state_from_text(text, max_moves=10)
            cases += [(env, start), (env, start.get_out_state(text, (1, 0), 9))]
    verdicts = {True: 0, False: 0}
    for env, state in cases:
        assert isinstance(env, GoalEnv)
        text = state.agent.problem
        verdict = env.is_goal(state, UNREAD_TREE)
        assert verdict == env.is_goal(state, parse(text)), (type(env).__name__, text)
        verdicts[verdict] += 1
    assert verdicts[True] > 10 and verdicts[False] > 100


def test_group_like_terms_win_by_playing() -> None:
    env = PolyGroupLikeTerms()
    swap = rule_index(env, CommutativeSwapRule)
    regroup = rule_index(env, AssociativeSwapRule)
    start = env.state_from_text("4x + 2y + x", max_moves=12)
    # in-order: 4 * x + 2 * y + x; node 3 joins 4x and 2y, node 7 is the root
    state, step, _ = env.get_next_state(start, (regroup, 3))
    assert state.agent.problem == "4x + (2y + x)"
    assert is_mid(step)  # x, y, x: still split
    assert step.reward == EnvRewards.UNHELPFUL_MOVE  # associative swap
    # now node 7 joins 2y and x
    state, step, _ = env.get_next_state(state, (swap, 7))
    assert state.agent.problem == "4x + (x + 2y)"
    assert is_last(step)
    # t = 12 > 10 and c = 2 < 6: 1 + 2 * (1/2)
    assert step.reward == env.get_win_signal(state) == 2.0


def test_group_like_terms_factoring_does_not_hide_a_split_kind() -> None:
    env = PolyGroupLikeTerms()
    factor = rule_index(env, DistributiveFactorOutRule)
    start = env.state_from_text("4x + 2x + y + 3x", max_moves=16)
    # in-order: 4 * x + 2 * x + y + 3 * x; node 3 joins 4x and 2x
    state, step, _ = env.get_next_state(start, (factor, 3))
    assert state.agent.problem == "(4 + 2) * x + y + 3x"
    assert is_mid(step)  # the x terms are still split by y


# -- PolyHaystackLikeTerms: wins and the lose signal ---------------------------------------

HAYSTACK = "4x + 2y + 9k + 3x"
# in-order nodes: 4 * x + 2 * y + 9 * k + 3 * x (indexes 0-14); the term nodes are
# the `*` at 1 (4x), 5 (2y), 9 (9k) and 13 (3x); 4x and 3x are alike.
HAYSTACK_TERMS = [1, 5, 9, 13]
HAYSTACK_LIKES = [1, 13]


def test_haystack_hand_made_node_indexes() -> None:
    tree = parse(HAYSTACK)
    assert term_node_indexes(tree) == HAYSTACK_TERMS
    assert like_term_node_indexes(tree) == HAYSTACK_LIKES


@pytest.mark.parametrize("node", HAYSTACK_LIKES)
def test_haystack_acting_at_a_like_term_wins(node: int) -> None:
    env = PolyHaystackLikeTerms()
    swap = rule_index(env, CommutativeSwapRule)
    start = env.state_from_text(HAYSTACK, max_moves=2)
    assert is_mid(env.get_state_transition(start))  # no action yet: not won
    state, step, _ = env.get_next_state(start, (swap, node))
    assert is_last(step)
    # t = 2, c = 1: 1 + 1/1
    assert step.reward == env.get_win_signal(state) == 2.0


@pytest.mark.parametrize("node", [5, 9])
def test_haystack_acting_at_an_unlike_term_does_not_win(node: int) -> None:
    env = PolyHaystackLikeTerms()
    swap = rule_index(env, CommutativeSwapRule)
    state, step, _ = env.get_next_state(env.state_from_text(HAYSTACK, 2), (swap, node))
    assert is_mid(step)
    assert step.reward == EnvRewards.UNHELPFUL_MOVE  # commutative swap is penalized


def test_haystack_acting_at_a_non_term_node_does_not_win() -> None:
    env = PolyHaystackLikeTerms()
    swap = rule_index(env, CommutativeSwapRule)
    # node 11 is the `+` joining (4x + 2y + 9k) and 3x: next to a like term, not one
    state, step, _ = env.get_next_state(env.state_from_text(HAYSTACK, 2), (swap, 11))
    assert state.agent.problem == "4x + 2y + 3x + 9k"
    assert is_mid(step)


@pytest.mark.parametrize(
    "node,distance", [(5, 4), (9, 4), (3, 2), (7, 6), (11, 2)]
)
def test_haystack_lose_signal_when_moves_run_out(node: int, distance: int) -> None:
    env = PolyHaystackLikeTerms()
    state = env.state_from_text(HAYSTACK, max_moves=1)
    mask = np.asarray(env.get_valid_moves(state))
    rule = int(np.flatnonzero(mask[:, node])[0])
    after, step, _ = env.get_next_state(state, (rule, node))
    assert after.agent.moves_remaining == 0
    assert is_last(step)
    expected = EnvRewards.LOSE - distance / 13  # 13: the largest term index
    assert step.reward == pytest.approx(expected)
    assert step.reward == pytest.approx(haystack_lose_reward(HAYSTACK, node))
    assert env.get_lose_signal(after) == pytest.approx(expected)


MOVED = "4x + 2y + 3x + 9k"
# in-order: 4 * x + 2 * y + 3 * x + 9 * k; terms at 1, 5, 9, 13, likes 1 and 9


def moved_state(env: MathyEnv) -> MathyEnvState:
    swap = rule_index(env, CommutativeSwapRule)
    middle, step, _ = env.get_next_state(env.state_from_text(HAYSTACK, 2), (swap, 11))
    assert middle.agent.problem == MOVED and is_mid(step)
    tree = parse(MOVED)
    assert term_node_indexes(tree) == [1, 5, 9, 13]
    assert like_term_node_indexes(tree) == [1, 9]
    return middle


def test_haystack_win_uses_the_expression_acted_on() -> None:
    env = PolyHaystackLikeTerms()
    swap = rule_index(env, CommutativeSwapRule)
    # node 9 was 9k in the first expression; now it is 3x
    end, step, _ = env.get_next_state(moved_state(env), (swap, 9))
    assert is_last(step)
    assert step.reward == env.get_win_signal(end) > EnvRewards.WIN


def test_haystack_lose_signal_uses_the_expression_acted_on() -> None:
    env = PolyHaystackLikeTerms()
    swap = rule_index(env, CommutativeSwapRule)
    # node 13 was the like term 3x in the first expression; now it is 9k,
    # 4 nodes from the like term 3x at 9
    end, step, _ = env.get_next_state(moved_state(env), (swap, 13))
    assert is_last(step)
    assert step.reward == pytest.approx(EnvRewards.LOSE - 4 / 13)


def test_haystack_lose_signal_is_clipped() -> None:
    env = PolyHaystackLikeTerms(invalid_action_response="terminal")
    state, step, _ = env.get_next_state(env.state_from_text(HAYSTACK, 2), (0, 100))
    assert is_last(step)
    # distance 100 - 13 = 87 is more than the largest term index: clipped to 1
    assert step.reward == pytest.approx(EnvRewards.LOSE - 1.0)


# -- reproducibility ---------------------------------------------------------------------

SEQUENCES_CODE = """
from mathy_envs.envs import MATHY_BUILTIN_ENVS
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs


def sequences():
    out = {}
    for cls in MATHY_BUILTIN_ENVS:
        for difficulty in MathyEnvDifficulty:
            env = cls(seed=11)
            args = MathyEnvProblemArgs(difficulty)
            texts = [env.get_initial_state(args)[1].text for _ in range(12)]
            texts.append(env.get_initial_state(args, seed=99)[1].text)
            out[cls.__name__ + "-" + difficulty.value] = texts
    return out
"""


def sequences_in_process() -> Dict[str, List[str]]:
    namespace: Dict[str, Callable[[], Dict[str, List[str]]]] = {}
    exec(SEQUENCES_CODE, namespace)
    return namespace["sequences"]()


@pytest.mark.parametrize("hash_seed", ["0", "1", "4242"])
def test_same_seed_same_problems_in_every_process(hash_seed: str) -> None:
    here = sequences_in_process()
    assert len(here) == len(ENV_TASKS) * len(MathyEnvDifficulty)
    for texts in here.values():
        assert len(set(texts[:12])) > 1  # the sequence moves on
    code = SEQUENCES_CODE + "\nimport json\nprint(json.dumps(sequences()))\n"
    result = run_python("-c", code, hash_seed=hash_seed, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == here


def test_get_initial_state_seed_restarts_the_sequence() -> None:
    for cls in MATHY_BUILTIN_ENVS:
        env = cls(seed=21)
        first = [env.get_initial_state()[1].text for _ in range(5)]
        again = [env.get_initial_state(seed=21)[1].text]
        again += [env.get_initial_state()[1].text for _ in range(4)]
        assert again == first, cls.__name__


def test_generation_leaves_global_rngs_alone() -> None:
    random.seed(5)
    np.random.seed(5)
    before = (random.getstate(), np.random.get_state())
    texts: List[str] = []
    for cls in MATHY_BUILTIN_ENVS:
        for difficulty in MathyEnvDifficulty:
            env = cls(seed=3)
            texts += [
                env.get_initial_state(MathyEnvProblemArgs(difficulty))[1].text
                for _ in range(10)
            ]
    after = (random.getstate(), np.random.get_state())
    assert before[0] == after[0]
    assert all(np.array_equal(a, b) for a, b in zip(before[1], after[1]))
    # and the global state has no say in the problems
    random.seed(6)
    np.random.seed(6)
    again: List[str] = []
    for cls in MATHY_BUILTIN_ENVS:
        for difficulty in MathyEnvDifficulty:
            env = cls(seed=3)
            again += [
                env.get_initial_state(MathyEnvProblemArgs(difficulty))[1].text
                for _ in range(10)
            ]
    assert again == texts


# -- random play ---------------------------------------------------------------------------


def play_episode(
    env: MathyEnv,
    family: Family,
    rng: np.random.Generator,
    state: MathyEnvState,
    check: bool = True,
) -> Tuple[MathyEnvState, TimeStep, int]:
    """Play uniformly random valid actions to the end of an episode. With `check`,
    every step is checked against the documented rules. Returns the last state and step
    and the number of steps."""
    steps = 0
    while True:
        actions = valid_actions(env, state)
        assert actions, state.agent.problem
        action = actions[int(rng.integers(len(actions)))]
        previous = state.agent.problem
        # a mask-allowed action is never rejected (the env raises on invalid ones)
        state, step, _ = env.get_next_state(state, action)
        steps += 1
        if not check:
            if is_last(step):
                return state, step, steps
            assert state.agent.moves_remaining > 0
            continue
        text = state.agent.problem
        assert state.agent.moves_remaining == state.max_moves - steps
        assert state.agent.history[-1] == (text, action)
        if family.won(previous, action, text):
            assert is_last(step), (previous, action, text)
            assert step.reward == env.get_win_signal(state)
            assert step.reward > EnvRewards.WIN
            return state, step, steps
        if state.agent.moves_remaining <= 0:
            assert is_last(step), (previous, action, text)
            if family.cls is PolyHaystackLikeTerms:
                expected = haystack_lose_reward(previous, action[1])
                assert step.reward == pytest.approx(expected)
            else:
                assert step.reward == EnvRewards.LOSE
            return state, step, steps
        # The problem as generated (`(x + 1)(x + 10)`) is visited again when a
        # move prints it (`(x + 1) * (x + 10)`): it is compared as the env prints it.
        first = state.agent.history[0].raw
        visits = sum(
            1
            for past in state.agent.history
            if (env.printed_text(first) if past.raw == first else past.raw) == text
        )
        if visits > 3:
            assert is_last(step) and step.reward == EnvRewards.LOSE
            return state, step, steps
        assert is_mid(step), (previous, action, text)
        assert step.discount == env.reward_discount


def evaluate(text: str, values: Dict[str, float]) -> float:
    return float(parse(text).evaluate(values))


def same_value(first: str, last: str) -> bool:
    names = {
        str(var.identifier)
        for text in (first, last)
        for var in parse(text).find_type(VariableExpression)
    }
    values = {name: 1.0 + (ord(name) % 11) / 7.0 for name in sorted(names)}
    return math.isclose(evaluate(first, values), evaluate(last, values), rel_tol=1e-9)


RELIABILITY_STEPS = 1000


@pytest.mark.slow
@pytest.mark.parametrize("task,difficulty", CASES)
def test_masked_random_play_is_reliable(
    family: Family, difficulty: MathyEnvDifficulty
) -> None:
    env = family.cls(seed=77, invalid_action_response="raise")
    rng = np.random.default_rng(78)
    args = MathyEnvProblemArgs(difficulty)
    total = episodes = 0
    while total < RELIABILITY_STEPS:
        start, _ = env.get_initial_state(args)
        state, _, steps = play_episode(env, family, rng, start)
        total += steps
        episodes += 1
        assert state.agent.history[0].raw == start.agent.problem
        env.finalize_state(state)  # raises when the value changed
        assert same_value(start.agent.problem, state.agent.problem)
    assert episodes > 1


def test_finalize_state_catches_a_changed_value() -> None:
    env = PolySimplify()
    start = env.state_from_text("4x + 2x", max_moves=10)
    wrong = start.get_out_state("7x", (0, 1), 9)
    with pytest.raises(ValueError):
        env.finalize_state(wrong)
    assert not same_value("4x + 2x", "7x")


# Per-episode win probabilities of a uniform masked random agent on easy problems,
# measured beforehand: PolyCombineInPlace (two specific moves out of ~15-30 valid
# ones each) averages about 0.0047 (exact enumeration over 200 problems, min 0.002);
# every other env wins more than 25% of easy episodes. Counts are chosen so the
# expected number of wins is at least 14, i.e. P(no win) < 1e-6. PolyCombineInPlace
# plays each problem three times (each a whole episode from the initial state) to
# save generating 3000 problems. Every step of random play is checked in
# test_masked_random_play_is_reliable; here only the wins are.
EPISODES: Dict[str, Tuple[int, int]] = {  # task -> (problems, episodes each)
    "poly": (60, 1),
    "poly-blockers": (60, 1),
    "poly-combine": (1000, 3),
    "poly-commute": (40, 1),
    "poly-grouping": (40, 1),
    "poly-like-terms-haystack": (60, 1),
    "complex": (40, 1),
    "binomial": (60, 1),
}


@pytest.mark.parametrize("task", EASY_CASES)
def test_every_registered_task_has_an_episode_count(task: str) -> None:
    if task not in EPISODES:
        pytest.fail(
            f"the registered task {task!r} has no random-play episode count: measure "
            f"its easy win rate and add EPISODES[{task!r}] to {__file__}"
        )
    stale = sorted(set(EPISODES) - set(ENV_TASKS))
    assert not stale, f"EPISODES holds tasks that are not registered: {stale}"


@pytest.mark.slow
@pytest.mark.parametrize("task", EASY_CASES)
def test_seeded_random_agent_wins_some_easy_episodes(task: str, family: Family) -> None:
    env = family.cls(seed=2024)
    rng = np.random.default_rng(2025)
    if task not in EPISODES:
        pytest.fail(f"no EPISODES[{task!r}] (see test_every_registered_task_has_an_episode_count)")
    problems, repeats = EPISODES[task]
    wins = 0
    for _ in range(problems):
        start, _ = env.get_initial_state()
        for _ in range(repeats):
            state, step, _ = play_episode(env, family, rng, start, check=False)
            if step.reward > EnvRewards.WIN:
                wins += 1
                history = state.agent.history
                assert history[0].raw == start.agent.problem
                assert family.won(history[-2].raw, history[-1].action, state.agent.problem)
                env.finalize_state(state)
            else:
                assert step.reward <= EnvRewards.LOSE
    assert wins >= 1
