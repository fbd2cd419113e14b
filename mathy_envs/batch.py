"""`StepBatch`: many episodes of one environment, stepped in one call.

A batch holds `num_envs` episodes of one `MathyEnv` and steps all of them with one
call of `step(actions)`, writing the flat observations, the action masks, the
rewards and the end flags into arrays it allocated once. Each episode plays as
`MathyGymEnv` plays it with the flat observation: from the same state, the same
actions give the same observations, masks and rewards, byte for byte, and the
same `terminated` and `truncated` flags. Problems are drawn from the env's
`np_random`, slot after slot. A finished episode is reset by the next `step`,
which ignores its action (Gymnasium's "next step" autoreset).

Where the native core answers every part of a step (the core rules, the simplify
tasks' goal, the default reward scheme, and an expression small and simple
enough that no move needs a value check), the step is taken in one call of the
native core, with no Python objects made for the expression; every other step is
`MathyEnv.get_next_state`, so a batch works with any env, rules, scheme or core,
only more slowly. `StepBatch.native_reason` says why a batch's steps are not
native (None when they are), and `StepBatch.native_fraction` how many were.

    import numpy as np
    from mathy_envs.gym import sample_valid_actions
    from mathy_envs.batch import StepBatch
    from mathy_envs.envs import PolySimplify

    batch = StepBatch(PolySimplify(), num_envs=64)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(100):
        batch.step(sample_valid_actions(batch.masks, rng))
        # batch.observations, batch.masks, batch.rewards, batch.terminated, ...
"""

import functools
import threading
from typing import Any, Callable, Dict, FrozenSet, List, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt
from mathy_core import ExpressionParser

from ._engine import (
    MAX_KERNEL_THREADS,
    MOVE_GOALS,
    NATIVE_GOALS,
    SLOT_LEFT,
    SLOT_OFFER_LEFT,
    SLOT_OVER,
    SLOT_STEPPED,
    BatchKernel,
    ExpressionCache,
    canonical_text,
    commute_preference,
    exact_key,
    kernel_unavailable,
    visit_counts,
)
from ._env.outcome import StepOutcome, outcome_columns, outcome_of
from ._support.pristine import (
    changed_attribute,
    changed_module_attribute,
    defined_attributes,
    defined_by_library,
)
from ._support.settings import check_seed
from .env import MathyEnv
from .envs.goal import GoalEnv
from .limits import quote, type_name
from .observations.build import problem_hash
from .observations.common import revisit_value
from .observations.flat import flat_head
from .rewards import Scoring, custom_scoring
from .state import MathyEnvState, episode_time
from .types import MAX_VISITS, EnvRewards, MathyEnvProblemArgs

_START_METHODS = frozenset(
    {
        "__init__",
        "problem_fn",
        "get_env_namespace",
        "max_moves_fn",
        "generate_problem",
        "fitting_initial_state",
        "state_from_problem",
        "state_from_text",
        "get_initial_state",
        "check_fits",
        "seed",
    }
)
"""Methods a subclass may override and still have its steps taken natively: they
only start episodes, which always go through them."""


class _Library(NamedTuple):
    """What the native steps of the envs of one goal class reproduce."""

    classes: Tuple[type, ...]
    """The goal class and its bases: the classes whose methods they reproduce."""
    methods: FrozenSet[str]
    """The names of the env methods (and properties) they may depend on, as the
    library defined them."""
    step_methods: FrozenSet[str]
    """What no other class of an env may define for its steps to be taken
    natively."""
    goal: str
    """The goal the kernel tells (`GoalEnv.native_goal`, one of `NATIVE_GOALS`)."""


def _goal_class(kind: type) -> Optional[type]:
    """The class of `kind`'s hierarchy whose `native_goal` its envs have (the
    first in its method resolution order that declares one), or None."""
    for base in kind.__mro__:
        if "native_goal" in vars(base):
            return base
    return None


@functools.lru_cache(maxsize=None)
def _library(goal_class: type) -> Optional[_Library]:
    """`_Library` of a goal class of the library's (a `GoalEnv` a library
    module defined, `pristine` recorded, declaring a goal of `NATIVE_GOALS`),
    None for any other class. Only the library's classes are asked (a few, so
    the cache stays small)."""
    defined = defined_attributes(goal_class)
    goal = None if defined is None else defined.get("native_goal")
    if not isinstance(goal, str) or goal not in NATIVE_GOALS:
        return None
    classes = tuple(kind for kind in goal_class.__mro__ if kind is not object)
    methods = frozenset(
        name
        for kind in classes
        for name, value in (defined_attributes(kind) or {}).items()
        if callable(value) or isinstance(value, (property, classmethod, staticmethod))
    ) - {"generator"}  # draws problems only; every env holds its generator= argument
    step_methods = (methods - _START_METHODS - {"__getstate__", "__setstate__"}) | {
        "__getattribute__",
        "__getattr__",
    }
    return _Library(classes, methods, step_methods, goal)


