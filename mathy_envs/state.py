"""Environment states: immutable-by-convention values and their observations
(serialization is in `mathy_envs.serialization`).

Every method that "changes" a state returns a new one; nothing a state holds is
ever mutated after it is built.
"""

import hashlib
from functools import lru_cache
from typing import Any, List, Literal, NamedTuple, Optional, Tuple, Union, overload

import numpy as np
import numpy.typing as npt
from mathy_core import ExpressionParser

from .observations import (
    DEFAULT_MAX_SEQ_LEN,
    FloatArray,
    MathyGraphObservation,
    MathyHierarchicalObservation,
    MathyMessagePassingObservation,
    MathyObservation,
    MathyObservationUnion,
    MoveMask,
    ObservationInputs,
    ObservationType,
    as_matrix,
    check_fits,
    get_observation_kind,
    mask_matrix,
)

# Importable from here before observations became a package; kept for callers.
from .observations import (  # noqa: F401
    action_mask,
    flat_observation,
    graph_observation,
    hierarchical_observation,
    message_passing_observation,
    to_observation_type,
)
from .limits import (
    check_max_seq_len,
    check_move_budget,
    check_num_rules,
    quote,
    type_name,
)
from .parsing import is_library_code, parse, private_entry
from .types import ActionType

NO_ACTION: ActionType = (-1, -1)


class MathyEnvStateStep(NamedTuple):
    """One step of a state's history: the expression text and the action that
    produced it (`(-1, -1)` for the starting expression)."""

    raw: str
    action: ActionType


class MathyAgentState:
    """The agent's view of an episode: the current problem and how it got there."""

    moves_remaining: int
    """Moves left before the episode runs out of its budget."""
    problem: str
    """The current expression, as text."""
    problem_type: str
    """The namespace of the env that made the problem."""
    reward: float
    """A reward value stored with the state (0.0 unless set) and copied to the
    states after it; the env's step rewards come back in `get_next_state`'s time
    step instead."""
    history: List[MathyEnvStateStep]
    """Every expression of the episode with the action that produced it, the
    starting problem first."""

    def __init__(
        self,
        moves_remaining: int,
        problem: str,
        problem_type: str,
        reward: float = 0.0,
        history: Optional[List[MathyEnvStateStep]] = None,
    ) -> None:
        self.moves_remaining = moves_remaining
        self.problem = problem
        self.problem_type = problem_type
        self.reward = reward
        self.history = (
            list(history)
            if history is not None
            else [MathyEnvStateStep(problem, NO_ACTION)]
        )

    @property
    def action(self) -> ActionType:
        """The action that produced the current problem (`(-1, -1)` at the start)."""
        return self.history[-1].action if self.history else NO_ACTION

    @classmethod
    def copy(cls, from_state: "MathyAgentState") -> "MathyAgentState":
        return cls(
            moves_remaining=from_state.moves_remaining,
            problem=from_state.problem,
            problem_type=from_state.problem_type,
            reward=from_state.reward,
            history=from_state.history,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MathyAgentState):
            return NotImplemented
        return (
            self.moves_remaining == other.moves_remaining
            and self.problem == other.problem
            and self.problem_type == other.problem_type
            and self.reward == other.reward
            and self.history == other.history
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"MathyAgentState(moves_remaining={self.moves_remaining}, "
            f"problem={self.problem!r}, problem_type={self.problem_type!r}, "
            f"reward={self.reward!r}, history={self.history!r})"
        )


_new_inputs = tuple.__new__
"""Builds an `ObservationInputs` from a tuple of every field, without the named
tuple's Python-level `__new__` (to_observation is a hot path)."""


@lru_cache(maxsize=256)
def problem_hash(namespace: str) -> Tuple[float, float]:
    """Two floats in [0, 1] derived from `namespace`, the same in every process."""
    values = []
    for salt in (b"mathy-type-0:", b"mathy-type-1:"):
        digest = hashlib.sha256(salt + namespace.encode("utf-8")).digest()
        values.append(int.from_bytes(digest[:8], "big") / float(2**64 - 1))
    return values[0], values[1]


def check_state(env_state: Any) -> "MathyEnvState":
    """`env_state`, or a `ValueError` when it is not a `MathyEnvState`."""
    if not isinstance(env_state, MathyEnvState):
        raise ValueError(f"expected a MathyEnvState, got {type(env_state).__name__}")
    return env_state


