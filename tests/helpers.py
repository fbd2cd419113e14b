"""Helpers shared by the test modules, imported by name (`from helpers import
is_last`).

Fixtures are in `conftest.py`; independent oracles of values, terms and masks
are in `oracles.py`; the exhaustive win search is in `search.py` and the
recorded winnability proofs in `winnability.py`.
"""

import os
import signal
import subprocess
import sys
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Type

import numpy as np
import pytest

import mathy_envs  # noqa: F401  (before mathy_core: it lets mathy_core import on Python 3.13)
from mathy_core import BaseRule, ConstantExpression, ExpressionParser, MathExpression
from mathy_core.expressions import MathTypeKeys
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from mathy_envs import MathyEnv, MathyEnvState, MathyObservation, ObservationType, envs
from mathy_envs.env import sample_valid_action
from mathy_envs.envs import ENV_TASKS
from mathy_envs.time_step import TimeStep, is_terminal_transition, termination, transition
from mathy_envs.types import (
    ActionType,
    MathyEnvDifficulty,
    MathyEnvProblem,
    MathyEnvProblemArgs,
)

REPO = Path(__file__).resolve().parent.parent
"""The root of this checkout."""

MASKABLE_PPO_SNIPPET = REPO / "snippets" / "gym" / "maskable_ppo.py"
"""The MaskablePPO training example (a run of about two minutes: the
`maskable_ppo_run` fixture makes it once per session)."""

RLLIB_PPO_SNIPPET = REPO / "snippets" / "rllib" / "train_ppo_masked.py"
"""The RLlib PPO training example (needs ray[rllib] and torch; the
`rllib_ppo_run` fixture runs it once per session with `RLLIB_PPO_QUICK_ARGS`)."""

RLLIB_PPO_QUICK_ARGS = ("--iterations", "1", "--problems", "20")
"""The RLlib example's quick run: one training iteration, 20 evaluation problems
(the full run trains for minutes)."""

ENV_DIFFICULTY_CASES = [
    pytest.param(task, difficulty, id=f"{env_class.__name__}-{difficulty.value}")
    for task, env_class in ENV_TASKS.items()
    for difficulty in MathyEnvDifficulty
]
"""Every registered task at every difficulty, as `(task, difficulty)` test
parameters named `<EnvClass>-<difficulty>`."""


class MathyCoreParser(ExpressionParser):
    """mathy_core's parser under another class: the native core does not read it
    as its own, so the texts of a cache or env that uses it are parsed, checked
    and rewritten by mathy_core (entries without a native parse)."""


CORE_RULE_TYPES: List[Type[BaseRule]] = [
    ConstantsSimplifyRule,
    CommutativeSwapRule,
    DistributiveMultiplyRule,
    DistributiveFactorOutRule,
    AssociativeSwapRule,
    VariableMultiplyRule,
    RestateSubtractionRule,
]
"""The core rules in action order, written out independently of the env."""


def fresh_rules(preferred: bool = False) -> List[BaseRule]:
    """Fresh mathy_core rule instances in the documented core-rule order."""
    rules: List[BaseRule] = []
    for rule_type in CORE_RULE_TYPES:
        if rule_type is CommutativeSwapRule:
            rules.append(CommutativeSwapRule(preferred=preferred))
        else:
            rules.append(rule_type())
    return rules


# -- test envs and states built by hand ---------------------------------------------

NAMESPACE = "mathy.test"
"""`FixedEnv`'s namespace."""


class FixedEnv(MathyEnv):
    """A test env whose every problem is the same text."""

    def __init__(self, text: str = "4x + 2x", complexity: int = 2, **kwargs: Any):
        super().__init__(**kwargs)
        self.text = text
        self.complexity = complexity

    def get_env_namespace(self) -> str:
        return NAMESPACE

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem(self.text, self.complexity, self.get_env_namespace())


class VerdictEnv(FixedEnv):
    """A test env whose transition_fn always returns a fixed non-terminal verdict."""

    VERDICT_REWARD = 0.375

    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        return transition(features, self.VERDICT_REWARD, 0.5)


