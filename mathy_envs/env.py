"""`MathyEnv`: rules, action masks, transitions and rewards.

An environment turns a problem text into an episode: an agent picks a rule and a
node (counted left to right, in-order), the rule rewrites the expression, and the
env scores the new state. Subclasses supply the problems (`problem_fn`), the
namespace and, usually, a `transition_fn` that recognises a win.
"""

from typing import Any, List, Literal, Optional, Tuple, Type, TypeVar, Union, overload

import numpy as np
from mathy_core import BaseRule, ExpressionChangeRule, MathExpression

from ._support.pristine import pristine
from ._env.actions import ActionInput, ActionSpace, sample_valid_action
from .limits import (
    DEFAULT_MAX_SEQ_LEN,
    check_max_seq_len,
    check_move_budget,
    quote,
    shorten,
    type_name,
)
from .observations import MathyObservation, ObservationKind, ObservationType
from ._engine import (
    CORE_RULE_TYPES,
    MoveCache,
    check_equations,
    check_value_kept,
    fitting_nodes,
    copy_tree,
    core_rules,
    default_parser,
    in_mask,
    is_library_code,
    move_refusal,
    rewrite_move,
    visits_of,
)
from .rewards import PENALIZING_RULES, EnvRewards, REWARDING_RULES, RewardScheme, win_signal
from ._env.rendering import Rendering
from ._support.settings import check_flag, check_real, check_seed
from .state import MathyEnvState, MathyEnvStateStep, check_state
from .time_step import TimeStep, is_terminal_transition
from .types import ActionType, MathyEnvProblem, MathyEnvProblemArgs, ProblemGenerator

ObservationT = TypeVar("ObservationT")

INVALID_ACTION_RESPONSES: Tuple[str, ...] = ("raise", "penalize", "terminal")
InvalidActionResponse = Literal["raise", "penalize", "terminal"]

MAX_PROBLEM_ATTEMPTS = 100
"""How many generated problems `fitting_initial_state` draws before giving up."""


class _UnreadTree(MathExpression):
    """The type of `UNREAD_TREE`."""


UNREAD_TREE: MathExpression = _UnreadTree()
"""What the library's own scoring passes as a state's expression to the library's
own `transition_fn` and `is_goal`: they read the state's tree through
`MathyEnv.tree_of`, which builds it only then. User code never sees it."""