class MathyEnvState:
    """The state of an episode: the agent state plus episode constants.

    Build one from a problem text, or copy another state with `state=`.
    """

    agent: MathyAgentState
    """The current problem, moves left and history."""
    max_moves: int
    """The move budget the episode started with."""
    num_rules: int
    """The number of rules of the env, which sizes the action mask."""

    def __init__(
        self,
        state: Optional["MathyEnvState"] = None,
        problem: Optional[str] = None,
        max_moves: int = 10,
        num_rules: int = 0,
        problem_type: str = "mathy.unknown",
    ) -> None:
        if state is not None:
            if not isinstance(state, MathyEnvState):
                raise ValueError(
                    f"state must be a MathyEnvState to copy, got {type(state).__name__}"
                )
            self.max_moves = state.max_moves
            self.num_rules = state.num_rules
            self.agent = MathyAgentState.copy(state.agent)
            return
        if problem is None:
            raise ValueError("MathyEnvState needs a problem text or a state to copy")
        if not isinstance(problem, str):
            raise ValueError(f"problem must be a str, got {type(problem).__name__}")
        max_moves = check_move_budget("max_moves", max_moves, least=0)
        if not isinstance(problem_type, str):
            raise ValueError(
                f"problem_type must be a str, got {type(problem_type).__name__}"
            )
        num_rules = check_num_rules(num_rules)
        parse(problem)  # a ValueError when the text is unreadable or out of range
        self.max_moves = max_moves
        self.num_rules = num_rules
        self.agent = MathyAgentState(
            moves_remaining=max_moves, problem=problem, problem_type=problem_type
        )

    # -- values ---------------------------------------------------------------

    def clone(self) -> "MathyEnvState":
        return MathyEnvState(state=self)

    @classmethod
    def copy(cls, from_state: "MathyEnvState") -> "MathyEnvState":
        return cls(state=from_state)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MathyEnvState):
            return NotImplemented
        return (
            self.max_moves == other.max_moves
            and self.num_rules == other.num_rules
            and self.agent == other.agent
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"MathyEnvState(problem={self.agent.problem!r}, "
            f"moves_remaining={self.agent.moves_remaining}, "
            f"max_moves={self.max_moves}, num_rules={self.num_rules})"
        )

    def get_out_state(
        self, problem: str, action: ActionType, moves_remaining: int
    ) -> "MathyEnvState":
        """The next state: `problem` reached by `action`, appended to the history."""
        step = MathyEnvStateStep(problem, (int(action[0]), int(action[1])))
        return self._with_history(self.agent.history + [step], moves_remaining)

    def _with_history(
        self, history: List[MathyEnvStateStep], moves_remaining: int
    ) -> "MathyEnvState":
        """A state with this one's constants, the given (non-empty) history and
        moves; its problem is the last step's text."""
        out = MathyEnvState.__new__(MathyEnvState)
        out.max_moves = self.max_moves
        out.num_rules = self.num_rules
        agent = self.agent
        out.agent = MathyAgentState(
            moves_remaining=moves_remaining,
            problem=history[-1].raw,
            problem_type=agent.problem_type,
            reward=agent.reward,
            history=history,
        )
        return out

    def get_problem_hash(self) -> List[float]:
        """Two floats in [0, 1] identifying the problem type (env namespace)."""
        return list(problem_hash(self.agent.problem_type))

    @property
    def time(self) -> float:
        """Fraction of the episode's moves used, clipped to [0, 1]."""
        max_moves = self.max_moves
        if max_moves <= 0:
            return 1.0
        used = float((max_moves - self.agent.moves_remaining) / max_moves)
        return 0.0 if used < 0.0 else 1.0 if used > 1.0 else used

    # -- observations ---------------------------------------------------------

    @overload
    def to_observation(
        self,
        move_mask: Optional[MoveMask] = ...,
        hash_type: Optional[List[float]] = ...,
        parser: Optional[ExpressionParser] = ...,
        normalize: bool = ...,
        max_seq_len: Optional[int] = ...,
        obs_type: Literal[ObservationType.FLAT, "flat"] = ...,
        mask_as_probabilities: bool = ...,
    ) -> FloatArray: ...

    @overload
    def to_observation(
        self,
        move_mask: Optional[MoveMask] = ...,
        hash_type: Optional[List[float]] = ...,
        parser: Optional[ExpressionParser] = ...,
        normalize: bool = ...,
        max_seq_len: Optional[int] = ...,
        *,
        obs_type: Literal[ObservationType.GRAPH, "graph"],
        mask_as_probabilities: bool = ...,
    ) -> MathyGraphObservation: ...

    @overload
    def to_observation(
        self,
        move_mask: Optional[MoveMask] = ...,
        hash_type: Optional[List[float]] = ...,
        parser: Optional[ExpressionParser] = ...,
        normalize: bool = ...,
        max_seq_len: Optional[int] = ...,
        *,
        obs_type: Literal[ObservationType.HIERARCHICAL, "hierarchical"],
        mask_as_probabilities: bool = ...,
    ) -> MathyHierarchicalObservation: ...

    @overload
    def to_observation(
        self,
        move_mask: Optional[MoveMask] = ...,
        hash_type: Optional[List[float]] = ...,
        parser: Optional[ExpressionParser] = ...,
        normalize: bool = ...,
        max_seq_len: Optional[int] = ...,
        *,
        obs_type: Literal[ObservationType.MESSAGE_PASSING, "message_passing"],
        mask_as_probabilities: bool = ...,
    ) -> MathyMessagePassingObservation: ...

    @overload
    def to_observation(
        self,
        move_mask: Optional[MoveMask] = ...,
        hash_type: Optional[List[float]] = ...,
        parser: Optional[ExpressionParser] = ...,
        normalize: bool = ...,
        max_seq_len: Optional[int] = ...,
        *,
        obs_type: ObservationType,
        mask_as_probabilities: bool = ...,
    ) -> MathyObservationUnion: ...

    @overload
    def to_observation(
        self,
        move_mask: Optional[MoveMask] = ...,
        hash_type: Optional[List[float]] = ...,
        parser: Optional[ExpressionParser] = ...,
        normalize: bool = ...,
        max_seq_len: Optional[int] = ...,
        obs_type: Union[ObservationType, str] = ...,
        mask_as_probabilities: bool = ...,
    ) -> Any: ...

    def to_observation(
        self,
        move_mask: Optional[MoveMask] = None,
        hash_type: Optional[List[float]] = None,
        parser: Optional[ExpressionParser] = None,
        normalize: bool = True,
        max_seq_len: Optional[int] = None,
        obs_type: Union[ObservationType, str] = ObservationType.FLAT,
        mask_as_probabilities: bool = False,
    ) -> Any:
        """Build an observation of this state in the format `obs_type`: an
        `ObservationType`, or the name of any registered observation type.

        - `move_mask`: the `num_rules x num_nodes` valid-move mask (all zeros if None)
        - `hash_type`: the two-value problem hash (this state's if None)
        - `parser`: the parser to read the problem with (a shared default if None)
        - `normalize`: scale every feature into [0, 1]
        - `max_seq_len`: `L`, the padded node count (`DEFAULT_MAX_SEQ_LEN` if None)
        - `mask_as_probabilities`: write the action mask as the uniform
          distribution over valid actions (it sums to 1) instead of 0/1
        """
        kind = get_observation_kind(obs_type)
        if normalize is not True and not isinstance(normalize, (bool, np.bool_)):
            raise ValueError(f"normalize must be a bool, got {quote(normalize, 40)}")
        if mask_as_probabilities is not False and not isinstance(
            mask_as_probabilities, (bool, np.bool_)
        ):
            raise ValueError(
                "mask_as_probabilities must be a bool, got "
                f"{quote(mask_as_probabilities, 40)}"
            )
        if parser is not None and not isinstance(parser, ExpressionParser):
            raise ValueError(
                f"parser must be a mathy_core ExpressionParser, got {type(parser).__name__}"
            )
        length = check_max_seq_len(
            DEFAULT_MAX_SEQ_LEN if max_seq_len is None else max_seq_len
        )
        entry = parse(self.agent.problem, parser)
        if not is_library_code(kind.build):
            # A user's observation type reads a layout of its own, over a copy of
            # the tree: nothing it does to the nodes reaches the cache.
            entry = private_entry(entry)
        layout = entry.layout
        check_fits(len(layout.nodes), length)
        hashed = (
            problem_hash(self.agent.problem_type)
            if hash_type is None
            else _checked_hash(hash_type, bool(normalize))
        )
        inputs: ObservationInputs = _new_inputs(
            ObservationInputs,
            (
                self,
                layout,
                hashed,
                self.time,
                mask_matrix(move_mask, length),
                self.num_rules,
                bool(normalize),
                length,
                bool(mask_as_probabilities),
            ),
        )
        return kind.build(inputs)

    def to_mathy_observation(
        self,
        move_mask: Optional[MoveMask] = None,
        parser: Optional[ExpressionParser] = None,
        max_seq_len: Optional[int] = None,
    ) -> MathyObservation:
        """The plain-list `MathyObservation` of this state (nodes in pre-order).

        With `max_seq_len`, nodes, values and every mask row are zero padded to it.
        """
        if parser is not None and not isinstance(parser, ExpressionParser):
            raise ValueError(
                f"parser must be a mathy_core ExpressionParser, got {type_name(parser)}"
            )
        layout = parse(self.agent.problem, parser).layout
        n = len(layout.nodes)
        nodes, values = layout.preorder_lists()
        if move_mask is None:
            mask: List[List[int]] = [[0] * n for _ in range(self.num_rules)]
        else:
            if not (type(move_mask) is np.ndarray and move_mask.dtype == np.int8):
                # Anything but the env's own int8 masks, as int64.
                move_mask = _int64_mask(move_mask)
            mask = as_matrix(move_mask).tolist()
        if max_seq_len is not None:
            check_fits(n, check_max_seq_len(max_seq_len))
            for row in mask:
                if len(row) > max_seq_len:
                    raise ValueError(
                        f"move_mask has {len(row)} node columns, more than "
                        f"max_seq_len={max_seq_len}"
                    )
            pad = max_seq_len - n
            nodes = nodes + [0] * pad
            values = values + [0.0] * pad
            mask = [row + [0] * (max_seq_len - len(row)) for row in mask]
        return MathyObservation(
            nodes=nodes,
            mask=mask,
            values=values,
            type=self.get_problem_hash(),
            time=[self.time],
        )

    # -- serialization (`mathy_envs.serialization`) ----------------------------

    def to_string(self) -> str:
        """Serialize to `@`-separated fields; see `from_string`."""
        from .serialization import to_string

        return to_string(self)

    @classmethod
    def from_string(cls, text: str) -> "MathyEnvState":
        """Rebuild a state from `to_string` output.

        Raises `ValueError` naming the field that is malformed.
        """
        from .serialization import from_string

        return from_string(text, cls)

    def to_np(self, pad_to: Optional[int] = None) -> npt.NDArray[np.uint8]:
        """`to_string()` as uint8 codes, right padded with spaces to `pad_to`."""
        from .serialization import to_np

        return to_np(self, pad_to)

    @classmethod
    def from_np(cls, input_bytes: npt.NDArray[Any]) -> "MathyEnvState":
        """Rebuild a state from `to_np` output (padding included)."""
        from .serialization import from_np

        return from_np(input_bytes, cls)


