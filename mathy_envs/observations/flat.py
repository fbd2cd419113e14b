"""Flat observations: one float32 vector, for MLPs, RNNs and transformers.

With `L = max_seq_len` and `R` mask rows, the vector has `3 + 2L + R*L` values:

| Slice | Content |
|---|---|
| `[0:2]` | the problem type hash |
| `[2]` | the episode time |
| `[3 : 3+L]` | node type ids, pre-order, zero padded |
| `[3+L : 3+2L]` | node values, pre-order, zero padded |
| `[3+2L :]` | the action mask, row-major `(rule, node)`, nodes in action order |

With the revisit feature (`revisits=True`) one value follows the time: the head
is `[hash0, hash1, time, revisits]` and every later slice starts one further
(`4 + 2L + R*L` values).
"""

from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np
import numpy.typing as npt

from .._engine import NodeLayout
from .common import (
    FloatArray,
    ObservationInputs,
    ObservationKind,
    ObservationType,
    check_fits,
    mask_rows,
    write_mask,
)

if TYPE_CHECKING:
    from gymnasium import spaces


def flat_observation(
    layout: NodeLayout,
    problem_hash: Sequence[float],
    time: float,
    mask: Optional[npt.NDArray[Any]],
    num_rules: int,
    normalize: bool,
    max_seq_len: int,
    mask_as_probabilities: bool = False,
    revisits: Optional[float] = None,
) -> FloatArray:
    """`[hash0, hash1, time, node types (L), node values (L), action mask (R*L)]`,
    nodes in pre-order, with `revisits` after the time when it is given; `mask`
    comes from `mask_matrix`."""
    n = len(layout)
    check_fits(n, max_seq_len)
    length = max_seq_len
    head = flat_head(revisits is not None)
    out = np.zeros(head + 2 * length + mask_rows(mask, num_rules) * length, np.float32)
    out[0] = problem_hash[0]
    out[1] = problem_hash[1]
    out[2] = time
    if revisits is not None:
        out[3] = revisits
    types, values = layout.preordered(normalize)
    out[head : head + n] = types
    out[head + length : head + length + n] = values
    write_mask(out[head + 2 * length :], mask, length, mask_as_probabilities)
    return out


def flat_head(revisits: bool) -> int:
    """The values before the node types: 3 (hash, time), 4 with `revisits`."""
    return 4 if revisits else 3


class FlatObservationKind(ObservationKind[FloatArray]):
    """`ObservationType.FLAT`: a `numpy.ndarray` laid out as `flat_observation`."""

    name = ObservationType.FLAT.value

    def build(self, inputs: ObservationInputs) -> FloatArray:
        return flat_observation(
            inputs.layout,
            inputs.problem_hash,
            inputs.time,
            inputs.move_mask,
            inputs.num_rules,
            inputs.normalize,
            inputs.max_seq_len,
            inputs.mask_as_probabilities,
            inputs.revisits,
        )

    def space(self, max_seq_len: int, num_rules: int, revisits: bool = False) -> "spaces.Box":
        from gymnasium import spaces

        length = flat_head(revisits) + 2 * max_seq_len + num_rules * max_seq_len
        return spaces.Box(0.0, 1.0, (length,), np.float32)


FLAT = FlatObservationKind()
"""The registered flat observation type."""

__all__ = ("FLAT", "FlatObservationKind", "flat_head", "flat_observation")
