"""Building observations of a state: `observe`, the one entry point every
observation type goes through, and `plain_observation`, the plain-list
`MathyObservation`.

`MathyEnvState.to_observation` and `MathyEnv.state_to_observation` call these.
`observe` is generic in the observation type: `observe(state, FLAT)` is a float32
array for mypy, `observe(state, GRAPH)` a `MathyGraphObservation`, and so on for
any `ObservationKind[T]`; look a type up by name with `get_observation_kind`.
"""

import hashlib
from functools import lru_cache
from typing import Any, List, Optional, Tuple, Union, overload

import numpy as np
import numpy.typing as npt
from mathy_core import ExpressionParser

from ..limits import DEFAULT_MAX_SEQ_LEN, check_max_seq_len, quote, type_name
from .._engine import parse
from .._engine import private_entry
from .._engine import is_library_code
from .common import (
    MathyObservation,
    MoveMask,
    ObservationInputs,
    ObservationKind,
    ObservationT,
    ObservationType,
    ObservedAgent,
    ObservedState,
    as_matrix,
    check_fits,
    known_mask,
    mask_lists,
    mask_matrix,
    revisit_feature,
)
from .registry import get_observation_kind

_new_inputs = tuple.__new__
"""Builds an `ObservationInputs` (or a `MathyObservation`) from a tuple of every
field, without the named tuple's Python-level `__new__` (`observe` and a step's
observation are hot paths)."""


@lru_cache(maxsize=256)
def problem_hash(namespace: str) -> Tuple[float, float]:
    """Two floats in [0, 1] derived from `namespace`, the same in every process."""
    values = []
    for salt in (b"mathy-type-0:", b"mathy-type-1:"):
        digest = hashlib.sha256(salt + namespace.encode("utf-8")).digest()
        values.append(int.from_bytes(digest[:8], "big") / float(2**64 - 1))
    return values[0], values[1]


@overload
def observe(
    state: ObservedState,
    kind: ObservationKind[ObservationT],
    move_mask: Optional[MoveMask] = ...,
    hash_type: Optional[List[float]] = ...,
    parser: Optional[ExpressionParser] = ...,
    normalize: bool = ...,
    max_seq_len: Optional[int] = ...,
    mask_as_probabilities: bool = ...,
    revisits: bool = ...,
) -> ObservationT: ...


@overload
def observe(
    state: ObservedState,
    kind: Union[ObservationKind[Any], ObservationType, str],
    move_mask: Optional[MoveMask] = ...,
    hash_type: Optional[List[float]] = ...,
    parser: Optional[ExpressionParser] = ...,
    normalize: bool = ...,
    max_seq_len: Optional[int] = ...,
    mask_as_probabilities: bool = ...,
    revisits: bool = ...,
) -> Any: ...


