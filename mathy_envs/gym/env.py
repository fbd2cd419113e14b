"""`MathyGymEnv`: any `MathyEnv` as a `gymnasium.Env`."""

from typing import (
    Any,
    Dict,
    Mapping,
    NamedTuple,
    Optional,
    SupportsFloat,
    Tuple,
    Type,
    Union,
)

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.utils import seeding

from ..env import MAX_PROBLEM_ATTEMPTS, MathyEnv
from ..limits import check_move_budget, quote, type_name
from .._engine import MaskArray
from .._env.outcome import outcome_of
from ..observations import (
    ObservationKind,
    ObservationType,
    get_observation_kind,
    to_observation_type,
)
from ..state import MathyEnvState
from ..time_step import TimeStep
from ..types import MathyEnvProblem, MathyEnvProblemArgs
from .spaces import (
    MaskedDiscrete,
    gym_observation,
    masked_observation,
    masked_observation_space,
    observation_space,
)

MAX_RESET_ATTEMPTS = MAX_PROBLEM_ATTEMPTS
"""How many generated problems a reset draws before giving up (see
`MathyEnv.fitting_initial_state`)."""

Observation = Union[npt.NDArray[np.float32], Dict[str, Any]]


class StepChange(NamedTuple):
    """What a step changed (`info["change"]`): the rule's name, the node it was
    applied at, and the resulting expression. Invalid actions have `valid=False`
    in the step info and the unchanged expression here."""

    rule: str
    node: int
    expression: str