class TerminalVerdictEnv(FixedEnv):
    """A test env whose transition_fn ends every episode with a fixed reward."""

    VERDICT_REWARD = 0.625

    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        return termination(features, self.VERDICT_REWARD)


def with_history(
    env: MathyEnv,
    steps: Sequence[Tuple[str, Tuple[int, int]]],
    max_moves: int = 10,
    moves_remaining: Optional[int] = None,
) -> MathyEnvState:
    """A state whose history is `steps` (the first action is ignored)."""
    state = env.state_from_text(steps[0][0], max_moves=max_moves)
    for index, (text, action) in enumerate(steps[1:]):
        remaining = max_moves - index - 1
        if moves_remaining is not None and index == len(steps) - 2:
            remaining = moves_remaining
        state = state.get_out_state(text, action, remaining)
    return state


# -- time steps, rules and actions ----------------------------------------------


def is_mid(step: TimeStep) -> bool:
    """A transition in the middle of an episode."""
    return bool(step.step_type.tolist() == [1])


def is_last(step: TimeStep) -> bool:
    """The transition that ends an episode."""
    return bool(step.step_type.tolist() == [2])


def rule_index(env: MathyEnv, rule_type: Type[BaseRule]) -> int:
    """The index of the env's only rule of exactly `rule_type`."""
    matches = [i for i, rule in enumerate(env.rules) if type(rule) is rule_type]
    assert len(matches) == 1
    return matches[0]


def valid_actions(env: MathyEnv, state: MathyEnvState) -> List[ActionType]:
    """Every `(rule, node)` with a 1 in `env.get_valid_moves(state)`."""
    mask = np.asarray(env.get_valid_moves(state))
    return [(int(rule), int(node)) for rule, node in zip(*np.nonzero(mask))]


# -- states ---------------------------------------------------------------------


def play(seed: int, steps: int, invalid_every: int = 0) -> MathyEnvState:
    """A PolySimplify state reached by masked random play from a seeded problem
    (with a penalized invalid action every `invalid_every` steps when set)."""
    kwargs = {"invalid_action_response": "penalize"} if invalid_every else {}
    env = envs.PolySimplify(seed=seed, **kwargs)  # type: ignore[arg-type]
    state, _ = env.get_initial_state(print_problem=False)
    rng = np.random.default_rng(seed)
    for i in range(steps):
        if invalid_every and i % invalid_every == invalid_every - 1:
            action = (int(rng.integers(-3, 12)), int(rng.integers(-3, 200)))
        else:
            valid = np.argwhere(np.asarray(env.get_valid_moves(state)))
            if len(valid) == 0:
                break
            rule, node = valid[rng.integers(len(valid))]
            action = (int(rule), int(node))
        state, step, _ = env.get_next_state(state, action)
        if is_terminal_transition(step):
            break
    return state


def random_play_states(
    per_env: int,
    seed: int = 4,
    make_envs: Optional[Sequence[Callable[[int], MathyEnv]]] = None,
) -> List[Tuple[MathyEnv, MathyEnvState]]:
    """About `per_env` states of seeded masked random play in every env (each
    built-in one when `make_envs` is None, else each `make(seed)`) and difficulty,
    each with the env that reached it."""
    makers = make_envs if make_envs is not None else [
        lambda env_seed, env_class=env_class: env_class(seed=env_seed)
        for env_class in ENV_TASKS.values()
    ]
    states: List[Tuple[MathyEnv, MathyEnvState]] = []
    for make in makers:
        for difficulty in MathyEnvDifficulty:
            env = make(23)
            rng = np.random.default_rng(seed)
            reached = 0
            while reached < per_env:
                state, _ = env.get_initial_state(MathyEnvProblemArgs(difficulty), print_problem=False)
                for _ in range(per_env):
                    states.append((env, state))
                    reached += 1
                    action = sample_valid_action(env.valid_moves_array(state), rng)
                    if action is None:
                        break
                    state, step, _ = env.get_next_state(state, action)
                    if is_terminal_transition(step):
                        break
    return states