def observe(
    state: ObservedState,
    kind: Union[ObservationKind[Any], ObservationType, str],
    move_mask: Optional[MoveMask] = None,
    hash_type: Optional[List[float]] = None,
    parser: Optional[ExpressionParser] = None,
    normalize: bool = True,
    max_seq_len: Optional[int] = None,
    mask_as_probabilities: bool = False,
    revisits: bool = False,
) -> Any:
    """The observation of `state` that `kind` builds: an `ObservationKind`
    (`FLAT`, `GRAPH`, ... or your own; the result then has its type for mypy),
    an `ObservationType` or the name of a registered type.

    - `move_mask`: the `num_rules x num_nodes` valid-move mask (all zeros if None)
    - `hash_type`: the two-value problem hash (the state's if None)
    - `parser`: the parser to read the problem with (a shared default if None)
    - `normalize`: scale every feature into [0, 1]
    - `max_seq_len`: `L`, the padded node count (`DEFAULT_MAX_SEQ_LEN` if None)
    - `mask_as_probabilities`: write the action mask as the uniform distribution
      over valid actions (it sums to 1) instead of 0/1
    - `revisits`: add the revisit feature, how many times the episode saw this
      expression before (over `MAX_VISITS` when normalizing): the value after
      the time in flat observations, a fifth node-feature column in the others

    A `kind` defined outside mathy_envs reads a layout of its own, made from a
    private copy of the expression tree. Raises `ValueError` for an unknown
    `kind`, a `state` that is not a state, and any other bad argument.
    """
    if isinstance(kind, str) or not isinstance(kind, ObservationKind):
        kind = get_observation_kind(kind)  # a name (ObservationType is a str)
    agent = _agent_of(state)
    if normalize is not True and not isinstance(normalize, (bool, np.bool_)):
        raise ValueError(f"normalize must be a bool, got {quote(normalize, 40)}")
    if mask_as_probabilities is not False and not isinstance(
        mask_as_probabilities, (bool, np.bool_)
    ):
        raise ValueError(
            "mask_as_probabilities must be a bool, got "
            f"{quote(mask_as_probabilities, 40)}"
        )
    if revisits is not False and not isinstance(revisits, (bool, np.bool_)):
        raise ValueError(f"revisits must be a bool, got {quote(revisits, 40)}")
    if parser is not None and not isinstance(parser, ExpressionParser):
        raise ValueError(
            f"parser must be a mathy_core ExpressionParser, got {type(parser).__name__}"
        )
    length = check_max_seq_len(DEFAULT_MAX_SEQ_LEN if max_seq_len is None else max_seq_len)
    entry = parse(agent.problem, parser)
    build = kind.build
    mask: Optional[npt.NDArray[Any]] = None
    if not is_library_code(build):
        # A user's observation type reads a layout of its own, over a copy of the
        # tree: nothing it does to the nodes reaches the cache.
        entry = private_entry(entry)
    elif type(move_mask) is list:
        # The rows `get_valid_moves` just gave: the library's types read only
        # which entries are nonzero, the same in the env's own int8 mask.
        mask = known_mask(move_mask)
        if mask is not None and mask.shape[1] > length:
            mask = None  # mask_matrix says what is wrong
    layout = entry.layout
    check_fits(len(layout), length)
    hashed = (
        problem_hash(agent.problem_type)
        if hash_type is None
        else _checked_hash(hash_type, bool(normalize))
    )
    inputs: ObservationInputs = _new_inputs(
        ObservationInputs,
        (
            state,
            layout,
            hashed,
            state.time,
            mask_matrix(move_mask, length) if mask is None else mask,
            state.num_rules,
            bool(normalize),
            length,
            bool(mask_as_probabilities),
            revisit_feature(state, bool(normalize), parser) if revisits else None,
        ),
    )
    return build(inputs)


def plain_observation(
    state: ObservedState,
    move_mask: Optional[MoveMask] = None,
    parser: Optional[ExpressionParser] = None,
    max_seq_len: Optional[int] = None,
    hash_type: Optional[List[float]] = None,
) -> MathyObservation:
    """The plain-list `MathyObservation` of `state` (nodes in pre-order).

    With `max_seq_len`, nodes, values and every mask row are zero padded to it.
    `hash_type` is its `type` (the hash of the state's problem type if None).
    """
    agent = _agent_of(state)
    if parser is not None and not isinstance(parser, ExpressionParser):
        raise ValueError(
            f"parser must be a mathy_core ExpressionParser, got {type_name(parser)}"
        )
    layout = parse(agent.problem, parser).layout
    n = len(layout)
    nodes, values = layout.preorder_lists()
    if move_mask is None:
        mask: List[List[int]] = [[0] * n for _ in range(state.num_rules)]
    elif type(move_mask) is np.ndarray and move_mask.dtype == np.int8 and move_mask.ndim == 2:
        # The env's own masks (its time steps' observations): their rows are
        # kept for `get_valid_moves`, which asks for them next.
        mask = mask_lists(move_mask)
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
    observation: MathyObservation = _new_inputs(
        MathyObservation,
        (
            nodes,
            mask,
            values,
            list(problem_hash(agent.problem_type)) if hash_type is None else hash_type,
            [state.time],
        ),
    )
    return observation


def _agent_of(state: ObservedState) -> ObservedAgent:
    """`state.agent`, or a `ValueError` when `state` is not a state."""
    try:
        return state.agent
    except AttributeError:
        raise ValueError(f"expected a MathyEnvState, got {type_name(state)}") from None


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


__all__ = ("observe", "plain_observation", "problem_hash")
