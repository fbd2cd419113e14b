"""The fused batch kernel: every step of a `StepBatch` in one native call.

The batch hands the kernel its arrays once; the kernel holds each slot's
episode ("live": its expression, parsed by the native core, its moves left, its
visits per text). A batch step is one call, `BatchKernel.step`: for every live
slot, the rewrite of the expression by a core rule, the parse of the new text,
its admission, the goal (`NATIVE_GOALS`), the scoring (the reward scheme's
`Scoring` as data), the flat observation row with its head, the valid-move
mask and the offered moves, written into the batch's arrays with the GIL
released (on several threads where asked), with no Python object made. Where
the native core leaves a slot's step to the library's Python path it says so
per slot, having changed nothing of that slot, and the batch takes the Python
path for it.

Only the engine touches the native core: the batch above hands the kernel its
arrays, texts and settings and gets statuses and texts back.
"""

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .admission import MOVE_LIMITS, SAFE_CONSTANT, SAFE_SIZE
from .layout import MAX_TYPE_ID
from .native import NATIVE, core_reason
from .parse_cache import ExpressionCache

ByteRows = npt.NDArray[np.int8]
BoolRow = npt.NDArray[np.bool_]

if TYPE_CHECKING:
    from .._native import Batch as NativeBatch

GOAL_SIMPLIFIED = "simplified"
"""The goal of the simplify tasks (`is_simplified`): the native core's verdict on
the new expression."""
GOAL_FACTOR_OUT_APPLIES = "factor out applies"
"""Distributive factor out applies to some node (`factor_out_applies`): a valid
cell in factor out's row of the new expression's mask."""
GOAL_LIKE_TERMS_GROUPED = "like terms grouped"
"""Every kind of term of the sum forms one contiguous run (`like_terms_grouped`):
the native core's verdict on the new expression."""
GOAL_ACTED_AT_LIKE_TERM = "acted at a like term"
"""The goal of PolyHaystackLikeTerms: the move's node is a term of the sum that
has a like term elsewhere in it (`like_term_indexes` of the expression the move
was made on), which the kernel tells from the move."""
NATIVE_GOALS = frozenset(
    {GOAL_SIMPLIFIED, GOAL_FACTOR_OUT_APPLIES, GOAL_LIKE_TERMS_GROUPED, GOAL_ACTED_AT_LIKE_TERM}
)
"""The goals the kernel tells (an env class's `native_goal`)."""
MOVE_GOALS = frozenset({GOAL_ACTED_AT_LIKE_TERM})
"""The goals told from the move and the expression it was made on (their envs'
goals depend on the history), whose lose signal the kernel reads from a table
(`BatchKernel.set_losses`)."""

def kernel_unavailable() -> Optional[str]:
    """Why no step can be native in this process (a sentence), or None when
    the native core is in use."""
    return core_reason()


MAX_KERNEL_THREADS = 256
"""The most threads a batch step takes (`BatchKernel.step`'s `num_threads`)."""

SLOT_STEPPED, SLOT_LEFT, SLOT_OFFER_LEFT, SLOT_OVER = 0, 1, 2, 3
"""`BatchKernel.step`'s status of a slot: stepped natively; left to the Python
path (nothing of the slot changed); stepped natively but its offered moves
left to the Python path; over (the episode ended: the batch starts another)."""