def snapshot(state: MathyEnvState) -> str:
    """Everything a state holds, independent of its serialization."""
    agent = state.agent
    return repr(
        (
            state.max_moves,
            state.num_rules,
            agent.moves_remaining,
            agent.problem,
            agent.problem_type,
            agent.reward,
            [(s.raw, tuple(s.action)) for s in agent.history],
        )
    )


# -- observations ---------------------------------------------------------------


def assert_observation_in_range(observation: Any) -> None:
    """Every array of an observation (of any of the four types) is finite, and
    its float32 arrays (features and masks) lie in [0, 1]."""
    arrays = (
        [observation]
        if isinstance(observation, np.ndarray)
        else [v for v in observation.to_dict().values() if isinstance(v, np.ndarray)]
    )
    for array in arrays:
        assert np.isfinite(array).all()
        if array.dtype == np.float32:
            assert 0.0 <= array.min() and array.max() <= 1.0


# -- expected observation values ----------------------------------------------------
# Computed independently from fresh mathy_core trees (an `ExpressionParser`,
# `to_list(...)`, `.parent`/`.left`/`.right`), never from the library's node arrays.

MAX_TYPE_ID = max(MathTypeKeys.values())
"""mathy_core's largest node type id (normalized type ids are divided by it)."""
STRUCTURED = [
    ObservationType.GRAPH,
    ObservationType.HIERARCHICAL,
    ObservationType.MESSAGE_PASSING,
]
"""The observation types with node feature rows (every built-in one but flat)."""
ALL_TYPES = [ObservationType.FLAT] + STRUCTURED
"""The four built-in observation types."""

# Pre-order and in-order differ for all but the single-node expressions; they
# cover constants (positive, negative, fractional), unary negation (child on the
# right), powers, subtraction and parentheses.
EXPRESSIONS = [
    "4x + 2y + 3 * (x + 7)",
    "-3x + 7",
    "2x^2 * (y - 4)",
    "-(x + 2) + 0.5y",
    "12",
    "x",
]
MAIN = "4x + 2y + 3 * (x + 7)"
"""The expression most observation tests read (13 nodes)."""

_parser = ExpressionParser()


def tree(text: str) -> MathExpression:
    """A fresh mathy_core tree of `text` (never the library's cached one)."""
    return _parser.parse(text)


def raw_value(node: MathExpression) -> float:
    """A node's value feature before normalizing: a constant's value, else 0.0."""
    if isinstance(node, ConstantExpression):
        return float(node.value or 0.0)
    return 0.0


def depth_of(node: MathExpression) -> int:
    """The number of `.parent` links from `node` up to its root."""
    depth = 0
    while node.parent is not None:
        node = node.parent
        depth += 1
    return depth


def is_leaf(node: MathExpression) -> float:
    """The is_leaf feature: 1.0 for a node without children, else 0.0."""
    return 1.0 if node.left is None and node.right is None else 0.0


def minmax(values: Sequence[float]) -> List[float]:
    """`values` min-max scaled into [0, 1] (all 0.0 when they are equal)."""
    arr = np.asarray(values, dtype=np.float64)
    low, high = arr.min(), arr.max()
    if high - low <= 0:
        return [0.0] * len(values)
    return list((arr - low) / (high - low))


def level_order(root: MathExpression) -> List[MathExpression]:
    """The nodes under `root` level by level, each level left to right."""
    out: List[MathExpression] = []
    queue = deque([root])
    while queue:
        node = queue.popleft()
        out.append(node)
        if node.left is not None:
            queue.append(node.left)
        if node.right is not None:
            queue.append(node.right)
    return out