class MathyGymEnv(gymnasium.Env[Observation, np.int64]):
    """A `MathyEnv` behind Gymnasium's API.

    Arguments:
        env_class: the `MathyEnv` subclass to play
        env_problem_args: the difficulty passed to its problem generator
        env_problem: a fixed problem text to play instead of generated ones
        env_max_moves: the move budget of `env_problem`
        mask_as_probabilities: put the action mask in observations as a
            distribution that sums to 1 (uniform over valid actions)
        mask_in_observation: return every observation as a dict
            `{"observations": <the obs_type observation>, "action_mask": <mask>}`
            (the layout of RL libraries' action-masking models, RLlib's for
            one), with `observation_space` the matching `Dict` space
            (`masked_observation_space`). The `"action_mask"` value is always a
            float32 0/1 vector of length `action_size`, equal to
            `info["action_mask"]`; `mask_as_probabilities` changes only the mask
            inside `"observations"`
        repeat_problem: generate one problem and replay it on every reset
        obs_type: an `ObservationType`, its string, or the name of any
            registered observation type
        revisits: observations carry the revisit feature (how many times the
            episode saw the current expression before; the default reward
            scheme penalizes revisits and loses on the fourth visit); False
            gives the published observations without it. Observation types of
            your own get it only when their `space` takes a `revisits` keyword
        mask_revisits: the action mask (in the info, `action_masks()`,
            `action_space.mask` and observations) offers only the valid moves
            whose resulting expression the episode has visited least often: no
            move back to an expression already seen while a new one is one move
            away (`MathyEnv.least_visited_moves_array`). Such a move stays legal
            (`info["valid"]` is true when an unmasked agent takes it); False
            gives the published masks, which depend on the expression alone
        published_info: step infos also hold what mathy_envs 0.12's held:
            `change` (a `StepChange`), `transition` (the env's `TimeStep`),
            `done` and `truncated`; off by default, so that infos hold only
            arrays, which RL libraries' info readers (TorchRL's builds specs
            from them) and vector envs take as they are
        render_mode: None, "ansi" (render returns the state line) or "human"
            (render prints it)
        env_kwargs: keywords for `env_class`: every `MathyEnv` keyword
            (`max_seq_len`, `rules`, `seed`, `reward_scheme`, `generator`, ...)
            and the class's own; `invalid_action_response` defaults to
            "penalize" here so an unmasked agent can't crash a training run

    Observations are normalized (every value in [0, 1]). `info["action_mask"]`
    (an int8 0/1 array of length `action_size`) comes with every reset and step;
    step infos also hold `valid`, `oversize` and `win` (the step ended the
    episode with a win) as 0-d bool arrays (`if info["win"]:` reads them), and
    with `published_info` the keys of mathy_envs 0.12's infos.

    Errors are `ValueError`s, but for Python's `TypeError` for a keyword neither
    this class nor `env_class` takes: a flag that is not a bool and an
    `env_problem` that does not parse or has more nodes than `max_seq_len` fail at
    construction, `step()` before `reset()` or
    after the episode ended (terminated or truncated) fails until the next
    `reset()`, and a `reset()` that fails leaves the env as it was (its state,
    action mask and random generators).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    mathy: MathyEnv
    """The wrapped `MathyEnv`, built from `env_class` and `env_kwargs`."""
    state: Optional[MathyEnvState]
    """The current episode's state (None before the first `reset()`)."""
    obs_type: Union[ObservationType, str]
    """The observation type `reset()` and `step()` return."""
    action_size: int
    """The number of actions: rules × `max_seq_len`."""

    def __init__(
        self,
        env_class: Type[MathyEnv],
        env_problem_args: Optional[MathyEnvProblemArgs] = None,
        env_problem: Optional[str] = None,
        env_max_moves: int = 64,
        mask_as_probabilities: bool = False,
        repeat_problem: bool = False,
        mask_in_observation: bool = False,
        obs_type: Union[ObservationType, str] = ObservationType.FLAT,
        render_mode: Optional[str] = None,
        revisits: bool = True,
        mask_revisits: bool = True,
        published_info: bool = False,
        **env_kwargs: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {quote(render_mode)}"
            )
        for name, flag in (
            ("mask_as_probabilities", mask_as_probabilities),
            ("repeat_problem", repeat_problem),
            ("mask_in_observation", mask_in_observation),
            ("revisits", revisits),
            ("mask_revisits", mask_revisits),
            ("published_info", published_info),
        ):
            if not isinstance(flag, (bool, np.bool_)):
                raise ValueError(
                    f"{name} must be a bool, got {type(flag).__name__} {quote(flag, 40)}"
                )
        env_max_moves = check_move_budget("env_max_moves", env_max_moves)
        env_kwargs.setdefault("invalid_action_response", "penalize")
        if env_kwargs.get("seed") is not None:
            # Gymnasium's seeding takes a plain int only (see below).
            env_kwargs["seed"] = _gym_seed("seed", env_kwargs["seed"])
        if not (isinstance(env_class, type) and issubclass(env_class, MathyEnv)):
            raise ValueError(f"env_class must be a MathyEnv subclass, got {quote(env_class)}")
        if env_problem_args is not None and not isinstance(
            env_problem_args, MathyEnvProblemArgs
        ):
            raise ValueError(
                "env_problem_args must be MathyEnvProblemArgs or None, got "
                f"{type(env_problem_args).__name__}"
            )
        try:
            self.mathy = env_class(**env_kwargs)
        except TypeError as error:
            # An unknown or misspelled keyword: still a TypeError, as Python's own
            # (wrappers such as TorchRL's rely on it), naming the keywords.
            raise TypeError(
                f"{env_class.__name__} can't be built with the keywords "
                f"{quote(sorted(env_kwargs), 160)}: {error}. MathyGymEnv's own "
                "keywords are env_problem_args, env_problem, env_max_moves, "
                "mask_as_probabilities, repeat_problem, mask_in_observation, "
                "obs_type, render_mode, revisits, mask_revisits and published_info; "
                "the others go to the env class"
            ) from error
        if env_kwargs.get("seed") is not None:
            # Gymnasium's np_random replaces the MathyEnv's generator on reset, so
            # a `seed` keyword seeds it: resets without a seed then replay the
            # problems of `reset(seed=seed)`.
            self._np_random, self._np_random_seed = seeding.np_random(
                env_kwargs["seed"]
            )
        self.env_class = env_class
        """The `MathyEnv` subclass this env plays."""
        self.env_problem_args = env_problem_args
        """The difficulty passed to the problem generator."""
        self.env_problem = env_problem
        """The fixed problem text played instead of generated ones, if any."""
        self.env_max_moves = env_max_moves
        """The move budget of `env_problem`."""
        self.mask_as_probabilities = bool(mask_as_probabilities)
        """Whether observations hold the action mask as a distribution that sums
        to 1."""
        self.repeat_problem = bool(repeat_problem)
        """Whether every reset replays the first generated problem."""
        self.mask_in_observation = bool(mask_in_observation)
        """Whether observations are `{"observations": ..., "action_mask": ...}`
        dicts."""
        self.revisits = bool(revisits)
        """Whether observations carry the revisit feature."""
        self.mask_revisits = bool(mask_revisits)
        """Whether action masks leave out the moves back to expressions the
        episode visited more often than another move's."""
        self.published_info = bool(published_info)
        """Whether step infos also hold the keys of mathy_envs 0.12's infos."""
        self.obs_type = to_observation_type(obs_type)
        self.render_mode = render_mode
        """None, "ansi" or "human"."""
        self.action_size = self.mathy.action_size
        self.action_space: MaskedDiscrete = MaskedDiscrete(self.action_size)
        """A `Discrete(action_size)` space whose `mask` follows the valid actions."""
        space = observation_space(
            self.obs_type, self.mathy.max_seq_len, len(self.mathy.rules), self.revisits
        )
        self.observation_space: gymnasium.spaces.Space[Any] = (
            masked_observation_space(space, self.action_size)
            if self.mask_in_observation
            else space
        )
        """The Gymnasium space of `obs_type` observations (inside a `Dict` with
        the action mask when `mask_in_observation` is set)."""
        self.state = None
        self._kind_seen: Optional[ObservationKind[Any]] = None
        self._kind_takes_revisits = False
        self._problem: Optional[MathyEnvProblem] = None
        self._episode_over = False
        if env_problem is not None:
            self._check_fixed_problem(env_problem)  # fail early, not at reset

    # -- gymnasium API ----------------------------------------------------------

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Observation, Dict[str, Any]]:
        # Everything is computed before anything is assigned; a reset that fails
        # also puts the random generators back, so the env is left as it was.
        saved = self._save_generators()
        try:
            if seed is not None:
                seed = _gym_seed("seed", seed)
            if options is not None and not isinstance(options, Mapping):
                raise ValueError(
                    f"options must be a dict or None, got {type_name(options)} "
                    f"{quote(options, 40)}"
                )
            super().reset(seed=seed)
            # Gymnasium's generator drives the problem generator.
            self.mathy.np_random = self.np_random
            state, problem = self._initial_state()
            moves = self._offered_moves(state)
            mask = self.mathy.flat_moves(moves)
            observation = self._observe(state, moves, mask)
        except BaseException:
            self._restore_generators(saved)
            raise
        if problem is not None:
            self._problem = problem
        self._commit(state, mask, episode_over=False)
        return observation, {"action_mask": mask.copy()}

    def step(
        self, action: Any
    ) -> Tuple[Observation, SupportsFloat, bool, bool, Dict[str, Any]]:
        state = self._require_state()
        if self._episode_over:
            raise ValueError(
                "the episode is over (the last step was terminated or truncated): "
                "call reset() to start a new episode before step()"
            )
        rule_index, node_index = self.mathy.to_action(action)
        valid_moves = self.mathy.valid_moves_array(state)
        valid = bool(
            0 <= rule_index < valid_moves.shape[0]
            and 0 <= node_index < valid_moves.shape[1]
            and valid_moves[rule_index, node_index]
        )
        next_state, time_step, change = self.mathy.get_next_state(
            state, (rule_index, node_index)
        )
        text = next_state.agent.problem
        rule_name = change.rule.name if valid else "invalid-action"
        # The env's reward scheme ends the episode (a loss) when the expression
        # outgrows max_seq_len; no observation can hold it, so the agent sees the
        # last observation that fit, with no valid action.
        oversize = self.mathy.node_count(text) > self.mathy.max_seq_len
        outcome = outcome_of(time_step, next_state.agent.moves_remaining, valid, oversize)
        if oversize:
            mask: npt.NDArray[np.int8] = np.zeros(self.action_size, np.int8)
            no_moves = np.zeros((len(self.mathy.rules), 0), np.int8)
            observation = self._observe(state, no_moves, mask)
        else:
            moves = self._offered_moves(next_state)
            mask = self.mathy.flat_moves(moves)
            observation = self._observe(next_state, moves, mask)
        info: Dict[str, Any] = {"action_mask": mask.copy(), **outcome.info()}
        if self.published_info:
            info["change"] = StepChange(rule_name, node_index, text)
            info["transition"] = TimeStep(
                time_step.step_type.copy(),
                time_step.reward,
                time_step.discount,
                time_step.observation,
            )
            info["done"] = outcome.done
            info["truncated"] = outcome.truncated
        self._commit(next_state, mask, episode_over=outcome.done)
        if self.render_mode == "human":
            self.render()
        return observation, outcome.reward, outcome.terminated, outcome.truncated, info

    def render(self) -> Optional[str]:
        if self.state is None:
            return None
        line = self.mathy.render_state(self.state, "state")
        if self.render_mode == "human":
            print(line)
            return None
        return line

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The current valid-action mask as booleans (sb3-contrib's MaskablePPO
        convention)."""
        return np.asarray(self.action_space.mask, dtype=np.bool_)

    # -- internals --------------------------------------------------------------

    def _offered_moves(self, state: MathyEnvState) -> MaskArray:
        """The `(rules, nodes)` mask the agent is offered in `state`."""
        if self.mask_revisits:
            return self.mathy.least_visited_moves_array(state)
        return self.mathy.valid_moves_array(state)

    def _require_state(self) -> MathyEnvState:
        if self.state is None:
            raise ValueError("call reset() before step()")
        return self.state

    def _commit(
        self,
        state: MathyEnvState,
        mask: npt.NDArray[np.int8],
        episode_over: bool,
    ) -> None:
        """Make a fully computed transition the env's current one."""
        self.action_space.update_mask(mask)
        self.state = state
        self._episode_over = episode_over

    def _save_generators(self) -> "_Generators":
        env_rng = self._np_random
        return _Generators(
            env_rng,
            self._np_random_seed,
            None if env_rng is None else env_rng.bit_generator.state,
            self.mathy.np_random,
            self.mathy.np_random.bit_generator.state,
        )

    def _restore_generators(self, saved: "_Generators") -> None:
        saved.mathy_rng.bit_generator.state = saved.mathy_rng_state
        self.mathy.np_random = saved.mathy_rng
        if saved.env_rng is not None and saved.env_rng_state is not None:
            saved.env_rng.bit_generator.state = saved.env_rng_state
        self._np_random = saved.env_rng
        self._np_random_seed = saved.env_seed

    def _check_fixed_problem(self, text: Any) -> None:
        """A `ValueError` unless `text` parses into at most `max_seq_len` nodes."""
        if not isinstance(text, str):
            raise ValueError(
                f"env_problem must be a problem text, got {type(text).__name__} "
                f"{quote(text)}"
            )
        self.mathy.check_fits(text)

    def _initial_state(self) -> Tuple[MathyEnvState, Optional[MathyEnvProblem]]:
        """The start state of a new episode, and the generated problem it plays
        (None when nothing new was generated)."""
        mathy = self.mathy
        if self.env_problem is not None:
            return mathy.state_from_text(self.env_problem, self.env_max_moves), None
        config = (
            self.env_problem_args
            if self.env_problem_args is not None
            else MathyEnvProblemArgs()
        )
        if self.repeat_problem and self._problem is not None:
            return mathy.state_from_problem(self._problem, config), None
        state, problem = mathy.fitting_initial_state(config)
        return state, problem

    def _observe(
        self,
        state: MathyEnvState,
        move_mask: npt.NDArray[np.int8],
        flat_mask: npt.NDArray[np.int8],
    ) -> Observation:
        """The observation of `state` with `move_mask` (a `(rules, nodes)` matrix)
        as its action mask, as a value of `observation_space` (with `flat_mask`,
        the `action_size` mask of the step's info, beside it when
        `mask_in_observation` is set)."""
        mathy = self.mathy
        kind = get_observation_kind(self.obs_type)
        if kind is not self._kind_seen:
            # Whether the type takes the revisit feature, read once per type
            # object (a signature lookup is too slow for every step).
            self._kind_seen, self._kind_takes_revisits = kind, kind.takes_revisits()
        observation: Observation = gym_observation(
            kind,
            state,
            move_mask,
            mathy.parser,
            mathy.max_seq_len,
            self.revisits and self._kind_takes_revisits,
            self.mask_as_probabilities,
        )
        if self.mask_in_observation:
            return masked_observation(observation, flat_mask)
        return observation


def _gym_seed(name: str, seed: Any) -> int:
    """A seed as Gymnasium takes it (a plain int >= 0; numpy ints too), or a
    `ValueError` naming `name`."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{name} must be a non-negative int or None, got {quote(seed, 40)}")
    return int(seed)


class _Generators(NamedTuple):
    """The random generators of a `MathyGymEnv` and their states, to put back
    when a reset fails."""

    env_rng: Optional[np.random.Generator]
    env_seed: Optional[int]
    env_rng_state: Optional[Mapping[str, Any]]
    mathy_rng: np.random.Generator
    mathy_rng_state: Mapping[str, Any]


__all__ = ("MathyGymEnv", "StepChange")