@pristine
class MathyEnv(ActionSpace, Rendering):
    """Implement a math solving game where a player wins by executing the right
    sequence of actions to reduce a math expression to an agreeable basic
    representation in as few moves as possible.

    Arguments:
        rules: the rules an agent may apply (`core_rules()` when None)
        max_moves: the default move budget of an episode
        verbose: print every step
        invalid_action_response: what an invalid action does: `"raise"` a
            `ValueError`, `"penalize"` it (one move used, `INVALID_MOVE` reward) or
            end the episode (`"terminal"`, with the lose signal)
        reward_discount: the discount of non-terminal transitions
        max_seq_len: the largest expression (in nodes) an observation holds
        previous_state_penalty: penalize returning to an earlier expression, and end
            the episode after the fourth visit
        preferred_term_commute: let commutative swap reorder terms already in the
            preferred `4x` form
        seed: seed of `np_random`, the generator problems are drawn from
        reward_scheme: how transitions are scored (the class's `reward_scheme`
            when None); see `mathy_envs.rewards`
        generator: draws the env's problems instead of its `problem_fn`: a
            function of `np_random` and the `MathyEnvProblemArgs` that returns a
            `MathyEnvProblem`

    Transitions are scored by `reward_scheme`, in the order `mathy_envs.rewards`
    describes; `GoalEnv` (the base of the built-in envs) describes the action and
    observation spaces.
    """

    reward_scheme: RewardScheme = RewardScheme()
    """How transitions are scored; see `mathy_envs.rewards`."""
    namespace: Optional[str] = None
    """The env's problem type (`"mathy.polynomials.simplify"`), which the default
    `get_env_namespace()` returns: declare it on a subclass."""
    generator: Optional[ProblemGenerator] = None
    """Draws problems from `np_random` and the `MathyEnvProblemArgs`: declared on
    a subclass (`generator = staticmethod(my_problem)`), the default `problem_fn`
    calls it; given as `generator=`, it replaces `problem_fn`."""

    max_moves: int
    """The default move budget of an episode."""
    max_seq_len: int
    """The largest expression (in nodes) an observation holds."""
    verbose: bool
    """Print every step."""
    reward_discount: float
    """The discount of non-terminal transitions."""
    previous_state_penalty: bool
    """Penalize returning to an earlier expression, and end the episode after the
    fourth visit."""
    invalid_action_response: InvalidActionResponse
    """What an invalid action does: `"raise"`, `"penalize"` or `"terminal"`."""
    np_random: np.random.Generator
    """The generator problems are drawn from; reseed it with `seed`."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _check_declarations(cls)

    def __init__(
        self,
        *,
        rules: Optional[List[BaseRule]] = None,
        max_moves: int = 20,
        verbose: bool = False,
        invalid_action_response: InvalidActionResponse = "raise",
        reward_discount: float = 0.99,
        max_seq_len: int = DEFAULT_MAX_SEQ_LEN,
        previous_state_penalty: bool = True,
        preferred_term_commute: bool = False,
        seed: Optional[int] = None,
        reward_scheme: Optional[RewardScheme] = None,
        generator: Optional[ProblemGenerator] = None,
    ) -> None:
        response = _checked_response(invalid_action_response)
        self.max_seq_len = check_max_seq_len(max_seq_len)
        self.max_moves = check_move_budget("max_moves", max_moves)
        self.verbose = check_flag("verbose", verbose)
        self.reward_discount = check_real("reward_discount", reward_discount, 0.0, 1.0)
        self.previous_state_penalty = check_flag("previous_state_penalty", previous_state_penalty)
        self.invalid_action_response = response
        self.preferred_term_commute = check_flag("preferred_term_commute", preferred_term_commute)
        """Whether commutative swap may reorder terms already in the preferred `4x`
        form."""
        self._moves = MoveCache()
        self.rules = rules if rules is not None else self.core_rules(preferred_term_commute)
        """The rules an agent may apply; action `(rule_index, node_index)` uses
        `rules[rule_index]`."""
        self.parser = default_parser()
        """The expression parser the env reads problem texts with."""
        if reward_scheme is not None:
            self.reward_scheme = _checked_scheme(reward_scheme)
        self.generator = None if generator is None else _checked_generator(generator)
        """The `generator=` argument: when set, it draws the env's problems in
        place of `problem_fn`; None otherwise (the class's `generator`, if it
        declares one, is read by the default `problem_fn`)."""
        self.seed(seed)

    def seed(self, seed: Optional[int] = None) -> None:
        """Reseed `np_random`, the generator every problem is drawn from."""
        self.np_random = _seeded_generator(seed)

    @staticmethod
    def core_rules(preferred_term_commute: bool = False) -> List[BaseRule]:
        """The default rules, in action order (see `mathy_envs._engine.rules`)."""
        return core_rules(preferred_term_commute)

    def get_env_namespace(self) -> str:
        """A unique string identifying the environment's problem type: the
        class's `namespace`."""
        if self.namespace is None:
            raise NotImplementedError("subclasses must declare a namespace (or override this)")
        return self.namespace

    def get_rewarding_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
        """Rules whose use earns `HELPFUL_MOVE`."""
        return list(REWARDING_RULES)

    def get_penalizing_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
        """Rules whose use costs `UNHELPFUL_MOVE`."""
        return list(PENALIZING_RULES)

    def max_moves_fn(self, problem: MathyEnvProblem, config: MathyEnvProblemArgs) -> int:
        """The move budget of a problem: three moves per unit of complexity."""
        return problem.complexity * 3

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        """Generate a problem: the class's `generator`, given `np_random`, its
        problem's type the env's namespace. Each environment draws its own
        data set with no required configuration."""
        return _class_problem(self, params)

    def transition_fn(
        self, env_state: MathyEnvState, expression: MathExpression, features: MathyObservation
    ) -> Optional[TimeStep]:
        """An env's own verdict on a state (a win, usually), or None for no opinion.

        `expression` is the state's expression tree. When this method is your own
        code (defined outside mathy_envs), the tree is a private copy made for
        this call: keep it or change it, nothing else sees it. The library's own
        methods are given `UNREAD_TREE` and read the cached tree through
        `tree_of`, only when they need it.
        """
        return None

    # -- episodes ---------------------------------------------------------------

    def get_initial_state(
        self, params: Optional[MathyEnvProblemArgs] = None, print_problem: bool = True, *,
        seed: Optional[int] = None,
    ) -> Tuple[MathyEnvState, MathyEnvProblem]:
        """Generate a problem and its starting state.

        `seed` reseeds `np_random` first. The problem is printed when
        `print_problem` and `verbose` are both set.
        """
        config = _checked_params(params)
        check_flag("print_problem", print_problem)
        if seed is not None:
            self.seed(seed)
        problem = self.generate_problem(config)
        state = self.state_from_problem(problem, config)
        if print_problem and self.verbose:
            self.print_state(state, "initial-state")
        return state, problem

    def generate_problem(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        """A problem from the env's own `generator` (the `generator=` argument,
        given `np_random` and `params`) when it has one, else from `problem_fn`;
        a `ValueError` when what they return has no text and complexity (a
        `MathyEnvProblem` has both)."""
        generator: Optional[ProblemGenerator] = vars(self).get("generator")
        if generator is None:
            problem = self.problem_fn(params)
            source = f"{type(self).__name__}.problem_fn"
        else:
            problem = generator(self.np_random, params)
            source = "the env's generator"
        return _checked_problem(problem, source)

    def fitting_initial_state(
        self, params: Optional[MathyEnvProblemArgs] = None
    ) -> Tuple[MathyEnvState, MathyEnvProblem]:
        """A generated problem that fits `max_seq_len`, and its starting state:
        problems are drawn (`generate_problem`) until one has at most
        `max_seq_len` nodes, at most `MAX_PROBLEM_ATTEMPTS` of them (then a
        `ValueError`). `MathyGymEnv` and `StepBatch` start their episodes so."""
        config = params if params is not None else MathyEnvProblemArgs()
        for _ in range(MAX_PROBLEM_ATTEMPTS):
            problem = self.generate_problem(config)
            if self.node_count(problem.text) <= self.max_seq_len:
                return self.state_from_problem(problem, config), problem
        raise ValueError(
            f"max_seq_len={self.max_seq_len} is too small for {type(self).__name__}: "
            f"{MAX_PROBLEM_ATTEMPTS} generated problems in a row did not fit"
        )

    def state_from_problem(
        self, problem: MathyEnvProblem, config: MathyEnvProblemArgs
    ) -> MathyEnvState:
        """The starting state of a generated problem, with the move budget of
        `max_moves_fn`; see `state_from_text`."""
        return self.state_from_text(problem.text, self.max_moves_fn(problem, config))

    def state_from_text(self, text: str, max_moves: Optional[int] = None) -> MathyEnvState:
        """The starting state of a problem text in this env: `max_moves` moves
        (the env's `max_moves` when None), `num_rules = len(rules)` and the env's
        namespace as problem type.

        Raises `ValueError` when the text does not parse, is out of the supported
        range, has more nodes than `max_seq_len`, or is an equation in an env that
        does not support them.
        """
        if not isinstance(text, str):
            raise ValueError(f"a problem must be a text, got {type(text).__name__} {quote(text)}")
        self.check_fits(text)
        if not self.supports_equations:
            check_equations(self._expressions, text, type(self))
        return MathyEnvState(
            problem=text,
            max_moves=self.max_moves if max_moves is None else max_moves,
            num_rules=len(self._rules),
            problem_type=self.get_env_namespace(),
        )

    def check_fits(self, text: str) -> int:
        """The node count of `text`, or a `ValueError` when it does not parse or
        has more nodes than `max_seq_len` (no observation could hold it)."""
        return fitting_nodes(self._expressions, text, self.max_seq_len)

    def get_next_state(
        self, env_state: MathyEnvState, action: ActionInput
    ) -> Tuple[MathyEnvState, TimeStep, ExpressionChangeRule]:
        """Apply an action.

        Returns the next state, the time step of the transition and the change the
        rule made. An invalid action (rule or node out of range, or a rule that
        can't apply at that node) is handled per `invalid_action_response`. The
        given state is never modified.

        A step is five stages, each done once:

        1. **check the action** (and the state): decode it to
           `(rule_index, node_index)` (`to_action`, `mathy_envs._env.actions`);
        2. **admit it**: the state's valid-move mask says the rule applies at
           that node and its result keeps the expression's value and stays in the
           supported limits (`mathy_envs._engine.masks`);
        3. **rewrite**: apply the rule at the node (`mathy_envs._engine.move_cache`);
        4. **next state**: the new text appended to the history
           (`MathyEnvState.get_out_state`);
        5. **score**: the env's `reward_scheme` judges the new state
           (`mathy_envs.rewards`), with the observation it carries.
        """
        move = self.to_action(action)
        state = check_state(env_state)
        text = state.agent.problem
        if not in_mask(self._mask_of(text), move):
            return self._invalid_action(state, move)
        out_text, change = rewrite_move(self._expressions, self._rules, text, move)
        out_state = state.get_out_state(out_text, move, state.agent.moves_remaining - 1)
        time_step = self.get_state_transition(out_state)
        if self.verbose:
            rule = self._rules[move[0]]
            self.print_state(out_state, rule.name, move[1], change, time_step.reward)
        return out_state, time_step, change

    def _invalid_action(
        self, env_state: MathyEnvState, action: ActionType
    ) -> Tuple[MathyEnvState, TimeStep, ExpressionChangeRule]:
        agent = env_state.agent
        reason, change = move_refusal(self._expressions, self._rules, agent.problem, action)
        if self.invalid_action_response == "raise":
            raise ValueError(
                f"invalid action {action} at step {len(agent.history) - 1} of "
                f"expression {quote(agent.problem)}: {reason}"
            )
        moves = agent.moves_remaining - 1 if self.invalid_action_response == "penalize" else 0
        out_state = env_state.get_out_state(agent.problem, action, moves)
        step = self.reward_scheme.score_invalid(self, out_state, self._features(out_state))
        return out_state, step, change

    def get_state_transition(self, env_state: MathyEnvState) -> TimeStep:
        """Score a state with `reward_scheme`: oversize (lose), the env's
        `transition_fn`, no moves left (lose), a revisited expression (penalty, or
        lose after the fourth visit), a rewarding or penalizing last rule,
        otherwise the time step cost."""
        text = check_state(env_state).agent.problem
        return self._score(env_state, visits_of(env_state.agent.history, text, self._parser))

    def _score(self, env_state: MathyEnvState, visits: int) -> TimeStep:
        """`get_state_transition` of a state whose text has been seen `visits`
        times in its history (the current step included). User code (see
        `_judged_by_library`) is given a private copy of the cached tree, which
        masks, observations and the next step share; the library's own methods
        are given `UNREAD_TREE` and read the cached tree through `tree_of`."""
        features = self._features(env_state)
        scheme = self.reward_scheme
        tree: MathExpression
        if self._judged_by_library(scheme):
            tree = UNREAD_TREE
        else:
            tree = copy_tree(self._expressions.parse(env_state.agent.problem).tree)
        return scheme.score(self, env_state, tree, visits, features)

    def tree_of(self, env_state: MathyEnvState, expression: MathExpression) -> MathExpression:
        """The tree `expression` stands for: `expression` itself, or the state's
        cached tree when it is `UNREAD_TREE`.

        The library's own scoring passes `UNREAD_TREE` to its own methods (the
        built-in `transition_fn` and `is_goal`) instead of the state's tree, so
        that a verdict the native core or a cache already knows never builds it;
        those methods read the tree through `tree_of`, and only read it."""
        if expression is UNREAD_TREE:
            return self._expressions.parse(check_state(env_state).agent.problem).tree
        return expression

    def _judged_by_library(self, scheme: RewardScheme) -> bool:
        """Whether every method given the expression tree when `scheme` scores a
        state of this env is library code (`_library_judges`)."""
        return _library_judges(self, scheme)

    def _features(self, env_state: MathyEnvState) -> MathyObservation:
        """The observation a time step carries: the state's `MathyObservation`."""
        return env_state.to_mathy_observation(self._mask_of(env_state.agent.problem), self._parser)

    def is_terminal_state(self, env_state: MathyEnvState) -> bool:
        """Whether the state ends the episode (its transition is terminal)."""
        return is_terminal_transition(self.get_state_transition(env_state))

    def get_win_signal(self, env_state: MathyEnvState) -> float:
        """The win reward: `WIN` plus a bonus for finishing in few moves (see
        `mathy_envs.rewards.win_signal`)."""
        return win_signal(env_state.max_moves, env_state.agent.moves_remaining)

    def get_lose_signal(self, env_state: MathyEnvState) -> float:
        """The reward for losing an episode."""
        return EnvRewards.LOSE

    def finalize_state(self, state: MathyEnvState) -> None:
        """Check that the episode's last expression has the value of its first,
        wherever the first has one: both are evaluated exactly at pseudo-random
        points derived from the first text. A `ValueError` when they differ, or
        when the last asks a condition the first does not (a divisor nonzero,
        the base of a fractional power >= 0...: `x^3 -> x^3 * x^0.5 * x^0.5 / x`
        has no value at 0), as `mathy_envs._engine.values.narrowed_domain` tells."""
        history = check_state(state).agent.history
        first_text = history[0].raw if history else state.agent.problem
        check_value_kept(self._expressions, first_text, state.agent.problem)

    # -- observations -----------------------------------------------------------

    @overload
    def state_to_observation(
        self, state: MathyEnvState, max_seq_len: Optional[int] = ..., obs_type: None = ...
    ) -> MathyObservation: ...

    @overload
    def state_to_observation(
        self, state: MathyEnvState, max_seq_len: Optional[int] = ..., *,
        obs_type: ObservationKind[ObservationT],
    ) -> ObservationT: ...

    @overload
    def state_to_observation(
        self, state: MathyEnvState, max_seq_len: Optional[int] = ...,
        obs_type: Optional[Union[ObservationType, str]] = ...,
    ) -> Any: ...

    def state_to_observation(
        self, state: MathyEnvState, max_seq_len: Optional[int] = None,
        obs_type: Optional[Union[ObservationKind[Any], ObservationType, str]] = None,
    ) -> Any:
        """A state's observation with its valid-move mask.

        With no `obs_type`, the plain-list `MathyObservation` (padded to
        `max_seq_len` when given); otherwise `state.to_observation` of that type
        (an `ObservationType`, the name of a registered observation type, or an
        `ObservationKind` such as `mathy_envs.observations.GRAPH`, which mypy
        then knows the observation type of).
        """
        mask = self.valid_moves_array(state)
        if obs_type is None:
            return state.to_mathy_observation(mask, self._parser, max_seq_len)
        seq_len = self.max_seq_len if max_seq_len is None else max_seq_len
        return state.to_observation(
            move_mask=mask, parser=self._parser, max_seq_len=seq_len, obs_type=obs_type
        )

    def to_hash_key(self, env_state: MathyEnvState) -> str:
        """A key for the state: its problem text."""
        return env_state.agent.problem

    def get_rule_from_timestep(self, time_step: MathyEnvStateStep) -> BaseRule:
        """The rule a history step applied."""
        rule_index = _rule_index_of(time_step)
        if not 0 <= rule_index < len(self._rules):
            raise ValueError(f"history step {quote(time_step)} has no rule (index {rule_index})")
        return self._rules[rule_index]


# -- the details the class above reads without ------------------------------------


def _checked_response(response: object) -> InvalidActionResponse:
    """`invalid_action_response`, or a `ValueError` unless it is one of
    `INVALID_ACTION_RESPONSES`."""
    if not (isinstance(response, str) and response in INVALID_ACTION_RESPONSES):
        raise ValueError(
            f"invalid_action_response must be one of "
            f"{', '.join(repr(r) for r in INVALID_ACTION_RESPONSES)}; "
            f"got {quote(response)}"
        )
    return response  # type: ignore[return-value]


def _class_problem(env: MathyEnv, params: MathyEnvProblemArgs) -> MathyEnvProblem:
    """The default `problem_fn`: a problem of the class's `generator` (read from
    the class: a plain function is not bound to the env), given `np_random`,
    with the env's namespace as its type; `NotImplementedError` when the class
    declares no generator."""
    generator = type(env).generator
    if generator is None:
        raise NotImplementedError("subclasses must declare a generator (or override problem_fn)")
    problem = generator(env.np_random, params)
    namespace = env.get_env_namespace()
    if isinstance(problem, MathyEnvProblem) and problem.type != namespace:
        problem = problem._replace(type=namespace)
    return problem


def _checked_params(params: object) -> MathyEnvProblemArgs:
    """`get_initial_state`'s `params` (default `MathyEnvProblemArgs()` for
    None), or a `ValueError`."""
    if params is None:
        return MathyEnvProblemArgs()
    if not isinstance(params, MathyEnvProblemArgs):
        raise ValueError(f"params must be MathyEnvProblemArgs or None, got {type_name(params)}")
    return params


def _checked_scheme(scheme: object) -> RewardScheme:
    """`reward_scheme`, or a `ValueError` unless it is a `RewardScheme`."""
    if not isinstance(scheme, RewardScheme):
        raise ValueError(
            f"reward_scheme must be a RewardScheme instance, got "
            f"{type_name(scheme)} {quote(scheme, 60)}"
        )
    return scheme


def _seeded_generator(seed: object) -> np.random.Generator:
    """`np.random.default_rng(seed)`, or a `ValueError` unless `seed` is a
    non-negative int or None."""
    if isinstance(seed, (bool, float)) or isinstance(seed, str):
        raise ValueError(f"seed must be an int or None, got {quote(seed, 40)}")
    check_seed("seed", seed)
    try:
        return np.random.default_rng(seed)  # type: ignore[arg-type]
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"seed must be a non-negative int or None, got {quote(seed, 40)}: "
            f"{shorten(str(error))}"
        ) from None


