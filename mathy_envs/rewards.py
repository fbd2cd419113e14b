"""Rewards: the reward constants and the order in which every transition is judged.

`MathyEnv.get_next_state` scores each step with its env's `reward_scheme`, so
direct users of `MathyEnv`, the Gymnasium adapter and the swarm planner all play
under the same rules. A step is judged by the first of these checks that gives a
verdict:

1. **Oversize**: the expression has more nodes than the env's `max_seq_len`, so
   no observation can hold it: the episode is lost (`get_lose_signal`).
2. **The env's own verdict**: `transition_fn` (a win, usually).
3. **Out of moves**: lost (`get_lose_signal`).
4. **Revisits** (with `previous_state_penalty`): an expression seen for the second
   or third time costs `PREVIOUS_LOCATION` per visit; a fourth visit loses.
5. **The rule used**: `HELPFUL_MOVE` for the env's rewarding rules,
   `UNHELPFUL_MOVE` for its penalizing rules.
6. Otherwise the cost of a move, `TIMESTEP`.

An invalid action (with `invalid_action_response="penalize"`) uses a move and
costs `INVALID_MOVE`, or loses when it used the last move; with `"terminal"` it
loses at once.

To play an env under other rules, subclass `RewardScheme` and set the env's
`reward_scheme` (a class attribute, or an instance attribute after construction).
The expression tree a scheme of your own is given is a private copy: it may keep
or change it without changing any later answer of the env.
"""

from typing import List, Optional, Protocol, Sequence, Tuple, Type

from mathy_core import BaseRule, MathExpression
from mathy_core.rules import (
    AssociativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from ._support.pristine import pristine
from .limits import quote
from .observations import MathyObservation
from .state import MathyEnvState
from .time_step import TimeStep, termination, transition
from .types import MAX_VISITS, EnvRewards


class ScoredEnv(Protocol):
    """What a `RewardScheme` reads of the env it scores (a `MathyEnv` has all of
    it): its settings, its rules and the verdicts it gives."""

    @property
    def max_seq_len(self) -> int: ...
    @property
    def reward_discount(self) -> float: ...
    @property
    def previous_state_penalty(self) -> bool: ...
    @property
    def invalid_action_response(self) -> str: ...
    @property
    def rules(self) -> Sequence[BaseRule]: ...

    def node_count(self, text: str) -> int: ...
    def get_lose_signal(self, env_state: MathyEnvState) -> float: ...
    def get_rewarding_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]: ...
    def get_penalizing_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]: ...
    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]: ...


REWARDING_RULES: Tuple[Type[BaseRule], ...] = (
    RestateSubtractionRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    VariableMultiplyRule,
)
"""Rules whose use earns `HELPFUL_MOVE` (`MathyEnv.get_rewarding_actions`)."""

PENALIZING_RULES: Tuple[Type[BaseRule], ...] = (AssociativeSwapRule, DistributiveMultiplyRule)
"""Rules whose use costs `UNHELPFUL_MOVE` (`MathyEnv.get_penalizing_actions`)."""


def win_signal(max_moves: int, moves_remaining: int) -> float:
    """`WIN` plus a bonus for finishing in few moves: `1 / moves_used`, doubled
    when more than 10 moves were allowed and fewer than half were used; at most 2."""
    total = max(float(max_moves), 3e-10)
    used = max(total - moves_remaining, 3e-10)
    bonus = 1.0 / used
    if total > 10 and used < total / 2:
        bonus *= 2
    return min(2.0, EnvRewards.WIN + bonus)


@pristine
class RewardScheme:
    """How an env scores its transitions, one method per check (see the module
    docstring for the order). Override a method to change one check."""

    def score(
        self,
        env: ScoredEnv,
        state: MathyEnvState,
        expression: MathExpression,
        visits: int,
        features: MathyObservation,
    ) -> TimeStep:
        """The time step of reaching `state`, whose expression `expression` has
        been seen `visits` times in its history (the current step included).

        When this scheme's `score` or `own_verdict`, or the env's `transition_fn`,
        `is_goal` or `tree_of`, is your own code (defined outside mathy_envs),
        `expression` is a private copy made for this call: keep it or change it,
        nothing else sees it. When all of them are library code, it is
        `mathy_envs.env.UNREAD_TREE`, and the library's methods read the state's
        tree through `MathyEnv.tree_of` when they need it."""
        step = self.oversize(env, state, features)
        if step is None:
            step = self.own_verdict(env, state, expression, features)
        if step is None:
            step = self.out_of_moves(env, state, features)
        if step is None:
            step = self.revisit(env, state, visits, features)
        if step is None:
            step = self.rule_used(env, state, features)
        if step is None:
            step = transition(features, EnvRewards.TIMESTEP, env.reward_discount)
        return step

    def score_invalid(
        self, env: ScoredEnv, state: MathyEnvState, features: MathyObservation
    ) -> TimeStep:
        """The time step of an invalid action that led to `state` (the same
        expression, with the move used, or none left for `"terminal"`)."""
        if env.invalid_action_response == "terminal" or state.agent.moves_remaining <= 0:
            return termination(features, env.get_lose_signal(state))
        return transition(features, EnvRewards.INVALID_MOVE, env.reward_discount)

    def oversize(
        self, env: ScoredEnv, state: MathyEnvState, features: MathyObservation
    ) -> Optional[TimeStep]:
        if env.node_count(state.agent.problem) > env.max_seq_len:
            return termination(features, env.get_lose_signal(state))
        return None

    def own_verdict(
        self,
        env: ScoredEnv,
        state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        try:
            return env.transition_fn(state, expression, features)
        except AssertionError as error:
            # mathy_core's term helpers assert on input they were not written for
            # (an equation such as "x = 2" in a polynomial task).
            raise ValueError(
                f"{type(env).__name__} cannot judge {quote(state.agent.problem)}: "
                f"mathy_core rejected it ({error or 'assertion failed'})"
            ) from error

    def out_of_moves(
        self, env: ScoredEnv, state: MathyEnvState, features: MathyObservation
    ) -> Optional[TimeStep]:
        if state.agent.moves_remaining <= 0:
            return termination(features, env.get_lose_signal(state))
        return None

    def revisit(
        self,
        env: ScoredEnv,
        state: MathyEnvState,
        visits: int,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        if not env.previous_state_penalty or visits <= 1:
            return None
        if visits > MAX_VISITS:
            return termination(features, env.get_lose_signal(state))
        return transition(
            features, EnvRewards.PREVIOUS_LOCATION * visits, env.reward_discount
        )

    def rule_used(
        self, env: ScoredEnv, state: MathyEnvState, features: MathyObservation
    ) -> Optional[TimeStep]:
        rule_index = state.agent.action[0]
        if not 0 <= rule_index < len(env.rules):
            return None
        rule = env.rules[rule_index]
        if isinstance(rule, tuple(env.get_rewarding_actions(state))):
            return transition(features, EnvRewards.HELPFUL_MOVE, env.reward_discount)
        if isinstance(rule, tuple(env.get_penalizing_actions(state))):
            return transition(features, EnvRewards.UNHELPFUL_MOVE, env.reward_discount)
        return None


__all__ = (
    "EnvRewards",
    "ScoredEnv",
    "MAX_VISITS",
    "PENALIZING_RULES",
    "REWARDING_RULES",
    "RewardScheme",
    "win_signal",
)
