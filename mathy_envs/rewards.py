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

The order is written once, in `SCORING_ORDER`: `RewardScheme.score` asks its
check methods in that order, and `RewardScheme.scoring` gives the same verdicts
as data (`Scoring`: each rule's reward, the revisit penalty and limit, the win
and lose rewards), which the batch's native steps read instead of asking the
methods (`Scoring.verdict`, again in `SCORING_ORDER`).

To play an env under other rules, subclass `RewardScheme` and set the env's
`reward_scheme` (a class attribute, or an instance attribute after construction).
The expression tree a scheme of your own is given is a private copy: it may keep
or change it without changing any later answer of the env.
"""

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Callable, Dict, List, Mapping, Optional, Protocol, Sequence, Tuple, Type

from mathy_core import BaseRule, MathExpression
from mathy_core.rules import (
    AssociativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from ._support.pristine import changed_attribute, pristine
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


SCORING_ORDER: Tuple[str, ...] = (
    "oversize",
    "own_verdict",
    "out_of_moves",
    "revisit",
    "rule_used",
)
"""The checks of a step, in the order `RewardScheme.score` asks them (the names
of its methods): the first that gives a verdict decides; with none, the step
costs `TIMESTEP`. `Scoring.verdict` follows the same order."""


_Verdict = Tuple[float, bool]
"""`(reward, terminal)`."""


@dataclass(frozen=True)
class Scoring:
    """A `RewardScheme`'s scoring of one env's steps as data
    (`RewardScheme.scoring`): what each check of `SCORING_ORDER` gives, so that
    a step can be scored from a few facts without the scheme's methods."""

    rule_rewards: Tuple[float, ...]
    """The reward of a move by each of the env's rules, in action order:
    `HELPFUL_MOVE` for its rewarding rules, `UNHELPFUL_MOVE` for its
    penalizing ones, `TIMESTEP` for the others (`rule_used`)."""
    penalize_revisits: bool
    """Whether revisits are penalized (the env's `previous_state_penalty`)."""
    revisit_penalty: float
    """The reward of a revisit, per visit (`PREVIOUS_LOCATION`)."""
    max_visits: int
    """The visits of one expression allowed; one more loses (`MAX_VISITS`)."""
    lose: float
    """The reward of a loss (the env's `get_lose_signal`): oversize, out of
    moves, too many visits."""
    timestep: float
    """The reward of a step no check judged (`TIMESTEP`)."""
    discount: float
    """The discount of a step that does not end the episode."""
    win: Callable[[int, int], float] = win_signal
    """The reward of a win, from the episode's move budget and the moves left
    (`win_signal`, the built-in goal envs' `get_win_signal`)."""
    order: Tuple[str, ...] = SCORING_ORDER
    """The order of the checks."""
    verdict: "_VerdictFunction" = field(init=False, repr=False, compare=False)
    """`verdict(won, moves_left, max_moves, visits, rule, oversize=False)`:
    `(reward, terminal)` of a valid step, as `RewardScheme.score` gives it: the
    step applied rule `rule`, the env's own verdict was a win (`won`) or none,
    `moves_left` of `max_moves` moves are left, the new expression was seen
    `visits` times (this step's visit included) and, with `oversize`, has more
    nodes than `max_seq_len`. Made from the data when the scoring is made."""

    def __post_init__(self) -> None:
        order = self.order
        if (
            not isinstance(order, tuple)
            or not all(isinstance(name, str) for name in order)
            or len(set(order)) != len(order)
        ):
            raise ValueError(
                f"order must be a tuple of distinct check names, got {quote(order, 120)}"
            )
        unknown = [name for name in order if name not in _DATA_CHECKS]
        if unknown:
            raise ValueError(
                f"order must name checks of {list(_DATA_CHECKS)}, got {quote(unknown, 120)}"
            )
        _check_scoring_data(self)
        object.__setattr__(self, "verdict", _compiled_verdict(self))

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        # Pickles and copies hold the data; the verdict is made again from it.
        return type(self), tuple(getattr(self, each.name) for each in fields(self) if each.init)


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_scoring_data(scoring: "Scoring") -> None:
    """A `ValueError` naming the first field of `scoring` of the wrong type."""
    rewards = scoring.rule_rewards
    if not isinstance(rewards, tuple) or not all(_is_real(each) for each in rewards):
        raise ValueError(f"rule_rewards must be a tuple of numbers, got {quote(rewards, 120)}")
    if not isinstance(scoring.penalize_revisits, bool):
        raise ValueError(
            f"penalize_revisits must be a bool, got {quote(scoring.penalize_revisits, 40)}"
        )
    if not isinstance(scoring.max_visits, int) or isinstance(scoring.max_visits, bool):
        raise ValueError(f"max_visits must be an int, got {quote(scoring.max_visits, 40)}")
    for name in ("revisit_penalty", "lose", "timestep", "discount"):
        if not _is_real(getattr(scoring, name)):
            raise ValueError(f"{name} must be a number, got {quote(getattr(scoring, name), 40)}")
    if not callable(scoring.win):
        raise ValueError(f"win must be a function of (max_moves, moves_left), got {quote(scoring.win, 60)}")


