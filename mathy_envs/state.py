"""Environment states: immutable-by-convention values.

A `MathyEnvState` is data: the agent's problem, history and moves left
(`mathy_envs._env.agent`) and the episode's constants. Its observation methods hand
it to `mathy_envs.observations` and its text form is `mathy_envs._env.state_text`
(the one implementation of state serialization).

Every method that "changes" a state returns a new one; nothing a state holds is
ever mutated after it is built.
"""

from typing import Any, List, Optional, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt
from mathy_core import ExpressionParser

from ._support.pristine import pristine
from ._env.agent import NO_ACTION, MathyAgentState, MathyEnvStateStep
from .limits import check_move_budget, check_num_rules
from .observations import (
    MathyGraphObservation,
    MathyHierarchicalObservation,
    MathyMessagePassingObservation,
    MathyObservation,
    MathyObservationUnion,
    MoveMask,
    ObservationKind,
    ObservationType,
    observe,
    plain_observation,
    problem_hash,
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
from ._engine import parse
from ._env.state_text import deserialize_state, serialize_state, state_from_codes, state_to_codes
from .types import ActionType

ObservationT = TypeVar("ObservationT")
StateT = TypeVar("StateT", bound="MathyEnvState")


def check_state(env_state: Any) -> "MathyEnvState":
    """`env_state`, or a `ValueError` when it is not a `MathyEnvState`."""
    if not isinstance(env_state, MathyEnvState):
        raise ValueError(f"expected a MathyEnvState, got {type(env_state).__name__}")
    return env_state


def episode_time(max_moves: int, moves_remaining: int) -> float:
    """`MathyEnvState.time`: the fraction of `max_moves` used, clipped to [0, 1]
    (1 when there is no budget)."""
    if max_moves <= 0:
        return 1.0
    used = float((max_moves - moves_remaining) / max_moves)
    return 0.0 if used < 0.0 else 1.0 if used > 1.0 else used


@pristine
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
        moves; its problem is the last step's text. `history` becomes the new
        state's own: pass a list nothing else holds."""
        out = MathyEnvState.__new__(MathyEnvState)
        out.max_moves = self.max_moves
        out.num_rules = self.num_rules
        agent = self.agent
        out.agent = MathyAgentState.owning(
            moves_remaining, history[-1].raw, agent.problem_type, agent.reward, history
        )
        return out

    def get_problem_hash(self) -> List[float]:
        """Two floats in [0, 1] identifying the problem type (env namespace)."""
        return list(problem_hash(self.agent.problem_type))

    @property
    def time(self) -> float:
        """Fraction of the episode's moves used, clipped to [0, 1]."""
        return episode_time(self.max_moves, self.agent.moves_remaining)

    # -- observations ---------------------------------------------------------

    @overload
    def to_observation(
        self,
        move_mask: Optional[MoveMask] = ...,
        hash_type: Optional[List[float]] = ...,
        parser: Optional[ExpressionParser] = ...,
        normalize: bool = ...,
        max_seq_len: Optional[int] = ...,
        *,
        obs_type: ObservationKind[ObservationT],
        mask_as_probabilities: bool = ...,
        revisits: bool = ...,
    ) -> ObservationT: ...

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
        revisits: bool = ...,
    ) -> Any: ...

    def to_observation(
        self,
        move_mask: Optional[MoveMask] = None,
        hash_type: Optional[List[float]] = None,
        parser: Optional[ExpressionParser] = None,
        normalize: bool = True,
        max_seq_len: Optional[int] = None,
        obs_type: Union[ObservationKind[Any], ObservationType, str] = ObservationType.FLAT,
        mask_as_probabilities: bool = False,
        revisits: bool = False,
    ) -> Any:
        """Build an observation of this state in the format `obs_type`: an
        `ObservationType`, the name of any registered observation type, or an
        `ObservationKind` (typed: `obs_type=GRAPH` gives a `MathyGraphObservation`
        for mypy).

        - `move_mask`: the `num_rules x num_nodes` valid-move mask (all zeros if None)
        - `hash_type`: the two-value problem hash (this state's if None)
        - `parser`: the parser to read the problem with (a shared default if None)
        - `normalize`: scale every feature into [0, 1]
        - `max_seq_len`: `L`, the padded node count (`DEFAULT_MAX_SEQ_LEN` if None)
        - `mask_as_probabilities`: write the action mask as the uniform
          distribution over valid actions (it sums to 1) instead of 0/1
        - `revisits`: add the revisit feature, how many times the episode saw
          this expression before (over `MAX_VISITS` when normalizing)

        This is `mathy_envs.observations.observe(state, kind, ...)`.
        """
        return observe(
            self,
            obs_type,
            move_mask,
            hash_type,
            parser,
            normalize,
            max_seq_len,
            mask_as_probabilities,
            revisits,
        )

    def to_mathy_observation(
        self,
        move_mask: Optional[MoveMask] = None,
        parser: Optional[ExpressionParser] = None,
        max_seq_len: Optional[int] = None,
    ) -> MathyObservation:
        """The plain-list `MathyObservation` of this state (nodes in pre-order).

        With `max_seq_len`, nodes, values and every mask row are zero padded to it.
        """
        return plain_observation(
            self, move_mask, parser, max_seq_len, self.get_problem_hash()
        )

    # -- serialization (the text form is `mathy_envs._env.state_text`) --------------

    def to_string(self) -> str:
        """Serialize to `@`-separated fields; see `from_string`.

        Raises `ValueError` when a text of the state holds the field separator.
        """
        return serialize_state(self)

    @classmethod
    def from_string(cls: "type[StateT]", text: str) -> StateT:
        """Rebuild a state (an instance of this class) from `to_string` output.

        Raises `ValueError` naming the field that is malformed.
        """
        return deserialize_state(cls, text)

    def to_np(self, pad_to: Optional[int] = None) -> npt.NDArray[np.uint8]:
        """`to_string()` as uint8 codes, right padded with spaces to `pad_to`."""
        return state_to_codes(self, pad_to)

    @classmethod
    def from_np(cls: "type[StateT]", input_bytes: npt.NDArray[Any]) -> StateT:
        """Rebuild a state (an instance of this class) from `to_np` output
        (padding included)."""
        return state_from_codes(cls, input_bytes)


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
    "episode_time",
    "problem_hash",
)
