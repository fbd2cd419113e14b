"""Gymnasium spaces: the masked action space and the observation spaces."""

from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..observations import ObservationType, get_observation_kind


class MaskedDiscrete(spaces.Discrete):
    """A `Discrete(n)` whose `sample()` picks a valid action of the current mask.

    `mask` is a 0/1 vector of length `n`; with no valid action left, `sample()`
    draws from all `n` actions.
    """

    def __init__(
        self,
        n: int,
        mask: Optional[npt.ArrayLike] = None,
        seed: Optional[int] = None,
    ) -> None:
        super().__init__(n, seed=seed)
        self.mask: npt.NDArray[np.int8] = np.ones(n, np.int8)
        """0/1 per action (int8, length `n`): the actions `sample()` draws from."""
        if mask is not None:
            self.update_mask(mask)

    def update_mask(self, mask: npt.ArrayLike) -> None:
        values = np.asarray(mask)
        if values.shape != (int(self.n),):
            raise ValueError(
                f"mask must have shape ({int(self.n)},), got {values.shape}"
            )
        self.mask = (values != 0).astype(np.int8)

    def sample(
        self,
        mask: Optional[npt.NDArray[np.int8]] = None,
        probability: Optional[npt.NDArray[np.int8]] = None,
    ) -> np.int64:
        if mask is None and probability is None and self.mask.any():
            mask = self.mask
        return super().sample(mask=mask, probability=probability)

    def __repr__(self) -> str:
        return f"MaskedDiscrete({int(self.n)}, valid={int(self.mask.sum())})"


def observation_space(
    obs_type: Union[ObservationType, str], max_seq_len: int, num_rules: int
) -> spaces.Space[Any]:
    """The space of normalized observations of a registered type (`L =
    max_seq_len`, `R = num_rules`); every bound is one the observations really
    keep."""
    return get_observation_kind(obs_type).space(max_seq_len, num_rules)


__all__ = ("MaskedDiscrete", "observation_space")