def _checked_problem(problem: object, source: str) -> MathyEnvProblem:
    """A generated `problem`, or a `ValueError` (naming its `source`) when it
    has no text and complexity (a `MathyEnvProblem` has both)."""
    if not (
        isinstance(getattr(problem, "text", None), str) and hasattr(problem, "complexity")
    ):
        raise ValueError(
            f"{source} must return a MathyEnvProblem (a text and a complexity), "
            f"got {type_name(problem)} {quote(problem, 80)}"
        )
    return problem  # type: ignore[return-value]


def _rule_index_of(time_step: object) -> int:
    """The rule index of a history step's action, or a `ValueError` when
    `time_step` is no history step."""
    action = getattr(time_step, "action", None) if isinstance(time_step, tuple) else None
    if not (
        isinstance(action, tuple)
        and len(action) == 2
        and isinstance(action[0], (int, np.integer))
        and not isinstance(action[0], (bool, np.bool_))
    ):
        raise ValueError(
            "time_step must be a history step (MathyEnvStateStep) of a state, got "
            f"{quote(time_step, 80)}"
        )
    return int(action[0])


def _library_judges(env: MathyEnv, scheme: RewardScheme) -> bool:
    """Whether every method that is given the expression tree when `scheme`
    scores a state of `env` is library code: the scheme's `score` and
    `own_verdict`, the env's `transition_fn`, `tree_of` and (a `GoalEnv`)
    `is_goal`. Looked up on every call (about a microsecond), so a method set
    on an instance or a scheme swapped in later counts too."""
    is_goal = getattr(env, "is_goal", None)
    return (
        is_library_code(scheme.score)
        and is_library_code(getattr(scheme, "own_verdict", None))
        and is_library_code(env.transition_fn)
        and (is_goal is None or is_library_code(is_goal))
        and is_library_code(env.tree_of)
    )