def _library_code_reason(env: MathyEnv) -> Optional[str]:
    """Why a step of `env` may run code the native steps do not reproduce (a
    sentence), or None when every method they reproduce is the library's own,
    as it defined it: those of the library's goal class that declares the
    env's `native_goal` (`SimplifyGoalEnv`, `PolyCommuteLikeTerms`,
    `PolyGroupLikeTerms`) and of its bases (none replaced on those classes
    since, at any time), defined by no other class anywhere in
    the env's class hierarchy (a subclass, or a mixin placed before or after a
    library class), none set on the instance (but those that only start
    episodes), the reward scheme's scoring the library's (`custom_scoring`),
    the states plain, unchanged `MathyEnvState`s, and no function or constant of
    the library's modules replaced (`changed_module_attribute`). Asked before
    every batch call, so a change made at any time counts."""
    goal_class = _goal_class(type(env))
    if goal_class is None or vars(goal_class)["native_goal"] is None:
        return (
            f"{type(env).__name__}'s goal is not one the native core knows (its "
            "class declares no native_goal)"
        )
    believed = issubclass(goal_class, GoalEnv) and defined_by_library(goal_class)
    library = _library(goal_class) if believed else None
    if library is None:
        return (
            f"{goal_class.__name__} declares native_goal, which only the library's "
            "env classes may"
        )
    for kind in type(env).__mro__:
        if kind is object:
            continue
        if kind in library.classes:
            changed = changed_attribute(kind)
            if changed is not None:
                return f"{kind.__name__}.{changed} was replaced after import"
        elif not vars(kind).keys().isdisjoint(library.step_methods):
            return f"{kind.__name__} overrides {min(vars(kind).keys() & library.step_methods)}"
    if not env.__dict__.keys().isdisjoint(library.methods):
        own = min(env.__dict__.keys() & library.methods)
        return f"the env has its own {own} (set on the instance)"
    scoring = custom_scoring(env.reward_scheme)
    if scoring is not None:
        return scoring
    changed = changed_attribute(MathyEnvState)
    if changed is not None:
        return f"MathyEnvState.{changed} was replaced after import"
    changed = changed_module_attribute()
    if changed is not None:
        return f"{changed} was replaced after import"
    return None


def _ends_with_its_expression(state: MathyEnvState) -> bool:
    """Whether the state's history ends with its own expression (a start state
    of the user's may hold another history, or none)."""
    history = state.agent.history
    return bool(history) and history[-1].raw == state.agent.problem


_RESET = StepOutcome(0.0, False, False, False, False, False)
"""What the arrays hold for an episode a step reset instead of stepping."""

_REVISIT_VALUES = 1024
"""The revisit features the native kernel is given (of an expression seen 0 to
1023 times before); a step past them goes to the Python path."""


_MAX_NATIVE_MOVES = 100_000
"""The most moves left of an episode the native kernel holds (it is given a
table of values per move left)."""


class _Plan(NamedTuple):
    """How the native kernel takes the steps of one batch call: commutative
    swap's setting, the reward scheme's scoring as data (which the kernel was
    given), the env's cache of parsed texts (the calling thread's) and the goal
    the kernel tells."""

    preferred: bool
    scoring: Scoring
    expressions: ExpressionCache
    goal: str


