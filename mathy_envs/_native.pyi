"""Types of `mathy_envs._native`, the native core compiled from `native/bindings.cpp`.

Checked against the built module by `python -m mypy.stubtest mathy_envs._native`
(CI's fast stage, tests/_engine/test_native_stub.py). Integer arguments are
`SupportsIndex`: pybind11 takes any object with `__index__` (never a float).
The buffers are typed as the bindings take them: any buffer of the right
shape and item size (`py::buffer`: `Buffer`, and numpy arrays of such items,
which typeshed's `Buffer` covers only from Python 3.12), or a float32 or int8
numpy array where nothing else passes (`py::array_t` with `noconvert`).

Only mathy_envs._engine imports this module (an import-linter contract); the
rest of the package annotates with `mathy_envs._engine.NativeExpression`.
"""

from typing import Final, Sequence, SupportsIndex, TypeVar

import numpy as np
import numpy.typing as npt
from typing_extensions import Buffer, TypeAlias

_Node = TypeVar("_Node")
_ByteCells: TypeAlias = Buffer | npt.NDArray[np.int8 | np.uint8 | np.bool_]
"""A buffer of one-byte cells (int8 where written to)."""
_FloatCells: TypeAlias = Buffer | npt.NDArray[np.float32]
"""A buffer of float32 cells."""

CORE_RULES: Final[int]
"""The number of core rules (rule indexes are 0 to CORE_RULES - 1)."""
CORE_RULE_NAMES: Final[tuple[str, ...]]
"""mathy_core's class name of each core rule this core implements, in action order."""
MAX_NODES: Final[int]
"""The most nodes of a text the native core parses."""

PROBLEM_FAMILIES: Final[tuple[str, ...]]
"""The built-in generator families `draw_problem` draws, by index."""

def draw_problem(
    bit_generator: object, family: SupportsIndex, counts: Sequence[SupportsIndex],
    chances: Sequence[float], ops: Sequence[str], variables: str, common_variables: str,
    numbers: Sequence[SupportsIndex], limits: Sequence[SupportsIndex],
) -> tuple[str, int] | None:
    """A built-in generator's `(text, complexity)` drawn from a numpy bit
    generator, or None where the Python generator must draw it."""

def replay_draws(
    bit_generator: object, draws: Sequence[tuple[SupportsIndex, SupportsIndex, SupportsIndex]]
) -> list[float | int | list[int] | None]:
    """numpy Generator draws (`random`, `integers`, `permutation`) replayed."""

def key_hash(key: str) -> int:
    """values.py's `_Evaluator._hash` of a whole key."""

class Expression:
    """A text parsed by the native core (made by `Expression.parse` only)."""

    @staticmethod
    def parse(text: object) -> Expression | None: ...
    def text(self) -> str: ...
    def __len__(self) -> int: ...
    def build(
        self, classes: tuple[type[_Node], ...], counter: SupportsIndex
    ) -> tuple[int, list[_Node]]: ...
    def walk(
        self,
    ) -> tuple[
        list[int], int, list[int], list[int], list[int], list[float], list[int], list[float], bool
    ]: ...
    def apply(self, rule: SupportsIndex, node: SupportsIndex) -> str | None: ...
    def apply_mask(self, mask: _ByteCells) -> list[tuple[int, int, str | None]]: ...
    def offer(
        self,
        valid: _ByteCells,
        visits: dict[str, int],
        offered: _ByteCells,
        mask_values: _FloatCells,
        length: SupportsIndex,
    ) -> bool: ...
    def rewrite_reads_as(
        self, rule: SupportsIndex, node: SupportsIndex, other: Expression
    ) -> bool | None: ...
    def admission(
        self, safe_constant: SupportsIndex
    ) -> tuple[bool, bool, bool, int, list[int | float]]: ...
    def variable_powers(self) -> bool: ...
    def variables(self) -> str: ...
    def point_values(
        self, points: Sequence[Sequence[SupportsIndex]], roots: SupportsIndex
    ) -> list[int] | None: ...
    def symbolic_value(self, prefix: str) -> int | None: ...
    def rewrite_values(
        self,
        rule: SupportsIndex,
        node: SupportsIndex,
        points: Sequence[Sequence[SupportsIndex]],
        roots: SupportsIndex,
        prefix: str,
    ) -> tuple[list[int] | None, int | None] | None: ...
    def like_term_positions(self) -> tuple[list[int], list[int]] | None: ...
    def like_terms_grouped(self) -> bool | None: ...
    def simplified(self) -> bool | None: ...
    def type_ids(self) -> list[int]: ...
    def mask(self, preferred_commute: bool = False) -> bytes: ...
    def check_moves(
        self, text: str, preferred_commute: bool, limits: Sequence[SupportsIndex]
    ) -> bytes: ...
    def write_flat(
        self,
        preferred_commute: bool,
        safe_constant: SupportsIndex,
        safe_size: SupportsIndex,
        max_type_id: SupportsIndex,
        row: npt.NDArray[np.float32],
        mask: npt.NDArray[np.int8],
    ) -> bool | None: ...
    def step_flat(
        self,
        rule: SupportsIndex,
        node: SupportsIndex,
        preferred_commute: bool,
        safe_constant: SupportsIndex,
        safe_size: SupportsIndex,
        max_type_id: SupportsIndex,
        row: npt.NDArray[np.float32],
        mask: npt.NDArray[np.int8],
    ) -> tuple[Expression, str, bool] | None: ...