_VerdictFunction = Callable[..., _Verdict]
"""`Scoring.verdict` without the instance: `(won, moves_left, max_moves,
visits, rule, oversize)` to `(reward, terminal)`."""

_DATA_CHECKS: Mapping[str, str] = MappingProxyType({
    "oversize": """
        if oversize:
            return lose, True""",
    "own_verdict": """
        if won:
            return win(max_moves, moves_left), True""",
    "out_of_moves": """
        if moves_left <= 0:
            return lose, True""",
    "revisit": """
        if penalize_revisits and visits > 1:
            if visits > max_visits:
                return lose, True
            return revisit_penalty * visits, False""",
    "rule_used": """
        if 0 <= rule < len(rule_rewards):
            return rule_rewards[rule], False""",
})
"""What each check of `SCORING_ORDER` gives, from a `Scoring`'s data (the names
its fields) and the facts of a step (`Scoring.verdict`'s arguments): Python
statements that return `(reward, terminal)` when the check decides the step."""


def _compiled_verdict(scoring: Scoring) -> _VerdictFunction:
    """`scoring.verdict` as one function: the statements of `_DATA_CHECKS` in
    `scoring.order`, then `TIMESTEP`, over the scoring's data. Steps are a hot
    path: one call, where a loop over the checks made six."""
    data = {
        "rule_rewards": scoring.rule_rewards,
        "penalize_revisits": scoring.penalize_revisits,
        "revisit_penalty": scoring.revisit_penalty,
        "max_visits": scoring.max_visits,
        "lose": scoring.lose,
        "timestep": scoring.timestep,
        "win": scoring.win,
    }
    checks = "".join(_DATA_CHECKS[name] for name in scoring.order)
    source = (
        f"def make({', '.join(data)}):\n"
        "    def verdict(won, moves_left, max_moves, visits, rule, oversize=False):"
        f"{checks}\n"
        "        return timestep, False\n"
        "    return verdict\n"
    )
    namespace: Dict[str, object] = {"__builtins__": {"len": len}}
    # The source is made of this module's own constant statements, in an order
    # checked against them: no text from outside reaches it.
    exec(compile(source, f"<{__name__} verdict>", "exec"), namespace)
    make: Callable[..., _VerdictFunction] = namespace["make"]  # type: ignore[assignment]
    return make(**data)


