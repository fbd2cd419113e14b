"""`GoalEnv`: the shared shape of the built-in tasks, won when a goal holds."""

from typing import Any, ClassVar, List, Optional, Tuple

from mathy_core import MathExpression

from .._support.pristine import pristine
from ..env import UNREAD_TREE, MathyEnv
from .._support.lru import LRUCache
from ..observations import MathyObservation
from ..state import MathyEnvState
from .._engine import GOAL_SIMPLIFIED, SimplifiedCheck, is_simplified, simplified_entry
from .._engine import copy_tree, is_library_code
from ..time_step import TimeStep, termination
from ..types import MathyEnvProblem, MathyEnvProblemArgs


GOAL_CACHE_SIZE = 16384


@pristine
class GoalEnv(MathyEnv):
    """An environment won (with `get_win_signal`) when `is_goal` holds, with a
    move budget of `complexity * moves_per_complexity`.

    Unless `goal_depends_on_history` is set, `is_goal` must depend on the
    expression alone: its verdicts are cached by expression text.

    Every built-in environment is a `GoalEnv`; the two paragraphs below are the
    ones their docstrings point to, and each env docstring adds only what differs.

    ## Action Space
    `Discrete(len(rules) * max_seq_len)`: an action is `(rule, node)`, flattened as
    `rule * max_seq_len + node`, with nodes counted left to right (in-order). The
    seven core rules (`MathyEnv.core_rules()`) are used unless `rules=` says
    otherwise; most `(rule, node)` pairs are invalid in a given state (see
    `get_valid_moves`), and an invalid one is handled by `invalid_action_response`.

    ## Observation Space
    Any registered observation type of `MathyEnvState.to_observation` (flat by
    default; see `mathy_envs.observations`), built from the expression tree and the
    valid-move mask, padded to `max_seq_len` nodes.

    ## Writing one
    A new task is a `GoalEnv` subclass with `is_goal` that declares its
    `namespace` and its `generator = staticmethod(<file>_problem)`, a function
    `<file>_problem(rng, params)` of a `numpy.random.Generator` kept in the same
    file (see `mathy_envs.problems` for the term primitives), which the default
    `problem_fn` calls with `self.np_random`. A built-in
    one is also one line in `mathy_envs.envs.ENV_TASKS`, which gives it its CLI
    name and gym ids, and its `is_goal` reads the expression through
    `self.tree_of(env_state, expression)` (library code is given `UNREAD_TREE`,
    see `MathyEnv.tree_of`). `mathy_envs.checker.check_mathy_env` checks that it keeps
    the `MathyEnv` contract.
    """

    moves_per_complexity: int = 4
    goal_depends_on_history: bool = False
    free_derivations: ClassVar[bool] = False
    """Whether any rewrites that keep the value make a fair solution (a
    language model's derivation at `steps_per_line=None`, `mathy_envs.text`):
    True where the goal is a normal form of the expression, False where it is
    about the problem's own terms (moving, grouping or acting on them), which
    free rewrites could replace with terms of their own."""
    native_goal: ClassVar[Optional[str]] = None
    """The goal as the native batch kernel knows it, declared by the library's
    env classes whose `is_goal` it reproduces (`StepBatch` steps the others
    through `get_next_state`); a class of yours that declares it is not
    believed."""
    supports_equations = False

    def native_losses(self, length: int) -> Optional[Tuple[List[float], float]]:
        """The lose signal as data for the native batch kernel, where it
        depends on the last move (a goal told from the move, such as
        PolyHaystackLikeTerms'): `(table, plain)`, `table[largest * length +
        distance]` the signal of a last move at `distance` nodes from the
        nearest term with a like term, `largest` the largest term index, and
        `plain` where the sum has no such term. None (the default): the lose
        signal does not depend on the move."""
        return None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._goals: LRUCache[str, bool] = LRUCache(GOAL_CACHE_SIZE)

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        """Whether the state's expression reached the task's goal form.

        When this method is your own code, `expression` is a private copy of the
        state's tree (see `MathyEnv.transition_fn`); the library's own methods
        read it through `tree_of` (see `MathyEnv.tree_of`)."""
        raise NotImplementedError("goal environments must define is_goal")

    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        is_goal = self.is_goal
        if expression is UNREAD_TREE and not is_library_code(is_goal):
            # is_goal became user code while the step was scored (set by
            # another thread): it gets a private copy, as user code always does.
            expression = copy_tree(MathyEnv.tree_of(self, env_state, expression))
        if self.goal_depends_on_history:
            reached = is_goal(env_state, expression)
        else:
            text = env_state.agent.problem
            cached = self._goals.get(text)
            if cached is None:
                cached = self._goals.put(text, is_goal(env_state, expression))
            reached = cached
        if reached:
            return termination(features, self.get_win_signal(env_state))
        return None

    def max_moves_fn(
        self, problem: MathyEnvProblem, config: MathyEnvProblemArgs
    ) -> int:
        return problem.complexity * self.moves_per_complexity


@pristine
class SimplifyGoalEnv(GoalEnv):
    """A task won when the expression is simplified: no like terms remain and every
    term is in preferred form (`is_simplified`)."""

    native_goal = GOAL_SIMPLIFIED
    free_derivations = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._simplified = SimplifiedCheck()

    def is_goal(self, env_state: MathyEnvState, expression: MathExpression) -> bool:
        parsed = self._expressions.parse(env_state.agent.problem)
        if expression is UNREAD_TREE or expression is parsed.tree:
            return simplified_entry(parsed, self._simplified)
        return is_simplified(expression)


__all__ = ("GoalEnv", "SimplifyGoalEnv")