class BatchKernel:
    """The native side of a batch whose arrays these are (written in place, one
    row per slot): flat observations (float32, `(slots, head + 2L + R*L)`, the
    head 4 values with `revisits`, else 3), the valid and the offered masks
    (int8, `(slots, R*L)`; one array without `mask_revisits`), and each slot's
    reward (float64), terminated, valid and oversize flags (bool) and moves
    left (int64) of its last native step; `revisit_values[n]` is the revisit
    feature of an expression seen n times before. `available` is False where
    no native core is in use or the rows are not the core rules' (R = 7):
    then every call says "left to the Python path".

    Not thread-safe: the batch calls it under its lock. A copy or a pickle
    holds no slot (the batch loads them again).
    """

    __slots__ = ("_native", "_arrays", "_settings", "_scoring", "_scoring_given", "_losses")

    def __init__(
        self,
        observations: npt.NDArray[np.float32],
        masks: ByteRows,
        offered: ByteRows,
        rewards: npt.NDArray[np.float64],
        terminated: BoolRow,
        valid: BoolRow,
        oversize: BoolRow,
        left: npt.NDArray[np.int64],
        length: int,
        revisits: bool,
        mask_revisits: bool,
        revisit_values: Sequence[float],
    ) -> None:
        self._arrays = (observations, masks, offered, rewards, terminated, valid, oversize, left)
        self._settings = (int(length), bool(revisits), bool(mask_revisits), list(revisit_values))
        self._scoring: Optional[Tuple[Any, ...]] = None
        self._scoring_given: Optional[Tuple[Any, ...]] = None
        self._losses: Optional[object] = None
        self._native = self._make()

    def _make(self) -> "Optional[NativeBatch]":
        if NATIVE is None or self._arrays[1].shape[1] != NATIVE.CORE_RULES * self._settings[0]:
            return None
        return NATIVE.Batch(*self._arrays, *self._settings, list(MOVE_LIMITS))

    def __getstate__(self) -> Dict[str, Any]:
        # Native slots do not pickle: the batch loads its episodes again.
        return {"_arrays": self._arrays, "_settings": self._settings}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self._arrays = state["_arrays"]
        self._settings = state["_settings"]
        self._scoring = None
        self._scoring_given = None
        self._losses = None
        self._native = self._make()

    @property
    def available(self) -> bool:
        """Whether the native core takes this batch's steps (see the class)."""
        return self._native is not None

    def set_scoring(
        self,
        rule_rewards: Sequence[float],
        order: Sequence[str],
        penalize_revisits: bool,
        revisit_penalty: float,
        max_visits: int,
        lose: float,
        timestep: float,
    ) -> bool:
        """Score the steps with a reward scheme's scoring as data (the fields
        of `mathy_envs.rewards.Scoring`, its checks named in `order`); False,
        changing nothing, where the native core does not read the data as the
        scheme does: a check it does not know, or a number whose product with a
        visit count or whose float differs from Python's."""
        if self._native is None or NATIVE is None:
            return False
        given = (rule_rewards, order, penalize_revisits, revisit_penalty, max_visits,
                 lose, timestep)
        if self._scoring is not None and same_objects(given, self._scoring_given):
            return True  # (the same objects as the data the kernel has)
        data = exact_key(
            (tuple(rule_rewards), tuple(order), penalize_revisits, revisit_penalty,
             max_visits, lose, timestep)
        )
        if self._scoring == data:
            self._scoring_given = given
            return True
        checks = NATIVE.SCORING_CHECKS
        numbers = (*rule_rewards, revisit_penalty, lose, timestep)
        if (
            any(name not in checks for name in order)
            or not all(_exact_float(number) for number in numbers)
            or isinstance(max_visits, bool)
            or not isinstance(max_visits, int)
            or not (-(2**62) <= max_visits < 2**62)
        ):
            return False
        self._native.set_scoring(
            [float(each) for each in rule_rewards],
            [checks.index(name) for name in order],
            bool(penalize_revisits),
            float(revisit_penalty),
            max_visits,
            float(lose),
            float(timestep),
        )
        self._scoring = data
        self._scoring_given = given
        return True

    def set_losses(self, key: object, table: Sequence[float], plain: float) -> bool:
        """The lose signal of the steps of a goal of `MOVE_GOALS`, as data (an
        env's `native_losses`): `table[largest * L + distance]` for a move at
        `distance` positions from the nearest term with a like term, `largest`
        the largest term position, and `plain` where the sum has none; `key`
        names the data (given again, nothing is sent). False, changing nothing,
        where the native core does not read it as Python computes it."""
        if self._native is None:
            return False
        if self._losses == key:
            return True
        numbers = [*table, plain]
        if not all(isinstance(number, float) for number in numbers):
            return False
        self._native.set_losses(list(table), plain)
        self._losses = key
        return True

    def load(
        self,
        slot: int,
        expressions: ExpressionCache,
        text: str,
        left: int,
        visits: Dict[str, int],
        first: Tuple[str, str],
        hashed: Tuple[float, float],
        times: Sequence[float],
        wins: Sequence[float],
    ) -> bool:
        """Hold slot `slot`'s episode: its expression `text` (parsed by
        `expressions`), `left` moves left, its `visits` per text, its first text
        and that text's canonical form (`first`), its problem type's hash, and
        the time feature and the win reward by moves left (`left + 1` values
        each); False, the slot dropped, where the native core does not parse
        the text or the episode is out of its range."""
        native = self._native
        if native is None:
            return False
        parsed = expressions.parse(text).native
        if parsed is None or not (0 <= left < 2**31) or len(times) != left + 1:
            native.drop(slot)
            return False
        native.load(
            slot, parsed, text, left, visits, first[0], first[1], hashed[0], hashed[1],
            times, wins,
        )
        return True

    def write(self, slot: int, goal: str, preferred: bool) -> Optional[bool]:
        """Write held slot `slot`'s observation row (past its head) and mask:
        the goal's verdict of its expression, or None, having written nothing,
        where the Python path writes them."""
        if self._native is None:
            return None
        return self._native.write(
            slot, _goal_index(goal), preferred, SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID
        )

    def offer(self, slot: int) -> bool:
        """Write held slot `slot`'s offered moves (its valid moves less those
        back to more visited expressions, `least_visited`) into its offered
        mask and its observation's mask values, from its visits; False, having
        written nothing, where the Python path writes them."""
        return self._native is not None and self._native.offer(slot)

    def drop(self, slot: int) -> None:
        """Slot `slot` moved on by the Python path: the kernel forgets it."""
        if self._native is not None:
            self._native.drop(slot)

    def pull(self, slot: int) -> Optional[Tuple[str, int, Dict[str, int], List[Tuple[str, Tuple[int, int]]]]]:
        """`(text, moves left, visits, taken)` of held slot `slot`, `taken` the
        `(text, (rule, node))` of its native steps since the last pull (handed
        over); None for a slot the kernel does not hold."""
        return None if self._native is None else self._native.pull(slot)

    def step(
        self,
        actions: npt.NDArray[np.int64],
        over: BoolRow,
        goal: str,
        preferred: bool,
        num_threads: int = 1,
    ) -> Optional[npt.NDArray[np.int8]]:
        """Step every held slot that is not `over` by its action (`rule * L +
        node`) on `num_threads` threads, scored by the data of `set_scoring`:
        each slot's status (`SLOT_STEPPED`, `SLOT_LEFT`, `SLOT_OFFER_LEFT`, `SLOT_OVER`); None
        where no native core takes the batch's steps."""
        if self._native is None or self._scoring is None:
            return None
        return self._native.step(
            actions, over, _goal_index(goal), preferred, SAFE_CONSTANT, SAFE_SIZE,
            MAX_TYPE_ID, num_threads,
        )