def _check_declarations(cls: type) -> None:
    """A `ValueError` when an env class declares a `namespace` that is not a
    string or a `generator` that is not callable (found when the class is
    made, not at its first reset)."""
    namespace = vars(cls).get("namespace")
    if namespace is not None and (not isinstance(namespace, str) or not namespace):
        raise ValueError(
            f"{cls.__name__}.namespace must be a non-empty str (the problem type), "
            f"got {type_name(namespace)} {quote(namespace, 60)}"
        )
    generator = vars(cls).get("generator")
    if generator is not None and not callable(generator):
        raise ValueError(
            f"{cls.__name__}.generator must be a function of (np_random, "
            f"MathyEnvProblemArgs), got {type_name(generator)} {quote(generator, 60)}"
        )


def _checked_generator(generator: object) -> ProblemGenerator:
    """`generator` (the `generator=` argument), or a `ValueError` unless it is
    callable."""
    if not callable(generator):
        raise ValueError(
            f"generator must be a function of (np_random, MathyEnvProblemArgs), "
            f"got {type_name(generator)} {quote(generator, 60)}"
        )
    return generator


__all__ = (
    "CORE_RULE_TYPES",
    "INVALID_ACTION_RESPONSES",
    "MAX_PROBLEM_ATTEMPTS",
    "MathyEnv",
    "UNREAD_TREE",
    "sample_valid_action",
)
