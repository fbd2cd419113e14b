"""Gymnasium spaces: the masked action space, the observation spaces and the
observation of a state as a value of its space."""

from typing import Any, Dict, Optional, Union

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from mathy_core import ExpressionParser

from ..limits import quote
from ..observations import ObservationKind, ObservationType, get_observation_kind
from ..state import MathyEnvState


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
    obs_type: Union[ObservationType, str],
    max_seq_len: int,
    num_rules: int,
    revisits: bool = False,
) -> spaces.Space[Any]:
    """The space of normalized observations of a registered type (`L =
    max_seq_len`, `R = num_rules`, with the revisit feature when `revisits`);
    every bound is one the observations really keep."""
    return get_observation_kind(obs_type).space_for(max_seq_len, num_rules, revisits)


def gym_observation(
    kind: ObservationKind[Any],
    state: MathyEnvState,
    move_mask: npt.NDArray[np.int8],
    parser: ExpressionParser,
    max_seq_len: int,
    revisits: bool,
    mask_as_probabilities: bool = False,
) -> Any:
    """The normalized observation of type `kind` of `state`, with `move_mask` (a
    `(rules, nodes)` matrix) as its action mask, as a value of the type's space
    (`ObservationKind.to_gym`): what `MathyGymEnv` and `MathyVectorEnv` return.
    `revisits` adds the revisit feature (ask it only of a type that
    `takes_revisits`)."""
    built = state.to_observation(
        move_mask=move_mask,
        parser=parser,
        normalize=True,
        max_seq_len=max_seq_len,
        obs_type=kind.name,
        mask_as_probabilities=mask_as_probabilities,
        revisits=revisits,
    )
    return kind.to_gym(built)


OBSERVATIONS_KEY = "observations"
"""The key of the normal observation in an observation that carries its mask."""
ACTION_MASK_KEY = "action_mask"
"""The key of the 0/1 action mask in an observation that carries its mask."""


def masked_observation_space(
    observations: spaces.Space[Any], action_size: int
) -> spaces.Dict:
    """The space of observations that carry their action mask: a `Dict` with
    exactly two keys, `"observations"` (the `observations` space) and
    `"action_mask"` (`Box(0, 1, (action_size,), float32)`), the layout RL
    libraries' action-masking models read."""
    if not isinstance(observations, spaces.Space):
        raise ValueError(
            f"observations must be a gymnasium Space, got {type(observations).__name__}"
        )
    if isinstance(action_size, bool) or not isinstance(action_size, (int, np.integer)):
        raise ValueError(
            f"action_size must be a positive int, got {type(action_size).__name__}"
        )
    if action_size < 1:
        raise ValueError(f"action_size must be a positive int, got {int(action_size)}")
    return spaces.Dict(
        {
            OBSERVATIONS_KEY: observations,
            ACTION_MASK_KEY: spaces.Box(0.0, 1.0, (int(action_size),), np.float32),
        }
    )


def is_masked_observation_space(space: Any) -> bool:
    """Whether `space` is a `masked_observation_space`: a `Dict` of exactly the
    keys `"observations"` and `"action_mask"`."""
    return isinstance(space, spaces.Dict) and set(space.spaces) == {
        OBSERVATIONS_KEY,
        ACTION_MASK_KEY,
    }


def masked_observation(observation: Any, mask: npt.ArrayLike) -> Dict[str, Any]:
    """An observation with its action mask, a value of `masked_observation_space`:
    `{"observations": observation, "action_mask": mask}` with the mask as float32
    0/1 (any nonzero entry, a probability for example, becomes 1).

    Raises `ValueError` unless `mask` is a 1-D array of bools, ints or floats
    without NaN."""
    values = np.asarray(mask)
    if values.ndim != 1 or values.dtype.kind not in "biuf":
        raise ValueError(
            "mask must be a 1-D array of bools, ints or floats, got "
            f"{type(mask).__name__} of shape {values.shape} and dtype {values.dtype}"
        )
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(f"mask must not hold NaN, got {quote(mask)}")
    action_mask = (values != 0).astype(np.float32)
    return {OBSERVATIONS_KEY: observation, ACTION_MASK_KEY: action_mask}


__all__ = (
    "ACTION_MASK_KEY",
    "OBSERVATIONS_KEY",
    "MaskedDiscrete",
    "gym_observation",
    "is_masked_observation_space",
    "masked_observation",
    "masked_observation_space",
    "observation_space",
)