def make_state(
    text: str,
    num_rules: int = 3,
    max_moves: int = 10,
    moves_remaining: Optional[int] = None,
) -> MathyEnvState:
    """A PolySimplify-typed state of `text` with `num_rules` rules, after one
    step that leaves `moves_remaining` moves when that is given."""
    state = MathyEnvState(
        problem=text,
        max_moves=max_moves,
        num_rules=num_rules,
        problem_type="mathy.polynomials.simplify",
    )
    if moves_remaining is not None:
        state = state.get_out_state(text, (0, 0), moves_remaining)
    return state


def expected_features(
    nodes: Sequence[MathExpression], all_nodes: Sequence[MathExpression], time: float,
    normalize: bool,
) -> np.ndarray:
    """`[type_id, value, time, is_leaf]` for `nodes` (value min-max over all_nodes)."""
    values_all = [raw_value(n) for n in all_nodes]
    if normalize:
        scaled = dict(zip(map(id, all_nodes), minmax(values_all)))
    else:
        scaled = dict(zip(map(id, all_nodes), values_all))
    rows = []
    for node in nodes:
        type_id = node.type_id / MAX_TYPE_ID if normalize else float(node.type_id)
        rows.append([type_id, scaled[id(node)], time, is_leaf(node)])
    return np.asarray(rows, dtype=np.float64)


