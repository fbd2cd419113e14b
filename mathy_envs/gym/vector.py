"""`MathyVectorEnv`: a Gymnasium vector env of many mathy episodes in one process.

Its `step` steps every episode in one call of `mathy_envs.batch.StepBatch`: where
the native core answers every part of a step it takes it without making Python
objects for the expression, so it runs many times faster than a
`SyncVectorEnv` of `MathyGymEnv`s, and it gives each episode the observations,
masks, rewards, end flags and infos a `MathyGymEnv` would give from the same
state for the same action, its observations and infos stacked as Gymnasium's
vector envs stack them. Flat observations are written by the batch itself; the
other types are made from each episode's state after the step.
"""

from typing import Any, Dict, List, Optional, Tuple, Type, Union

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from .._env.outcome import step_info
from ..batch import StepBatch
from ..env import MathyEnv
from ..limits import quote, type_name
from ..observations import ObservationType, get_observation_kind, to_observation_type
from ..state import MathyEnvState
from ..types import MathyEnvProblemArgs
from .env import _gym_seed
from .registration import GYM_ENV_CLASSES
from .spaces import gym_observation, observation_space


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
        obs_type: an `ObservationType`, its string, or the name of any
            registered observation type, as `MathyGymEnv`'s
        num_threads: the threads the native kernel steps the episodes on
            (`StepBatch`'s; the results are the same with any number)
        **env_kwargs: keywords of `env_class` (`invalid_action_response` is
            `"penalize"` unless given, as in `MathyGymEnv`)

    Observations are those of `obs_type`, stacked as Gymnasium stacks a space's
    values (`observation_space` is `batch_space` of `single_observation_space`):
    flat ones are `(num_envs, 4 + 2L + R*L)` float32 (`3 + 2L + R*L` with
    `revisits=False`), written by the batch; the other types are a dict of
    arrays with a leading `num_envs` axis. Actions are flat (`rule * L +
    node`), one per episode. The infos are those of a
    `SyncVectorEnv` of `MathyGymEnv`s (next-step autoreset) playing the same
    episodes with the same actions, key for key, `_key` mask for mask and dtype
    for dtype: `infos["action_mask"]` is the `(num_envs, R*L)` int8 mask of the
    actions offered in each episode's new state (`_action_mask` all true); a step
    adds the `(num_envs,)` bool arrays `valid` (the action was valid), `oversize`
    (the new expression outgrew `max_seq_len`) and `win` (the step won the
    episode) for the episodes it played, false for those it reset, which
    `_valid`, `_oversize` and `_win` tell apart (no such key when it reset every
    episode).
    `reset(seed=s)` reseeds the env's problem generator, which draws every
    episode's problems in turn (not `s + i` per episode, as `SyncVectorEnv` does).

    `MathyVectorEnv.from_id("mathy-poly-normal-v0", 64)` builds one for a
    registered id.
    `native_reason`, `native_fraction` and `native_start_fraction` tell
    whether (and how often) the native kernel took the steps and the starts.
    """

    metadata: Dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        env_class: Type[MathyEnv],
        num_envs: int,
        env_problem_args: Optional[MathyEnvProblemArgs] = None,
        revisits: bool = True,
        mask_revisits: bool = True,
        obs_type: Union[ObservationType, str] = ObservationType.FLAT,
        num_threads: int = 1,
        **env_kwargs: Any,
    ) -> None:
        if not (isinstance(env_class, type) and issubclass(env_class, MathyEnv)):
            raise ValueError(f"env_class must be a MathyEnv subclass, got {quote(env_class)}")
        self.obs_type = to_observation_type(obs_type)
        """The observations' type (its registered name when it is not a built-in one)."""
        kind = get_observation_kind(self.obs_type)
        env_kwargs.setdefault("invalid_action_response", "penalize")
        if env_kwargs.get("seed") is not None:
            env_kwargs["seed"] = _gym_seed("seed", env_kwargs["seed"])
        self.mathy = env_class(**env_kwargs)
        """The env every episode plays."""
        self.batch = StepBatch(
            self.mathy, num_envs, env_problem_args, revisits, mask_revisits, num_threads
        )
        """The episodes, stepped together."""
        self.num_envs = self.batch.num_envs
        length, rules = self.mathy.max_seq_len, len(self.mathy.rules)
        self._kind = None if kind.name == ObservationType.FLAT.value else kind
        # A type's observations take the revisit feature only where its space
        # does (as MathyGymEnv's).
        self._revisits = self.batch.revisits and kind.takes_revisits()
        self.single_observation_space = observation_space(
            self.obs_type, length, rules, self.batch.revisits
        )
        # The states the last observations show (kept for the types the batch
        # does not write).
        self._shown: List[MathyEnvState] = []
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = gymnasium.spaces.Discrete(self.mathy.action_size)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    @property
    def native_fraction(self) -> float:
        """The share of the steps since the last reset the native kernel took
        (`StepBatch.native_fraction` of `batch`)."""
        return self.batch.native_fraction

    @property
    def native_start_fraction(self) -> float:
        """The share of the episode starts since the last reset whose
        observation and mask the native kernel wrote
        (`StepBatch.native_start_fraction` of `batch`)."""
        return self.batch.native_start_fraction

    @property
    def native_reason(self) -> Optional[str]:
        """None while the native kernel takes the steps, else why not
        (`StepBatch.native_reason` of `batch`)."""
        return self.batch.native_reason

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
    ) -> Tuple[Any, Dict[str, Any]]:
        """Start a new episode in every slot: `(observations, infos)`, the
        observations an array (flat) or a dict of arrays (the other types)."""
        if options is not None:
            raise ValueError(
                f"MathyVectorEnv.reset takes no options, got {type_name(options)} "
                f"{quote(options, 60)}"
            )
        self.batch.reset(None if seed is None else _gym_seed("seed", seed))
        return self._observations(None), self._infos()

    def step(
        self, actions: Any
    ) -> Tuple[
        Any,
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        Dict[str, Any],
    ]:
        batch = self.batch
        # The episodes this step plays: the others ended at the last step and
        # are reset instead.
        stepped = ~(batch.terminated | batch.truncated)
        batch.step(actions)
        return (
            self._observations(stepped),
            batch.rewards.copy(),
            batch.terminated.copy(),
            batch.truncated.copy(),
            self._step_infos(stepped),
        )

    def _observations(self, stepped: Optional[npt.NDArray[np.bool_]]) -> Any:
        """The observations after a reset (`stepped` None) or a step that played
        the episodes of `stepped`: the batch's flat rows, or each episode's
        observation of `obs_type`, stacked. An episode whose step outgrew
        `max_seq_len` shows the state before the step with no valid action (as
        `MathyGymEnv`)."""
        batch = self.batch
        kind = self._kind
        if kind is None:
            return batch.observations.copy()
        mathy = self.mathy
        length, rules = mathy.max_seq_len, len(mathy.rules)
        shown = list(batch.states)
        items = []
        for index, state in enumerate(shown):
            if stepped is not None and stepped[index] and batch.oversize[index]:
                shown[index] = self._shown[index]
                moves = np.zeros((rules, 0), np.int8)
            else:
                nodes = mathy.node_count(state.agent.problem)
                # A read-only view, as MathyGymEnv's masks are to a type's code.
                moves = batch.masks[index].reshape(rules, length)[:, :nodes]
                moves.flags.writeable = False
            items.append(
                gym_observation(
                    kind, shown[index], moves, mathy.parser, length, self._revisits
                )
            )
        self._shown = shown
        space = self.single_observation_space
        out: Any = create_empty_array(space, self.num_envs)
        return concatenate(space, items, out)

    def _infos(self) -> Dict[str, Any]:
        """A reset's infos: `action_mask` for every episode, as `SyncVectorEnv`
        stacks the infos of `MathyGymEnv.reset`."""
        return {
            "action_mask": self.batch.masks.copy(),
            "_action_mask": np.ones(self.num_envs, np.bool_),
        }

    def _step_infos(self, stepped: npt.NDArray[np.bool_]) -> Dict[str, Any]:
        """A step's infos, as `SyncVectorEnv` stacks those of `MathyGymEnv`:
        `action_mask` for every episode (an episode reset by the step has only
        that, as a reset's info), and `valid`, `oversize` and `win` for the
        episodes the step played (`stepped`; the batch's arrays of the same
        names, false elsewhere), each with its `_key` mask; no such key when the
        step played none."""
        infos = self._infos()
        if not stepped.any():
            return infos
        batch = self.batch
        played = step_info(batch.valid & stepped, batch.oversize & stepped, batch.won & stepped)
        for key, values in played.items():
            infos[key] = values
            infos["_" + key] = stepped.copy()
        return infos


__all__ = ("MathyVectorEnv",)