def custom_scoring(scheme: "RewardScheme") -> Optional[str]:
    """Why `scheme.scoring` has no data for `scheme` (a sentence), or None
    when its scoring is the library's: a plain `RewardScheme` with nothing set
    on the instance, the class as the library defined it."""
    kind = type(scheme)
    if kind is not RewardScheme:
        return f"the reward scheme is a {kind.__name__}, not the library's RewardScheme"
    own = vars(scheme)
    if own:
        return f"the reward scheme has its own {min(own)} (set on the instance)"
    changed = changed_attribute(RewardScheme)
    if changed is not None:
        return f"RewardScheme.{changed} was replaced after import"
    return None


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
        been seen `visits` times in its history (the current step included):
        the verdict of the first of the checks of `SCORING_ORDER` that gives
        one, else the cost of a move (`TIMESTEP`).

        When this scheme's `score` or `own_verdict`, or the env's `transition_fn`,
        `is_goal` or `tree_of`, is your own code (defined outside mathy_envs),
        `expression` is a private copy made for this call: keep it or change it,
        nothing else sees it. When all of them are library code, it is
        `mathy_envs.env.UNREAD_TREE`, and the library's methods read the state's
        tree through `MathyEnv.tree_of` when they need it."""
        for name in SCORING_ORDER:
            step = _CHECKS[name](self, env, state, expression, visits, features)
            if step is not None:
                return step
        return transition(features, EnvRewards.TIMESTEP, env.reward_discount)

    def scoring(self, env: ScoredEnv, state: MathyEnvState) -> Optional[Scoring]:
        """This scheme's scoring of `env`'s steps in `state`'s episode as data
        (`Scoring`; `Scoring.verdict` gives what `score` gives), with the env's
        rewarding and penalizing rules and lose signal as it gives them for
        `state`; None when the scheme's scoring is not the library's
        (`custom_scoring` says why), which the data would not describe. Its
        `win` is the built-in goal envs' win reward: an env whose own verdict
        (`transition_fn`) or `get_win_signal` is another is not described."""
        if custom_scoring(self) is not None:
            return None
        rewarding = tuple(env.get_rewarding_actions(state))
        penalizing = tuple(env.get_penalizing_actions(state))
        return Scoring(
            rule_rewards=tuple(
                EnvRewards.HELPFUL_MOVE
                if isinstance(rule, rewarding)
                else EnvRewards.UNHELPFUL_MOVE
                if isinstance(rule, penalizing)
                else EnvRewards.TIMESTEP
                for rule in env.rules
            ),
            penalize_revisits=bool(env.previous_state_penalty),
            revisit_penalty=EnvRewards.PREVIOUS_LOCATION,
            max_visits=MAX_VISITS,
            lose=float(env.get_lose_signal(state)),
            timestep=EnvRewards.TIMESTEP,
            discount=float(env.reward_discount),
        )

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


_CHECKS: Dict[
    str,
    Callable[
        [RewardScheme, ScoredEnv, MathyEnvState, MathExpression, int, MathyObservation],
        Optional[TimeStep],
    ],
] = {
    "oversize": lambda scheme, env, state, expression, visits, features: scheme.oversize(
        env, state, features
    ),
    "own_verdict": lambda scheme, env, state, expression, visits, features: scheme.own_verdict(
        env, state, expression, features
    ),
    "out_of_moves": lambda scheme, env, state, expression, visits, features: (
        scheme.out_of_moves(env, state, features)
    ),
    "revisit": lambda scheme, env, state, expression, visits, features: scheme.revisit(
        env, state, visits, features
    ),
    "rule_used": lambda scheme, env, state, expression, visits, features: scheme.rule_used(
        env, state, features
    ),
}
"""Each check of `SCORING_ORDER` as `RewardScheme.score` asks it: the scheme's
method of that name, with the arguments it takes."""


__all__ = (
    "EnvRewards",
    "ScoredEnv",
    "MAX_VISITS",
    "PENALIZING_RULES",
    "REWARDING_RULES",
    "RewardScheme",
    "SCORING_ORDER",
    "Scoring",
    "custom_scoring",
    "win_signal",
)