def random_mask(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """A random `(rows, cols)` int64 0/1 move mask (about 40% ones)."""
    return (rng.random((rows, cols)) < 0.4).astype(np.int64)


def edges_from_tree(root: MathExpression) -> List[Tuple[int, int, int]]:
    """(parent index, child index, type) with in-order indexes, from `.parent`."""
    inorder = root.to_list("inorder")
    index = {id(node): i for i, node in enumerate(inorder)}
    edges = []
    for node in inorder:
        if node.parent is None:
            continue
        kind = 0 if node.parent.left is node else 1
        edges.append((index[id(node.parent)], index[id(node)], kind))
    return edges


# -- time and processes ---------------------------------------------------------


class Hang(BaseException):
    """Raised by `time_limit`: a BaseException, so no `except Exception` hides it."""


@contextmanager
def time_limit(seconds: float, wall_factor: float = 6.0) -> Iterator[None]:
    """Raise `Hang` in the main thread when the block uses more than `seconds` of
    CPU time, or more than `wall_factor * seconds` of wall-clock time (a block that
    waits instead of computing).

    CPU time does not grow while other processes load the machine, so the limit
    means the same on a busy machine as on an idle one. Each timer fires again
    every second after it expires: an exception raised where Python only prints it
    (a garbage-collector callback, a `__del__`) is raised again at the next
    bytecode that can take it."""

    def expired(signum: int, frame: object) -> None:
        if signum == signal.SIGPROF:
            raise Hang(f"took more than {seconds} s of CPU time")
        raise Hang(f"took more than {seconds * wall_factor} s of wall-clock time")

    timers = ((signal.SIGPROF, signal.ITIMER_PROF, seconds),
              (signal.SIGALRM, signal.ITIMER_REAL, seconds * wall_factor))
    previous = [signal.signal(signum, expired) for signum, _, _ in timers]
    for _, which, limit in timers:
        signal.setitimer(which, limit, 1.0)
    try:
        yield
    finally:
        for (signum, which, _), handler in zip(timers, previous):
            signal.setitimer(which, 0)
            signal.signal(signum, handler)


HOSTILE_TEXT_LENGTH = 100_000
"""The length of `HOSTILE_REPLIES`: the text interface's reply limit
(`mathy_envs.text.replies.MAX_REPLY_CHARS`)."""


def _hostile(unit: str, head: str = "", tail: str = "x") -> str:
    """`head`, then `unit` repeated, then `tail`, `HOSTILE_TEXT_LENGTH` long."""
    body = HOSTILE_TEXT_LENGTH - len(head) - len(tail)
    return head + (unit * (body // len(unit) + 1))[:body] + tail


HOSTILE_REPLIES = {
    # Runs that a pattern with two quantifiers over the same characters (such
    # as `\s*\**\s*`) backtracks over quadratically: minutes at this length.
    "spaces after answer": _hostile(" ", "answer"),
    "spaces after final answer": _hostile(" ", "final answer"),
    "stars and spaces after answer": _hostile(" *", "**answer"),
    "spaces before a colon that never comes": _hostile(" ", "Answer", "2x"),
    "spaces after move": _hostile(" ", "move"),
    "spaces after a hash": _hostile(" ", "#"),
    "spaces in a rule name": _hostile(" ", "commutative", "at 3 x"),
    "spaces after a step label": _hostile(" ", "Step 1"),
    "spaces after a number label": _hostile(" ", "1"),
    "an unclosed box": _hostile("}", "\\boxed{"),
    "an unclosed inline formula": _hostile("x", "\\(", "\\"),
    "digits and dots": _hostile("1."),
    "one long line of terms": _hostile(" + x", "x"),
    "letters and spaces": _hostile("x "),
    "tabs and line ends": _hostile("\t\r\n"),
    "lines restating the problem": _hostile("4x + 2x\n", "", "6x"),
    "lines of labels": _hostile("Step 1: \n", "", "6x"),
    "blank lines then an answer": _hostile("\n", "", "6x"),
    "opening parentheses": _hostile("("),
    "equals signs": _hostile(" = x"),
    "answer tags": _hostile("<answer>"),
    "an unclosed answer tag": _hostile("x\n", "<answer>"),
    "fences": _hostile("```\nx\n"),
    "headings": _hostile("Solution:\n"),
    "comments": _hostile("Combine like terms: "),
    "latex commands": _hostile("\\left("),
    "fractions": _hostile("\\frac{"),
    "latex line breaks": _hostile("x \\\\ "),
    "juxtaposed groups": _hostile("(x)"),
    "signs": _hostile("-"),
    "powers": _hostile("x^"),
}
"""Replies at the full reply limit built to make text handling slow: each must
be judged in time linear in its length (well under a second)."""


def python_environment(hash_seed: str = "0") -> Dict[str, str]:
    """The environment variables of a child interpreter that imports this
    checkout's `mathy_envs` (whether or not, and whichever version, is installed):
    this process's, with the checkout first on `PYTHONPATH` and
    `PYTHONHASHSEED=hash_seed`."""
    path = os.environ.get("PYTHONPATH")
    return {
        **os.environ,
        "PYTHONHASHSEED": hash_seed,
        "PYTHONPATH": os.pathsep.join([str(REPO), path]) if path else str(REPO),
    }


def run_python(
    *args: str,
    hash_seed: str = "0",
    cwd: Optional[Path] = None,
    timeout: float = 120,
    env: Optional[Dict[str, str]] = None,
) -> "subprocess.CompletedProcess[str]":
    """`python *args` in a fresh interpreter that imports this checkout's
    `mathy_envs` (see `python_environment`), with `PYTHONHASHSEED=hash_seed`,
    from `cwd` (the checkout's root by default), and the variables of `env` set."""
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=REPO if cwd is None else cwd,
        env={**python_environment(hash_seed), **(env or {})},
        timeout=timeout,
    )


def answers_of(text: str) -> Tuple[float, List[List[int]], List[str]]:
    """What a new PolySimplify says of `text`: the reward of reaching it, its
    mask and the text each valid action leads to (to check that nothing a user
    did changed the library's answers)."""
    env = envs.PolySimplify()
    state = env.state_from_text(text, max_moves=10)
    step = env.get_state_transition(state)
    mask = env.get_valid_moves(state)
    nexts = [
        env.get_next_state(state, (rule, node))[0].agent.problem
        for rule, row in enumerate(mask)
        for node, valid in enumerate(row)
        if valid
    ]
    return float(step.reward), mask, nexts


def assert_frozen_for_good(array: Any) -> None:
    """That `array` and every array it is a view of refuse to become writable."""
    base = array
    while isinstance(base, np.ndarray):
        with pytest.raises(ValueError):
            base.flags.writeable = True
        base = base.base