class _Episode:
    """One episode of a batch: the last state made, the steps taken since (their
    states are made when asked for), its expression, its moves left and its
    visits per text. While the native kernel holds the episode's slot, the
    kernel has the episode's expression, moves, visits and steps: the batch
    pulls them (`StepBatch._pull`) before it reads them."""

    __slots__ = ("made", "taken", "text", "left", "visits", "first", "first_key")

    def __init__(self, state: MathyEnvState, parser: ExpressionParser) -> None:
        self.made = state
        self.taken: List[Tuple[str, Tuple[int, int]]] = []
        self.text = state.agent.problem
        """The episode's expression (the last step's text)."""
        self.left = state.agent.moves_remaining
        # Its texts' visits, the first in its canonical form (as moves print it).
        self.visits = visit_counts(state.agent.history, parser)
        self.first = state.agent.history[0].raw if state.agent.history else state.agent.problem
        self.first_key = canonical_text(self.first, parser)

    def visit(self, text: str) -> int:
        """Count a visit of `text` (the first text in its canonical form), and
        return the visits of it so far."""
        if text == self.first:
            text = self.first_key
        visits = self.visits[text] = self.visits.get(text, 0) + 1
        return visits

    def visits_now(self) -> int:
        """The visits of the episode's expression so far (at least one: a
        state whose history does not hold it is on its first visit)."""
        text = self.first_key if self.text == self.first else self.text
        return max(1, self.visits.get(text, 0))

    def copy(self) -> "_Episode":
        """A copy that shares nothing that changes (states are values)."""
        made = _Episode.__new__(_Episode)
        for name in self.__slots__:
            setattr(made, name, getattr(self, name))
        made.taken = list(self.taken)
        made.visits = dict(self.visits)
        return made

    def __getstate__(self) -> Dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        for name in self.__slots__:
            setattr(self, name, state[name])

    @property
    def state(self) -> MathyEnvState:
        """The episode's state: each native step's state made as `get_next_state`
        makes it (`get_out_state`), on first read."""
        if self.taken:
            state = self.made
            for text, action in self.taken:
                state = state.get_out_state(text, action, state.agent.moves_remaining - 1)
            self.made, self.taken = state, []
        return self.made