SCORING_CHECKS: Final[tuple[str, ...]]
"""The checks of a reward scheme's scoring the batch kernel reads (by index)."""
GOAL_NAMES: Final[tuple[str, ...]]
"""The goals the batch kernel tells of a new expression (by index)."""
MAX_THREADS: Final[int]
"""The most threads `Batch.step` takes."""

class Batch:
    """The native side of a batch (its arrays written in place)."""

    def __init__(
        self,
        observations: npt.NDArray[np.float32],
        masks: npt.NDArray[np.int8],
        offered: npt.NDArray[np.int8],
        rewards: npt.NDArray[np.float64],
        terminated: npt.NDArray[np.bool_],
        valid: npt.NDArray[np.bool_],
        oversize: npt.NDArray[np.bool_],
        left: npt.NDArray[np.int64],
        length: SupportsIndex,
        revisits: bool,
        mask_revisits: bool,
        revisit_values: Sequence[float],
        move_limits: Sequence[SupportsIndex],
    ) -> None: ...
    def __len__(self) -> int: ...
    def set_scoring(
        self,
        rule_rewards: Sequence[float],
        order: Sequence[SupportsIndex],
        penalize_revisits: bool,
        revisit_penalty: float,
        max_visits: SupportsIndex,
        lose: float,
        timestep: float,
    ) -> None: ...
    def set_losses(self, table: Sequence[float], plain: float) -> None: ...
    def load(
        self,
        slot: SupportsIndex,
        expression: Expression,
        text: str,
        left: SupportsIndex,
        visits: dict[str, int],
        first: str,
        first_key: str,
        hash0: float,
        hash1: float,
        times: Sequence[float],
        wins: Sequence[float],
    ) -> None: ...
    def write(
        self,
        slot: SupportsIndex,
        goal: SupportsIndex,
        preferred_commute: bool,
        safe_constant: SupportsIndex,
        safe_size: SupportsIndex,
        max_type_id: SupportsIndex,
    ) -> bool | None: ...
    def offer(self, slot: SupportsIndex) -> bool: ...
    def drop(self, slot: SupportsIndex) -> None: ...
    def live(self, slot: SupportsIndex) -> bool: ...
    def pull(
        self, slot: SupportsIndex
    ) -> tuple[str, int, dict[str, int], list[tuple[str, tuple[int, int]]]] | None: ...
    def step(
        self,
        actions: npt.NDArray[np.int64],
        over: npt.NDArray[np.bool_],
        goal: SupportsIndex,
        preferred_commute: bool,
        safe_constant: SupportsIndex,
        safe_size: SupportsIndex,
        max_type_id: SupportsIndex,
        num_threads: SupportsIndex = 1,
    ) -> npt.NDArray[np.int8]: ...