_ATOMS = (float, int, str, bool, bytes, type(None))


def same_objects(first: Tuple[Any, ...], second: Optional[Tuple[Any, ...]]) -> bool:
    """Whether two tuples hold the very same immutable objects (numbers, texts,
    classes; tuples of them compared so, at any depth): then every key made of
    them (`exact_key`) is the same, and need not be made again."""
    if second is None or len(first) != len(second):
        return False
    for one, other in zip(first, second):
        if one is other and (type(one) in _ATOMS or isinstance(one, type)):
            continue
        if type(one) is tuple and type(other) is tuple and same_objects(one, other):
            continue
        return False
    return True


def exact_key(value: Any) -> Any:
    """`value` with each float (in tuples, at any depth) as its exact bits: keys
    of settings that compare equal only where the floats are the same (`0.0`
    and `-0.0` differ; a NaN equals itself)."""
    if isinstance(value, float):
        return (float, value.hex())
    if isinstance(value, tuple):
        return tuple(exact_key(each) for each in value)
    return value


def _exact_float(number: object) -> bool:
    """Whether `number` is a float, or an int a float holds exactly."""
    if isinstance(number, bool):
        return False
    if isinstance(number, float):
        return True
    return isinstance(number, int) and -(2**53) <= number <= 2**53


def _goal_index(goal: str) -> int:
    """The native core's index of goal `goal` (one of `NATIVE_GOALS`)."""
    if goal not in NATIVE_GOALS or NATIVE is None:
        raise ValueError(f"goal must be one of {sorted(NATIVE_GOALS)}, got {goal!r}")
    return NATIVE.GOAL_NAMES.index(goal)


__all__ = (
    "GOAL_ACTED_AT_LIKE_TERM",
    "GOAL_FACTOR_OUT_APPLIES",
    "GOAL_LIKE_TERMS_GROUPED",
    "GOAL_SIMPLIFIED",
    "MOVE_GOALS",
    "NATIVE_GOALS",
    "MAX_KERNEL_THREADS",
    "exact_key",
    "SLOT_LEFT",
    "SLOT_OFFER_LEFT",
    "SLOT_OVER",
    "SLOT_STEPPED",
    "BatchKernel",
    "kernel_unavailable",
)
