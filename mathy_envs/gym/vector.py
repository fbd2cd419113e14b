"""`MathyVectorEnv`: a Gymnasium vector env of many mathy episodes in one process.

Its `step` steps every episode in one call of `mathy_envs.batch.StepBatch`: where
the native core answers every part of a step it takes it without making Python
objects for the expression, so it runs many times faster than a
`SyncVectorEnv` of `MathyGymEnv`s, and it gives each episode the observations,
masks, rewards and end flags a `MathyGymEnv` would give from the same state for
the same action (flat observations only).
"""

from typing import Any, Dict, Optional, Tuple, Type

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..batch import StepBatch
from ..env import MathyEnv
from ..limits import quote, type_name
from ..observations import ObservationType
from ..types import MathyEnvProblemArgs
from .env import _gym_seed
from .registration import GYM_ENV_CLASSES
from .spaces import observation_space


class MathyVectorEnv(gymnasium.vector.VectorEnv):
    """`num_envs` episodes of one mathy env, stepped together (Gymnasium's
    `VectorEnv` API, "next step" autoreset).

    Arguments:
        env_class: the `MathyEnv` subclass to play
        num_envs: the number of episodes
        env_problem_args: the difficulty of the generated problems
        revisits: observations carry the revisit feature, as `MathyGymEnv`'s
        mask_revisits: masks leave out the moves back to more visited
            expressions, as `MathyGymEnv`'s
        **env_kwargs: keywords of `env_class` (`invalid_action_response` is
            `"penalize"` unless given, as in `MathyGymEnv`)

    Observations are the flat ones (`(num_envs, 4 + 2L + R*L)` float32, `3 + 2L +
    R*L` with `revisits=False`); actions
    are flat (`rule * L + node`), one per episode. `infos["action_mask"]` is the
    `(num_envs, R*L)` int8 mask of the actions offered in each episode's new state,
    and when a step ends episodes, `infos["win"]` says which of them were won
    (`infos["_win"]`: which ended).
    `reset(seed=s)` reseeds the env's problem generator, which draws every
    episode's problems in turn (not `s + i` per episode, as `SyncVectorEnv` does).

    `MathyVectorEnv.from_id("mathy-poly-normal-v0", 64)` builds one for a
    registered id.
    """

    metadata: Dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        env_class: Type[MathyEnv],
        num_envs: int,
        env_problem_args: Optional[MathyEnvProblemArgs] = None,
        revisits: bool = True,
        mask_revisits: bool = True,
        **env_kwargs: Any,
    ) -> None:
        if not (isinstance(env_class, type) and issubclass(env_class, MathyEnv)):
            raise ValueError(f"env_class must be a MathyEnv subclass, got {quote(env_class)}")
        env_kwargs.setdefault("invalid_action_response", "penalize")
        if env_kwargs.get("seed") is not None:
            env_kwargs["seed"] = _gym_seed("seed", env_kwargs["seed"])
        self.mathy = env_class(**env_kwargs)
        """The env every episode plays."""
        self.batch = StepBatch(
            self.mathy, num_envs, env_problem_args, revisits, mask_revisits
        )
        """The episodes, stepped together."""
        self.num_envs = self.batch.num_envs
        length, rules = self.mathy.max_seq_len, len(self.mathy.rules)
        self.single_observation_space = observation_space(
            ObservationType.FLAT, length, rules, self.batch.revisits
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = gymnasium.spaces.Discrete(self.mathy.action_size)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    @classmethod
    def from_id(cls, env_id: str, num_envs: int, **kwargs: Any) -> "MathyVectorEnv":
        """The vector env of a registered id (`mathy-{task}-{difficulty}-v0`, or one
        of `register_envs`); `kwargs` as for the constructor."""
        factory = GYM_ENV_CLASSES.get(env_id) if isinstance(env_id, str) else None
        if factory is None:
            raise ValueError(f"no mathy env is registered as {quote(env_id)}")
        return cls(**{**factory.kwargs(), "num_envs": num_envs, **kwargs})

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[npt.NDArray[np.float32], Dict[str, Any]]:
        if options is not None:
            raise ValueError(
                f"MathyVectorEnv.reset takes no options, got {type_name(options)} "
                f"{quote(options, 60)}"
            )
        self.batch.reset(None if seed is None else _gym_seed("seed", seed))
        return self.batch.observations.copy(), self._infos()

    def step(
        self, actions: Any
    ) -> Tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        Dict[str, Any],
    ]:
        batch = self.batch
        batch.step(actions)
        return (
            batch.observations.copy(),
            batch.rewards.copy(),
            batch.terminated.copy(),
            batch.truncated.copy(),
            self._infos(),
        )

    def _infos(self) -> Dict[str, Any]:
        """`action_mask` for every episode; `win` (`MathyGymEnv`'s) for the
        episodes the step ended, as Gymnasium's vector envs stack infos."""
        batch = self.batch
        ended = batch.terminated | batch.truncated
        infos: Dict[str, Any] = {
            "action_mask": batch.masks.copy(),
            "_action_mask": np.ones(self.num_envs, np.bool_),
        }
        if ended.any():
            infos["win"] = batch.won & ended
            infos["_win"] = ended
        return infos


__all__ = ("MathyVectorEnv",)
