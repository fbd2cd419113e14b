"""The fused batch kernel: a `StepBatch`'s steps taken in one native call each.

A batch slot's step, where the native core answers every part of it, is one
call: the rewrite of the expression by a core rule, the parse of the new text,
its admission, the goal (`NATIVE_GOALS`), the valid-move mask and the flat
observation row (past its head), written into the batch's arrays with no Python
object made for the expression. `FlatKernel` holds each slot's native parse
(the expression it stepped to last) and makes those calls; where the native
core leaves a step, a start or an offer to the library's Python path, it says
so (None or False) having written nothing, and the batch takes the Python path.

Only the engine touches the native core: the batch above hands the kernel its
rows and texts and gets texts and verdicts back.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from mathy_core.rules import DistributiveFactorOutRule

from .admission import SAFE_CONSTANT, SAFE_SIZE
from .layout import MAX_TYPE_ID
from .native import NativeExpression, core_reason
from .parse_cache import ExpressionCache
from .rules import CORE_RULE_TABLE

FloatRow = npt.NDArray[np.float32]
ByteRow = npt.NDArray[np.int8]

GOAL_SIMPLIFIED = "simplified"
"""The goal of the simplify tasks (`is_simplified`): the native core's verdict on
the new expression."""
GOAL_FACTOR_OUT_APPLIES = "factor out applies"
"""Distributive factor out applies to some node (`factor_out_applies`): a valid
cell in factor out's row of the new expression's mask."""
GOAL_LIKE_TERMS_GROUPED = "like terms grouped"
"""Every kind of term of the sum forms one contiguous run (`like_terms_grouped`):
the native core's verdict on the new expression."""
NATIVE_GOALS = frozenset({GOAL_SIMPLIFIED, GOAL_FACTOR_OUT_APPLIES, GOAL_LIKE_TERMS_GROUPED})
"""The goals the kernel tells of each new expression (an env class's
`native_goal`)."""
_FACTOR_OUT_ROW = next(
    index for index, row in enumerate(CORE_RULE_TABLE) if row.kind is DistributiveFactorOutRule
)


def kernel_unavailable() -> Optional[str]:
    """Why no step can be native in this process (a sentence), or None when
    the native core is in use."""
    return core_reason()


class FlatKernel:
    """The native side of a batch of `slots` episodes whose flat observation
    rows and masks are the given arrays (views, one per slot, written in place).

    Arguments:
        rows: each slot's observation row past the head the batch writes: the
            native core writes the published flat layout after a 3-value head
        masks: each slot's valid-move mask, flat (`rules * length` int8)
        offered: each slot's offered-move mask, flat (int8), which `offer`
            writes
        mask_values: each slot's observation slice that holds the offered mask
        length: the nodes of a row (`max_seq_len`)

    Not thread-safe: the batch calls it under its lock. A copy or a pickle
    keeps no native parse (each slot parses its text again when asked).
    """

    __slots__ = ("_parses", "_rows", "_masks", "_offered", "_mask_values", "_length")

    def __init__(
        self,
        rows: Sequence[FloatRow],
        masks: Sequence[ByteRow],
        offered: Sequence[ByteRow],
        mask_values: Sequence[FloatRow],
        length: int,
    ) -> None:
        self._rows = list(rows)
        self._masks = list(masks)
        self._offered = list(offered)
        self._mask_values = list(mask_values)
        self._length = int(length)
        # Each slot's native parse of its current expression (None: parse the
        # text when asked).
        self._parses: List[Optional[NativeExpression]] = [None] * len(self._rows)

    def __getstate__(self) -> Dict[str, Any]:
        # Native parses do not pickle; the slots parse their texts again.
        state = {name: getattr(self, name) for name in self.__slots__}
        state["_parses"] = [None] * len(self._rows)
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        for name in self.__slots__:
            setattr(self, name, state[name])

    def forget(self, slot: int) -> None:
        """Slot `slot` moved on by the Python path: its parse is no longer its
        expression's."""
        self._parses[slot] = None

    def start(self, slot: int, expressions: ExpressionCache, text: str, preferred: bool) -> bool:
        """Write the observation row (past its head) and the mask of a new
        episode of `text` in slot `slot`, parsed by `expressions`, with
        commutative swap's `preferred` setting; False, with the slot forgotten,
        where the native core leaves it to the Python path."""
        self._parses[slot] = None
        native = expressions.parse(text).native
        if native is None or native.write_flat(
            preferred, SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID, self._rows[slot], self._masks[slot]
        ) is None:
            return False
        self._parses[slot] = native
        return True

    def step(
        self,
        slot: int,
        expressions: ExpressionCache,
        text: str,
        rule: int,
        node: int,
        preferred: bool,
        goal: str = GOAL_SIMPLIFIED,
    ) -> Optional[Tuple[str, bool]]:
        """Apply core rule `rule` at node `node` (a valid move) to slot `slot`'s
        expression `text` and write the new expression's observation row (past
        its head) and mask: `(new text, won)`, `won` whether it reached `goal`
        (one of `NATIVE_GOALS`); None, having kept the slot's expression as it
        was, where the native core leaves the step to the Python path (a text
        it did not parse, a rewrite or a parse left to mathy_core, an
        expression outside its safe range or bigger than a row: nothing
        written; a goal verdict left to the Python path: the rows written,
        which the Python path writes again, and the slot forgotten)."""
        native = self._parses[slot]
        if native is None:
            native = expressions.parse(text).native
            if native is None:
                return None
        made = native.step_flat(
            rule, node, preferred, SAFE_CONSTANT, SAFE_SIZE, MAX_TYPE_ID,
            self._rows[slot], self._masks[slot],
        )
        if made is None:
            return None
        parsed, written, won = made
        if goal == GOAL_FACTOR_OUT_APPLIES:
            start = _FACTOR_OUT_ROW * self._length
            won = bool(self._masks[slot][start : start + self._length].any())
        elif goal == GOAL_LIKE_TERMS_GROUPED:
            verdict = parsed.like_terms_grouped()
            if verdict is None:
                self._parses[slot] = None
                return None
            won = verdict
        elif goal != GOAL_SIMPLIFIED:
            raise ValueError(f"goal must be one of {sorted(NATIVE_GOALS)}, got {goal!r}")
        self._parses[slot] = parsed
        return written, won

    def offer(self, slot: int, visits: Dict[str, int]) -> bool:
        """Write slot `slot`'s offered moves (its valid moves less those back to
        more visited expressions, `least_visited`) into its offered mask and its
        observation's mask slice, from the visits of its episode's texts;
        False, having written nothing, where the slot has no native parse or
        the native core leaves the offer to the Python path, which then writes
        them."""
        native = self._parses[slot]
        return native is not None and native.offer(
            self._masks[slot], visits, self._offered[slot], self._mask_values[slot], self._length
        )


__all__ = (
    "GOAL_FACTOR_OUT_APPLIES",
    "GOAL_LIKE_TERMS_GROUPED",
    "GOAL_SIMPLIFIED",
    "NATIVE_GOALS",
    "FlatKernel",
    "kernel_unavailable",
)