def _int64_mask(move_mask: Any) -> npt.NDArray[np.int64]:
    """A user's move mask as int64s, or a `ValueError` when it holds anything but
    0/1 numbers (whole numbers; nonzero ones count as 1)."""
    try:
        array = np.asarray(move_mask)
    except (TypeError, ValueError, OverflowError):
        array = None
    whole = array is not None and (
        array.dtype.kind in "biu"
        or (
            array.dtype.kind == "f"
            and bool((np.isfinite(array) & (array == np.trunc(array))).all())
            and bool((abs(array) <= 2**53).all())
        )
    )
    if array is None or not whole:
        raise ValueError(
            f"move_mask must be a (num_rules, num_nodes) matrix of 0/1 values, got "
            f"{quote(move_mask, 80)}"
        )
    mask: npt.NDArray[np.int64] = array.astype(np.int64)
    return mask


def _checked_hash(hash_type: Any, normalize: bool) -> Tuple[float, float]:
    """A user-given problem hash: two finite numbers, in [0, 1] when normalizing."""
    try:
        values = [float(value) for value in hash_type]
    except (TypeError, ValueError):
        raise ValueError(
            f"hash_type must be two numbers, got {quote(hash_type, 60)}"
        ) from None
    if len(values) != 2:
        raise ValueError(f"hash_type must hold two values, got {len(values)}")
    if not all(np.isfinite(values)) or (
        normalize and not all(0.0 <= value <= 1.0 for value in values)
    ):
        raise ValueError(
            f"hash_type must be two finite numbers{' in [0, 1]' if normalize else ''}, "
            f"got {quote(hash_type, 60)}"
        )
    return values[0], values[1]


__all__ = (
    "MathyAgentState",
    "MathyEnvState",
    "MathyEnvStateStep",
    "MathyGraphObservation",
    "MathyHierarchicalObservation",
    "MathyMessagePassingObservation",
    "MathyObservation",
    "MathyObservationUnion",
    "ObservationType",
    "problem_hash",
)