class StepBatch:
    """`num_envs` episodes of `env`, stepped together.

    Arguments:
        env: the environment every episode plays (its settings, rules, reward
            scheme and problem generator); the batch draws its problems from
            `env.np_random`
        num_envs: the number of episodes
        params: the problem arguments (difficulty) of every episode
        revisits: observations carry the revisit feature (how many times the
            episode saw its expression before), as `MathyGymEnv`'s do by default
        mask_revisits: masks (in `masks` and in the observations) offer only the
            valid moves whose result the episode visited least often, as
            `MathyGymEnv`'s do by default; a move left out stays legal
        num_threads: the threads the native kernel steps the episodes on (1 to
            256; the results are the same, byte for byte, with any number)

    After `reset` and each `step`, the arrays hold one row per episode:

    - `observations`: `(num_envs, 4 + 2L + R*L)` float32 (`3 + 2L + R*L`
      without `revisits`), the flat observation (`mathy_envs.observations.flat`,
      normalized) of each episode's state;
    - `masks`: `(num_envs, R*L)` int8, the valid actions it is offered (action
      `rule * L + node`; with `mask_revisits`, less the moves back to more
      visited expressions);
    - `rewards` (float64), `terminated`, `truncated`, `won`, `valid` and
      `oversize` (bool): what the last step gave each episode (all zero for an
      episode that was reset instead); `won`, `valid` and `oversize` as
      `MathyGymEnv`'s `info["win"]`, `info["valid"]` and `info["oversize"]`: the
      step ended the episode with a positive reward, the expression still
      fitting; the action was a valid move of the episode's state; the new
      expression has more nodes than `max_seq_len`.

    The arrays are reused: copy what you keep. `states` are the episodes'
    `MathyEnvState`s.

    The fast path is explicit: `native_reason` is None while the batch's steps
    go to the native kernel (a sentence saying why not otherwise), and
    `native_fraction` is the share of the steps since the last `reset` it took.
    """

    def __init__(
        self,
        env: MathyEnv,
        num_envs: int,
        params: Optional[MathyEnvProblemArgs] = None,
        revisits: bool = True,
        mask_revisits: bool = True,
        num_threads: int = 1,
    ) -> None:
        if not isinstance(env, MathyEnv):
            raise ValueError(f"env must be a MathyEnv, got {type_name(env)} {quote(env, 60)}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or not (
            1 <= num_envs <= 1_000_000
        ):
            raise ValueError(f"num_envs must be an int in [1, 1000000], got {quote(num_envs)}")
        if params is not None and not isinstance(params, MathyEnvProblemArgs):
            raise ValueError(
                f"params must be MathyEnvProblemArgs or None, got {type_name(params)}"
            )
        for name, flag in (("revisits", revisits), ("mask_revisits", mask_revisits)):
            if not isinstance(flag, (bool, np.bool_)):
                raise ValueError(f"{name} must be a bool, got {quote(flag, 40)}")
        if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or not (
            1 <= num_threads <= MAX_KERNEL_THREADS
        ):
            raise ValueError(
                f"num_threads must be an int in [1, {MAX_KERNEL_THREADS}], got {quote(num_threads)}"
            )
        self._num_threads = int(num_threads)
        self.env = env
        self.num_envs = int(num_envs)
        self.revisits = bool(revisits)
        """Whether observations carry the revisit feature."""
        self.mask_revisits = bool(mask_revisits)
        """Whether masks leave out the moves back to more visited expressions."""
        self.params = params if params is not None else MathyEnvProblemArgs()
        length, rules = env.max_seq_len, len(env.rules)
        self._length = length
        self.observations: npt.NDArray[np.float32] = np.zeros(
            (self.num_envs, flat_head(self.revisits) + 2 * length + rules * length), np.float32
        )
        self.masks: npt.NDArray[np.int8] = np.zeros((self.num_envs, rules * length), np.int8)
        self.rewards: npt.NDArray[np.float64] = np.zeros(self.num_envs, np.float64)
        self.terminated: npt.NDArray[np.bool_] = np.zeros(self.num_envs, np.bool_)
        self.truncated: npt.NDArray[np.bool_] = np.zeros(self.num_envs, np.bool_)
        self.won: npt.NDArray[np.bool_] = np.zeros(self.num_envs, np.bool_)
        self.valid: npt.NDArray[np.bool_] = np.zeros(self.num_envs, np.bool_)
        self.oversize: npt.NDArray[np.bool_] = np.zeros(self.num_envs, np.bool_)
        self._episodes: List[_Episode] = []
        self._hashes: Dict[str, Tuple[float, float]] = {}
        # Each episode's moves left after its last native step (the kernel
        # writes them), and whether it ended (the next step starts another).
        self._left: npt.NDArray[np.int64] = np.zeros(self.num_envs, np.int64)
        self._over: npt.NDArray[np.bool_] = np.zeros(self.num_envs, np.bool_)
        # The masks the batch decides validity by: its own copy, which `masks`
        # (yours to read, or even to change) is refreshed from after each call.
        self._valid = np.zeros_like(self.masks)
        # The masks shown (`masks` and the observations' mask slice): the valid
        # ones, less the moves back to more visited expressions with
        # `mask_revisits`.
        self._offered = np.zeros_like(self.masks) if self.mask_revisits else self._valid
        # Each row's offered moves as a (rules, L) grid, and its observation's
        # mask slice (views, made once).
        self._offered_grids = [row.reshape(rules, length) for row in self._offered]
        self._mask_values = [row[flat_head(self.revisits) + 2 * length :] for row in self.observations]
        self._rules_seen: List[Dict[str, Any]] = []
        self._actions = rules * length
        self._lock = threading.Lock()
        self._changed = False
        self._kernel = BatchKernel(
            self.observations,
            self._valid,
            self._offered,
            self.rewards,
            self.terminated,
            self.valid,
            self.oversize,
            self._left,
            length,
            self.revisits,
            self.mask_revisits,
            [revisit_value(seen, True) for seen in range(_REVISIT_VALUES)],
        )
        # Whether the kernel holds none of the episodes in play (after a copy
        # or a pickle): the next native step loads them.
        self._unloaded = False
        # The episode steps taken since the last reset (resets of finished
        # episodes aside), and how many of them the native kernel took.
        self._steps_taken = 0
        self._native_steps = 0
        # The episode starts since the last reset (that reset's included), and
        # how many of them the native kernel wrote.
        self._starts = 0
        self._native_starts = 0
        # The last scoring data the native steps read, with what it was made of,
        # and the kernel's tables per move budget: the time feature and the win
        # reward by moves left.
        self._scoring: Optional[Tuple[Tuple[Any, ...], Scoring]] = None
        self._tables: Dict[int, Tuple[List[float], List[float]]] = {}
        self._losses: Optional[Tuple[Any, Tuple[List[float], float]]] = None

    _KEPT = (
        "observations", "masks", "rewards", "terminated", "truncated", "won", "valid",
        "oversize", "_valid", "_offered", "_left", "_over",
    )
    """The arrays a copy takes the values of (the others are views of these)."""

    def __getstate__(self) -> Dict[str, Any]:
        """What a pickle or a copy keeps: the env, the settings, the arrays and
        the episodes (without their native parses, made again when needed); the
        lock and the arrays' views are made anew. A copy steps on as the
        original would, byte for byte."""
        with self._lock:
            for index in range(len(self._episodes)):
                self._pull(index)
            return {
                "env": self.env,
                "num_envs": self.num_envs,
                "params": self.params,
                "revisits": self.revisits,
                "mask_revisits": self.mask_revisits,
                "num_threads": self.num_threads,
                "arrays": {name: getattr(self, name) for name in self._KEPT},
                "episodes": self._episodes,
                "hashes": self._hashes,
                "rules_seen": self._rules_seen,
                "counts": (
                    self._steps_taken, self._native_steps, self._starts, self._native_starts
                ),
            }

    def __setstate__(self, state: Dict[str, Any]) -> None:
        StepBatch.__init__(
            self,
            state["env"],
            state["num_envs"],
            state["params"],
            state["revisits"],
            state["mask_revisits"],
            state.get("num_threads", 1),
        )
        for name, values in state["arrays"].items():
            getattr(self, name)[...] = values
        # Copies: a shallow copy of the batch must not step the original's episodes.
        self._episodes = [episode.copy() for episode in state["episodes"]]
        self._unloaded = bool(self._episodes)
        self._hashes = dict(state["hashes"])
        self._rules_seen = list(state["rules_seen"])
        counts = tuple(state.get("counts", ())) + (0, 0, 0, 0)
        self._steps_taken, self._native_steps, self._starts, self._native_starts = counts[:4]

    @property
    def num_threads(self) -> int:
        """The threads the native kernel steps the episodes on."""
        return self._num_threads

    @property
    def states(self) -> List[MathyEnvState]:
        """Each episode's current state."""
        with self._lock:
            for index in range(len(self._episodes)):
                self._pull(index)
            return [episode.state for episode in self._episodes]

    @property
    def native_fraction(self) -> float:
        """The share of the episode steps since the last `reset` (or since the
        batch was made, before one) that the native kernel took, from 0.0 to
        1.0 (0.0 before any step); the others went to `get_next_state`. Resets
        of finished episodes by `step` are not steps. Below 1.0 with
        `native_reason` None, some expressions needed the Python path: an
        invalid action, a value check, a number beyond the native core's safe
        range, an expression outgrowing `max_seq_len`."""
        with self._lock:
            return self._native_steps / self._steps_taken if self._steps_taken else 0.0

    @property
    def native_start_fraction(self) -> float:
        """The share of the episode starts since the last `reset` (its own
        included, and those of finished episodes by `step`) whose observation
        and mask the native kernel wrote, from 0.0 to 1.0 (0.0 before any);
        the others were written from the state as `MathyGymEnv` writes them.
        The problems themselves are drawn by the env's generator either way."""
        with self._lock:
            return self._native_starts / self._starts if self._starts else 0.0

    @property
    def native_reason(self) -> Optional[str]:
        """None when the native kernel takes the batch's steps (every step it
        can: see `native_fraction`), else a sentence saying why every step goes
        to `get_next_state` now: the pure-Python core is in use, a method the
        native steps reproduce is your code (a subclass's, a mixin's, set on
        the env, or a library method, function or constant replaced after
        import), the reward scheme or the states are your own, the rules are
        not the core rules, the goal depends on the history, the env is
        verbose. Asked again before each call, so it follows your changes."""
        with self._lock:
            return self._native_reason()

    def reset(self, seed: Optional[int] = None) -> None:
        """Start a new episode in every slot (`seed` reseeds `env` first)."""
        with self._lock:
            self._check_env()
            self._guarded(self._reset, seed)

    def _reset(self, seed: Optional[int]) -> None:
        if seed is not None:
            check_seed("seed", seed)
            self.env.seed(seed)
        self._changed = True
        self._rules_seen = self._rules_now()
        self._steps_taken = self._native_steps = self._starts = self._native_starts = 0
        self._episodes = []
        self._unloaded = False
        plan: Optional[_Plan] = None
        for index in range(self.num_envs):
            state, _ = self.env.fitting_initial_state(self.params)
            if index == 0:
                plan = self._plan(state)
            self._episodes.append(self._start(index, state, plan))
        self.masks[:] = self._offered
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        self.won[:] = False
        self.valid[:] = False
        self.oversize[:] = False
        self._over[:] = False

    def step(self, actions: Any) -> None:
        """Take one action in each episode (`actions[i]`, a flat action `rule * L
        + node`, as the masks number them); an episode that ended at the last
        step is reset instead and its action ignored. An invalid action is
        handled by the env's `invalid_action_response`; with `"raise"`, the
        `ValueError` comes before any episode is stepped; any other error (from
        your own env code, say) leaves the batch to be `reset` before it steps
        again. One call at a time: a call from another thread waits for the one
        in progress."""
        with self._lock:
            self._check_env()
            self._guarded(self._step_all, actions)

    def _guarded(self, call: Callable[[Any], None], argument: Any) -> None:
        """`call(argument)`; if it raises after changing some episodes, the batch
        forgets them all (`step` then asks for `reset`), never holding half a
        step."""
        try:
            call(argument)
        except BaseException:
            if self._changed:
                self._episodes = []
            raise
        finally:
            self._changed = False

    def _check_env(self) -> None:
        env = self.env
        if env.max_seq_len != self._length or len(env.rules) * env.max_seq_len != self._actions:
            raise ValueError(
                f"the env's rules or max_seq_len changed since the batch was made "
                f"({self._actions // self._length} rules of {self._length} nodes, now "
                f"{len(env.rules)} of {env.max_seq_len}): make a new StepBatch"
            )

    def _step_all(self, actions: Any) -> None:
        episodes = self._episodes
        if not episodes:
            raise ValueError("call reset() before step()")
        moves = np.asarray(actions) if not isinstance(actions, str) else None
        if moves is None or moves.shape != (self.num_envs,) or moves.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} integers, got {quote(actions, 80)}"
            )
        length = self._length
        self._refresh_masks()
        chosen = moves.astype(np.int64, copy=True)
        if self.env.invalid_action_response == "raise":
            # Whether each action is a valid move of its episode's state.
            in_range = (chosen >= 0) & (chosen < self._actions)
            valid = np.zeros(self.num_envs, np.bool_)
            valid[in_range] = self._valid[in_range.nonzero()[0], chosen[in_range]] != 0
            for index in np.flatnonzero(~valid & ~self._over).tolist():
                # get_next_state raises its ValueError, and changes nothing.
                self._pull(index)
                self.env.get_next_state(episodes[index].state, divmod(int(chosen[index]), length))
        plan = self._plan(episodes[0].made)
        self._changed = True
        status = None
        if plan is not None:
            if self._unloaded:
                self._load_all(plan)
            status = self._kernel.step(
                chosen, self._over, plan.goal, plan.preferred, self._num_threads
            )
        if status is None:
            status = np.where(self._over, SLOT_OVER, SLOT_LEFT).astype(np.int8)
        # The native kernel wrote the outcomes of its steps but for the flags
        # derived from them; the Python path writes the others' below.
        native = (status == SLOT_STEPPED) | (status == SLOT_OFFER_LEFT)
        truncated, won = outcome_columns(self.rewards, self.terminated, self._left, self.oversize)
        self.truncated[:] = truncated
        self.won[:] = won
        over = status == SLOT_OVER
        for index in np.flatnonzero(status != SLOT_STEPPED).tolist():
            kind = status[index]
            if kind == SLOT_OVER:
                state, _ = self.env.fitting_initial_state(self.params)
                episodes[index] = self._start(index, state, plan)
                self._write_outcome(index, _RESET)
            elif kind == SLOT_OFFER_LEFT:
                self._pull(index)
                self._offer_by_env(index, episodes[index])
            else:
                self._pull(index)
                made = self._step(episodes[index], index, divmod(int(chosen[index]), length), plan)
                self._write_outcome(index, made)
        self._over[:] = ~over & (self.terminated | self.truncated)
        steps = self.num_envs - int(over.sum())
        self._steps_taken += steps
        self._native_steps += int(native.sum())
        self.masks[:] = self._offered

    def _write_outcome(self, index: int, outcome: StepOutcome) -> None:
        """Episode `index`'s values of the outcome arrays."""
        (
            self.rewards[index],
            self.terminated[index],
            self.truncated[index],
            self.valid[index],
            self.oversize[index],
            self.won[index],
        ) = outcome

    def _pull(self, index: int) -> None:
        """Bring episode `index` up to date with the native kernel's slot (its
        expression, moves left, visits and the steps taken there), where the
        kernel holds it."""
        pulled = self._kernel.pull(index)
        if pulled is not None:
            episode = self._episodes[index]
            episode.text, episode.left, episode.visits, taken = pulled
            episode.taken.extend(taken)

    def _load(self, index: int, episode: _Episode, plan: Optional[_Plan]) -> bool:
        """Have the native kernel hold episode `index` (`plan` says it takes the
        batch's steps, and the state is the library's); False, the slot dropped,
        where it does not."""
        made = episode.made
        if plan is None or type(made) is not MathyEnvState:
            self._kernel.drop(index)
            return False
        left, max_moves = episode.left, made.max_moves
        if left > _MAX_NATIVE_MOVES or (
            plan.goal in MOVE_GOALS and not episode.taken and not _ends_with_its_expression(made)
        ):
            # (The kernel tells a goal of MOVE_GOALS from the move and the
            # episode's expression; the env, from the history's last text.)
            self._kernel.drop(index)
            return False
        tables = self._tables.get(max_moves)
        if tables is None or len(tables[0]) <= left:
            win = plan.scoring.win
            counts = range(max(left, min(max_moves, _MAX_NATIVE_MOVES), 0) + 1)
            tables = (
                [episode_time(max_moves, each) for each in counts],
                [float(win(max_moves, each)) for each in counts],
            )
            self._tables[max_moves] = tables
        return self._kernel.load(
            index,
            plan.expressions,
            episode.text,
            left,
            episode.visits,
            (episode.first, episode.first_key),
            self._hash(made.agent.problem_type),
            tables[0][: left + 1],
            tables[1][: left + 1],
        )

    def _load_all(self, plan: _Plan) -> None:
        """Have the native kernel hold every episode in play (after a copy or a
        pickle, which hold none)."""
        for index, episode in enumerate(self._episodes):
            if not self._over[index]:
                self._load(index, episode, plan)
        self._unloaded = False

    # -- steps ---------------------------------------------------------------------

    def _native_reason(self) -> Optional[str]:
        """`native_reason`: the first reason of the env's, else the core's."""
        env = self.env
        reason = _library_code_reason(env)
        if reason is not None or not isinstance(env, GoalEnv):
            return reason
        goal_class = _goal_class(type(env))
        library = None if goal_class is None else _library(goal_class)
        told_from_the_move = library is not None and library.goal in MOVE_GOALS
        # A goal of MOVE_GOALS depends on the move and the expression it was
        # made on, which the kernel holds; any other must not depend on the
        # history. Verdicts kept by text (goal_depends_on_history False) are
        # the kernel's only for the others.
        if env.goal_depends_on_history and not told_from_the_move:
            return f"{type(env).__name__}'s goal depends on the history (goal_depends_on_history)"
        if told_from_the_move and not env.goal_depends_on_history:
            return (
                f"{type(env).__name__} keeps its goal's verdicts by expression "
                "(goal_depends_on_history is False), which the native core does not"
            )
        if env.verbose:
            return "the env is verbose (it prints every step)"
        if commute_preference(env.rules) is None:
            return "the env's rules are not the core rules with mathy_core's settings"
        return kernel_unavailable()

    def _plan(self, state: MathyEnvState) -> Optional[_Plan]:
        """How the native kernel takes this call's steps (`state`, one of the
        batch's, asks the env for its rule lists), or None when it takes none
        (`native_reason`, or scoring data the kernel does not read)."""
        if self._native_reason() is not None or not self._kernel.available:
            return None
        env = self.env
        rules = env.rules
        goal_class = _goal_class(type(env))
        library = None if goal_class is None else _library(goal_class)
        if library is None:
            return None  # _native_reason said otherwise a moment ago (another thread)
        # The scoring data of the library's code depends on these alone (its
        # rule lists, lose signal and MAX_VISITS are the library's constants,
        # checked above): made again only when one changed.
        given = (
            tuple(type(rule) for rule in rules),
            env.previous_state_penalty,
            env.reward_discount,
            tuple(
                (name, value) for name, value in vars(EnvRewards).items()
                if not name.startswith("_")
            ),
            MAX_VISITS,
        )
        key = exact_key(given)
        if self._scoring is None or self._scoring[0] != key:
            scoring = env.reward_scheme.scoring(env, state)
            if scoring is None:
                return None
            self._scoring = (key, scoring)
            self._tables = {}
            # The episodes the kernel holds have the old scoring's tables: it
            # holds them again, with the new ones, at the next step.
            for index in range(len(self._episodes)):
                self._pull(index)
            self._unloaded = bool(self._episodes)
        scoring = self._scoring[1]
        if not self._kernel.set_scoring(
            scoring.rule_rewards,
            scoring.order,
            scoring.penalize_revisits,
            scoring.revisit_penalty,
            scoring.max_visits,
            scoring.lose,
            scoring.timestep,
        ):
            return None
        if library.goal in MOVE_GOALS:
            # The lose signal depends on the move: the env's own, as a table.
            if not isinstance(env, GoalEnv):
                return None
            if self._losses is None or self._losses[0] != key:
                losses = env.native_losses(self._length)
                if losses is None:
                    return None
                self._losses = (key, losses)
            if not self._kernel.set_losses(self._losses[0], *self._losses[1]):
                return None
        return _Plan(bool(commute_preference(rules)), scoring, env._expressions, library.goal)

    def _hash(self, problem_type: str) -> Tuple[float, float]:
        """The problem type's hash (kept per type)."""
        hashed = self._hashes.get(problem_type)
        if hashed is None:
            hashed = self._hashes[problem_type] = problem_hash(problem_type)
        return hashed

    def _write_head(self, index: int, problem_type: str, time: float, visits: int) -> None:
        """The values of episode `index`'s flat observation row before those
        the native kernel wrote: the problem type's hash, the time and, with
        `revisits`, the revisit feature of an expression seen `visits` times."""
        row = self.observations[index]
        hashed = self._hash(problem_type)
        row[0], row[1], row[2] = hashed[0], hashed[1], time
        if self.revisits:
            row[3] = revisit_value(visits - 1, True)

    def _step(
        self, episode: _Episode, index: int, action: Tuple[int, int], plan: Optional[_Plan]
    ) -> StepOutcome:
        """`get_next_state`, and the observation `MathyGymEnv` gives; the native
        kernel holds the episode after it where it takes the batch's steps."""
        env = self.env
        before = episode.state
        moves = env.valid_moves_array(before)
        rule, node = action
        valid = bool(
            0 <= rule < moves.shape[0] and 0 <= node < moves.shape[1] and moves[rule, node]
        )
        state, time_step, _ = env.get_next_state(before, action)
        text = state.agent.problem
        episode.visit(text)
        episode.made, episode.left, episode.text = state, state.agent.moves_remaining, text
        oversize = env.node_count(text) > env.max_seq_len
        if oversize:
            # No observation holds the expression: the last one that fit, with
            # no valid action (as MathyGymEnv does).
            self._kernel.drop(index)
            self._write(index, before, oversize=True)
        else:
            self._load(index, episode, plan)
            self._write(index, state)
        self._offer(index, episode)
        return outcome_of(time_step, state.agent.moves_remaining, valid, oversize)

    # -- starts and observations --------------------------------------------------------

    def _start(self, index: int, state: MathyEnvState, plan: Optional[_Plan]) -> _Episode:
        """A new episode of `state` in slot `index`: its observation and mask
        written by the native kernel where it answers for them (`plan`, as for
        steps), else as `MathyGymEnv` writes them."""
        episode = _Episode(state, self.env.parser)
        self._starts += 1
        if (
            plan is not None
            and self._load(index, episode, plan)
            and self._kernel.write(index, plan.goal, plan.preferred) is not None
        ):
            self._native_starts += 1
            self._write_head(index, state.agent.problem_type, state.time, episode.visits_now())
            self._offer(index, episode)
            return episode
        if plan is None:
            self._kernel.drop(index)  # the kernel must not step the last episode
        self._write(index, state)
        self._offer(index, episode)
        return episode

    def _write(self, index: int, state: MathyEnvState, oversize: bool = False) -> None:
        """Write the flat observation and the mask of `state` into row `index`
        (with no valid action when `oversize`)."""
        env = self.env
        length = self._length
        moves = env.valid_moves_array(state)
        if oversize:
            moves = moves[:, :0]
        self._set_mask(index, moves)
        self.observations[index] = state.to_observation(
            move_mask=moves,
            parser=env.parser,
            normalize=True,
            max_seq_len=length,
            obs_type="flat",
            revisits=self.revisits,
        )

    def _offer(self, index: int, episode: _Episode) -> None:
        """With `mask_revisits`, row `index` of the shown masks and its
        observation's mask slice: the moves `MathyEnv.least_visited_moves_array`
        offers in the episode's state (its valid moves, just written, less the
        moves back to more visited expressions); computed by the native kernel
        where it holds the episode."""
        if not self.mask_revisits:
            return
        if not self._kernel.offer(index):
            self._offer_by_env(index, episode)

    def _offer_by_env(self, index: int, episode: _Episode) -> None:
        """`_offer` where the native kernel did not write the offered moves:
        the env's own `least_visited_moves_array`."""
        valid = self._valid[index]
        offered = self._offered[index]
        offered[:] = valid
        if not valid.any():
            return  # no valid move (an oversize step shows none)
        # The env's own answer (a subclass may change it).
        moves = self.env.least_visited_moves_array(episode.state)
        grid = self._offered_grids[index]
        grid[:] = 0
        grid[:, : moves.shape[1]] = moves
        self._mask_values[index][:] = offered

    def _rules_now(self) -> List[Dict[str, Any]]:
        """The env's rules as the masks depend on them: each rule object and its
        settings."""
        return [{"rule": rule, **vars(rule)} for rule in self.env.rules]

    def _refresh_masks(self) -> None:
        """Recompute the masks of the episodes in play when the env's rules (or
        a rule's settings) changed since they were computed: validity is then
        what `get_next_state` would decide now."""
        rules = self._rules_now()
        if rules == self._rules_seen:
            return
        for index, episode in enumerate(self._episodes):
            if not self._over[index]:
                self._pull(index)
                self._set_mask(index, self.env.valid_moves_array(episode.state))
        self._rules_seen = rules

    def _set_mask(self, index: int, moves: npt.NDArray[np.int8]) -> None:
        """Row `index` of the batch's own masks: `moves`, a `(rules, nodes)`
        mask, zero padded to `L` nodes."""
        mask = self._valid[index].reshape(-1, self._length)
        mask[:] = 0
        mask[:, : moves.shape[1]] = moves


__all__ = ("StepBatch",)
