"""`MathyEnv`: rules, action masks, transitions and rewards.

An environment turns a problem text into an episode: an agent picks a rule and a
node (counted left to right, in-order), the rule rewrites the expression, and the
env scores the new state. Subclasses supply the problems (`problem_fn`), the
namespace and, usually, a `transition_fn` that recognises a win.
"""

from collections import Counter
from typing import (
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Literal,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
    overload,
)

import numpy as np
import numpy.typing as npt
from mathy_core import BaseRule, ExpressionChangeRule, ExpressionParser, MathExpression
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from .limits import DEFAULT_MAX_SEQ_LEN, check_max_seq_len, quote
from .lru import LRUCache
from .observations import MathyObservation, MathyObservationUnion, ObservationType
from .parsing import (
    ExpressionCache,
    ParsedExpression,
    admit,
    apply_rule,
    default_parser,
    expression_cache,
    node_at_index,
    parse_text,
)
from .state import MathyEnvState, MathyEnvStateStep
from .time_step import TimeStep, is_terminal_transition, termination, transition
from .types import ActionType, EnvRewards, MathyEnvProblem, MathyEnvProblemArgs
from .values import same_value

INVALID_ACTION_RESPONSES: Tuple[str, ...] = ("raise", "penalize", "terminal")
InvalidActionResponse = Literal["raise", "penalize", "terminal"]
ActionInput = Union[int, np.integer[Any], Tuple[int, int], Sequence[int]]
MaskArray = npt.NDArray[np.int8]

MASK_CACHE_SIZE = 4096
_NO_RULE = BaseRule()


def check_state(env_state: Any) -> MathyEnvState:
    """`env_state`, or a `ValueError` when it is not a `MathyEnvState`."""
    if not isinstance(env_state, MathyEnvState):
        raise ValueError(f"expected a MathyEnvState, got {type(env_state).__name__}")
    return env_state


def sample_valid_action(
    mask: MaskArray, rng: np.random.Generator
) -> Optional[ActionType]:
    """A uniformly random `(rule, node)` among the 1s of a `(num_rules, num_nodes)`
    mask (one draw from `rng`), or None when the mask has none."""
    choices = np.flatnonzero(mask)
    if choices.size == 0:
        return None
    flat = int(choices[int(rng.integers(choices.size))])
    return flat // mask.shape[1], flat % mask.shape[1]


class MathyEnv:
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
    """

    supports_equations: bool = True
    """Whether texts with `=` are accepted (the built-in envs' goals use term
    helpers that only read expressions, so they refuse equations)."""
    max_moves: int
    max_seq_len: int
    verbose: bool
    reward_discount: float
    previous_state_penalty: bool
    invalid_action_response: InvalidActionResponse
    np_random: np.random.Generator

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
    ) -> None:
        if invalid_action_response not in INVALID_ACTION_RESPONSES:
            raise ValueError(
                f"invalid_action_response must be one of "
                f"{', '.join(repr(r) for r in INVALID_ACTION_RESPONSES)}; "
                f"got {quote(invalid_action_response)}"
            )
        check_max_seq_len(max_seq_len)
        self.max_moves = max_moves
        self.max_seq_len = max_seq_len
        self.verbose = verbose
        self.reward_discount = reward_discount
        self.previous_state_penalty = previous_state_penalty
        self.invalid_action_response = invalid_action_response
        self.preferred_term_commute = preferred_term_commute
        self._masks: LRUCache[str, MaskArray] = LRUCache(MASK_CACHE_SIZE)
        self._mask_rules: List[BaseRule] = []
        self.rules = (
            rules if rules is not None else self.core_rules(preferred_term_commute)
        )
        self.parser = default_parser()
        self.seed(seed)

    # -- configuration --------------------------------------------------------

    @property
    def rules(self) -> List[BaseRule]:
        return self._rules

    @rules.setter
    def rules(self, rules: List[BaseRule]) -> None:
        if not isinstance(rules, (list, tuple)) or not all(
            isinstance(rule, BaseRule) for rule in rules
        ):
            raise ValueError(f"rules must be a list of mathy_core rules, got {quote(rules)}")
        self._rules = list(rules)
        self._masks.clear()

    @property
    def parser(self) -> ExpressionParser:
        return self._parser

    @parser.setter
    def parser(self, parser: ExpressionParser) -> None:
        self._parser = parser
        self._masks.clear()

    @property
    def _expressions(self) -> ExpressionCache:
        """The calling thread's cache of parsed texts for this env's parser."""
        return expression_cache(self._parser)

    def __getstate__(self) -> Dict[str, Any]:
        # Caches are rebuilt on demand; the shared default parser stays shared.
        state = self.__dict__.copy()
        if state["_parser"] is default_parser():
            state["_parser"] = None
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        parser = state.pop("_parser")
        self.__dict__.update(state)
        self.parser = parser if parser is not None else default_parser()

    def seed(self, seed: Optional[int] = None) -> None:
        """Reseed `np_random`, the generator every problem is drawn from."""
        if isinstance(seed, (bool, float)) or isinstance(seed, str):
            raise ValueError(f"seed must be an int or None, got {quote(seed, 40)}")
        try:
            self.np_random = np.random.default_rng(seed)
        except (TypeError, ValueError) as error:
            raise ValueError(f"seed must be a non-negative int or None, got {quote(seed, 40)}: {error}") from None

    @property
    def action_size(self) -> int:
        """Return the number of available actions"""
        return len(self._rules) * self.max_seq_len

    @staticmethod
    def core_rules(preferred_term_commute: bool = False) -> List[BaseRule]:
        """The default rules, in action order."""
        return [
            ConstantsSimplifyRule(),
            CommutativeSwapRule(preferred=preferred_term_commute),
            DistributiveMultiplyRule(),
            DistributiveFactorOutRule(),
            AssociativeSwapRule(),
            VariableMultiplyRule(),
            RestateSubtractionRule(),
        ]

    def get_env_namespace(self) -> str:
        """A unique string identifying the environment's problem type."""
        raise NotImplementedError("subclasses must return their env namespace")

    def get_rewarding_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
        """Rules whose use earns `HELPFUL_MOVE`."""
        return [
            RestateSubtractionRule,
            ConstantsSimplifyRule,
            DistributiveFactorOutRule,
            VariableMultiplyRule,
        ]

    def get_penalizing_actions(self, state: MathyEnvState) -> List[Type[BaseRule]]:
        """Rules whose use costs `UNHELPFUL_MOVE`."""
        return [AssociativeSwapRule, DistributiveMultiplyRule]

    def max_moves_fn(
        self, problem: MathyEnvProblem, config: MathyEnvProblemArgs
    ) -> int:
        """The move budget of a problem: three moves per unit of complexity."""
        return problem.complexity * 3

    def problem_fn(self, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        """Generate a problem. Implemented per environment so that each one can
        produce its own data set with no required configuration."""
        raise NotImplementedError("subclasses must generate their problems")

    def transition_fn(
        self,
        env_state: MathyEnvState,
        expression: MathExpression,
        features: MathyObservation,
    ) -> Optional[TimeStep]:
        """An env's own verdict on a state (a win, usually), or None for no opinion.

        `expression` is a shared, read-only tree: clone it before changing it.
        """
        return None

    # -- parsing and masks ----------------------------------------------------

    def parse(self, text: str) -> ParsedExpression:
        """The cached parse of `text`. Its `.tree` is shared and read-only: clone it
        before changing it."""
        parsed = self._expressions.parse(text)
        parsed.shared = True
        return parsed

    def node_count(self, text: str) -> int:
        """The number of nodes of the parsed `text`."""
        return len(self._expressions.parse(text))

    def valid_moves_array(self, env_state: MathyEnvState) -> MaskArray:
        """`get_valid_moves` as a read-only `(num_rules, num_nodes)` int8 array,
        computed once per distinct expression text."""
        return self._mask_of(check_state(env_state).agent.problem)

    def _mask_of(self, text: str) -> MaskArray:
        masks = self._masks
        if self._mask_rules != self._rules:
            # `rules` is a plain list that callers may change in place (e.g.
            # `env.rules[1] = CommutativeSwapRule(preferred=True)`); cached masks
            # are only valid for the rule objects they were computed with.
            masks.clear()
            self._mask_rules = list(self._rules)
        mask = masks.get(text)
        if mask is None:
            parsed = self._expressions.parse(text)
            if parsed.has_equation and not self.supports_equations:
                raise ValueError(
                    f"{type(self).__name__} does not support equations: {quote(text)}"
                )
            mask = self._checked_mask(parsed, None, lambda: parse_text(self._parser, text))
            mask.flags.writeable = False
            masks.put(text, mask)
        return mask

    def _checked_mask(
        self,
        parsed: ParsedExpression,
        rule_list: Optional[Sequence[Type[BaseRule]]],
        fresh_tree: Callable[[], MathExpression],
    ) -> MaskArray:
        """The `(num_rules, num_nodes)` mask of `parsed`: `can_apply_to` of every
        rule at every node, less the actions whose result would be out of the
        supported range or change the expression's value."""
        nodes = parsed.nodes
        mask = np.asarray(self._mask_rows(nodes, rule_list), dtype=np.int8)
        mask = mask.reshape(len(self._rules), len(nodes))
        self._remove_unsound(parsed, mask, self._rows_to_check(parsed), fresh_tree)
        return mask

    def _rows_to_check(self, parsed: ParsedExpression) -> Iterable[int]:
        """The rules whose results must be checked one by one: every rule on an
        expression that is not safe, else only rules outside `CORE_RULE_TYPES`."""
        if not parsed.safe:
            return range(len(self._rules))
        return [i for i, rule in enumerate(self._rules) if type(rule) not in CORE_RULE_TYPES]

    def _remove_unsound(
        self,
        parsed: ParsedExpression,
        mask: MaskArray,
        rows: Iterable[int],
        fresh_tree: Callable[[], MathExpression],
    ) -> None:
        """Zero the actions of `rows` whose result does not keep the value of
        `parsed` or is outside the supported range. `fresh_tree()` returns a copy
        of `parsed.tree` the check may change."""
        for rule_index in rows:
            for node_index in np.flatnonzero(mask[rule_index]):
                if not self._keeps_value(parsed, rule_index, int(node_index), fresh_tree):
                    mask[rule_index, node_index] = 0

    def _keeps_value(
        self,
        parsed: ParsedExpression,
        rule_index: int,
        node_index: int,
        fresh_tree: Callable[[], MathExpression],
    ) -> bool:
        """Whether applying the rule at the node gives an admissible text with the
        exact value of `parsed`. Any failure of mathy_core while applying it
        (numpy errors on extreme constants, assertions) makes the action
        invalid."""
        try:
            with np.errstate(all="ignore"):
                change = apply_rule(
                    fresh_tree(), self._rules[rule_index], node_index, parsed.text
                )
                assert change.result is not None
                after = self._expressions.parse(str(change.result.get_root()))
        except Exception:
            return False
        return same_value(parsed.tree, after.tree, parsed.text)

    def _mask_rows(
        self,
        nodes: List[MathExpression],
        rule_list: Optional[Sequence[Type[BaseRule]]],
    ) -> List[List[int]]:
        allowed = tuple(rule_list) if rule_list is not None else None
        rows: List[List[int]] = []
        for rule in self._rules:
            if allowed is not None and not isinstance(rule, allowed):
                rows.append([0] * len(nodes))
                continue
            can_apply = rule.can_apply_to
            rows.append([1 if can_apply(node) else 0 for node in nodes])
        return rows

    def get_valid_moves(self, env_state: MathyEnvState) -> List[List[int]]:
        """A `num_rules x num_nodes` 0/1 matrix: row `r`, column `i` is 1 when rule
        `r` can be applied to the `i`-th node from the left."""
        return self.valid_moves_array(env_state).tolist()  # type: ignore[no-any-return]

    def get_actions_for_node(
        self,
        expression: MathExpression,
        rule_list: Optional[List[Type[BaseRule]]] = None,
    ) -> List[List[int]]:
        """The valid-move matrix of an expression tree (`num_rules x num_nodes`).
        With `rule_list`, rows of rules of other types are all zero."""
        if not isinstance(expression, MathExpression):
            raise ValueError(
                f"expression must be a mathy_core MathExpression, got {type(expression).__name__}"
            )
        if rule_list is not None and (
            not isinstance(rule_list, (list, tuple))
            or not all(isinstance(r, type) and issubclass(r, BaseRule) for r in rule_list)
        ):
            raise ValueError(f"rule_list must be a list of rule classes, got {quote(rule_list)}")
        parsed = ParsedExpression(str(expression.get_root()), expression)
        admit(parsed)
        mask = self._checked_mask(parsed, rule_list, expression.clone)
        return mask.tolist()  # type: ignore[no-any-return]

    def get_valid_rules(self, env_state: MathyEnvState) -> List[int]:
        """1 for each rule that applies somewhere in the expression, else 0."""
        mask = self.valid_moves_array(env_state)
        return [1 if row.any() else 0 for row in mask]

    def get_agent_actions_count(self, env_state: MathyEnvState) -> int:
        """The number of valid actions in a state."""
        return int(self.valid_moves_array(env_state).sum())

    @staticmethod
    def get_token_at_index(
        expression: MathExpression, index: int
    ) -> Optional[MathExpression]:
        """The node `index` places from the left of the expression (in-order), or
        None when there is none."""
        return node_at_index(expression, index)

    # -- actions ----------------------------------------------------------------

    def to_action(self, action: ActionInput) -> ActionType:
        """Decode an action: an int indexes the flattened `(rule, node)` space as
        `(a // max_seq_len, a % max_seq_len)`; a pair passes through."""
        if isinstance(action, (bool, np.bool_)):
            raise ValueError(
                f"an action must be an int or a (rule, node) pair, got {quote(action)}"
            )
        if isinstance(action, (int, np.integer)):
            value = int(action)
            return value // self.max_seq_len, value % self.max_seq_len
        if isinstance(action, np.ndarray) and action.ndim == 0:
            return self.to_action(action.item())
        if isinstance(action, (tuple, list, np.ndarray)) and len(action) == 2:
            rule, node = action[0], action[1]
            if isinstance(rule, (int, np.integer)) and isinstance(node, (int, np.integer)):
                if not isinstance(rule, (bool, np.bool_)) and not isinstance(
                    node, (bool, np.bool_)
                ):
                    return int(rule), int(node)
        raise ValueError(
            f"an action must be an int or a (rule, node) pair of ints, got {quote(action)}"
        )

    def random_action(
        self, expression: MathExpression, rule: Optional[Type[BaseRule]] = None
    ) -> ActionType:
        """A uniformly random valid `(rule, node)` action, optionally of one rule
        type, drawn from `np_random`. Raises `ValueError` when there is none."""
        if rule is not None and not (isinstance(rule, type) and issubclass(rule, BaseRule)):
            raise ValueError(f"rule must be a rule class or None, got {quote(rule)}")
        rows = self.get_actions_for_node(expression, [rule] if rule is not None else None)
        choices = [(r, n) for r, row in enumerate(rows) for n, ok in enumerate(row) if ok]
        if not choices:
            kind = f" for rule {rule.__name__}" if rule is not None else ""
            raise ValueError(f"no valid action{kind} in expression {quote(str(expression))}")
        return choices[int(self.np_random.integers(len(choices)))]

    # -- episodes ---------------------------------------------------------------

    def get_initial_state(
        self,
        params: Optional[MathyEnvProblemArgs] = None,
        print_problem: bool = True,
        *,
        seed: Optional[int] = None,
    ) -> Tuple[MathyEnvState, MathyEnvProblem]:
        """Generate a problem and its starting state.

        `seed` reseeds `np_random` first. The problem is printed when
        `print_problem` and `verbose` are both set.
        """
        if seed is not None:
            self.seed(seed)
        if params is not None and not isinstance(params, MathyEnvProblemArgs):
            raise ValueError(
                f"params must be MathyEnvProblemArgs or None, got {type(params).__name__}"
            )
        config = params if params is not None else MathyEnvProblemArgs()
        problem = self.problem_fn(config)
        state = self.state_from_problem(problem, config)
        if print_problem and self.verbose:
            self.print_state(state, "initial-state")
        return state, problem

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
        range, or has more nodes than `max_seq_len`.
        """
        if not isinstance(text, str):
            raise ValueError(f"a problem must be a text, got {type(text).__name__} {quote(text)}")
        self.check_fits(text)
        return MathyEnvState(
            problem=text,
            max_moves=self.max_moves if max_moves is None else max_moves,
            num_rules=len(self._rules),
            problem_type=self.get_env_namespace(),
        )

    def check_fits(self, text: str) -> int:
        """The node count of `text`, or a `ValueError` when it does not parse or
        has more nodes than `max_seq_len` (no observation could hold it)."""
        nodes = self.node_count(text)
        if nodes > self.max_seq_len:
            raise ValueError(
                f"problem {quote(text)} has {nodes} nodes, more than "
                f"max_seq_len={self.max_seq_len}: pass a max_seq_len of at least "
                f"{nodes} or a shorter problem"
            )
        return nodes

    def get_next_state(
        self, env_state: MathyEnvState, action: ActionInput
    ) -> Tuple[MathyEnvState, TimeStep, ExpressionChangeRule]:
        """Apply an action.

        Returns the next state, the time step of the transition and the change the
        rule made. An invalid action (rule or node out of range, or a rule that
        can't apply at that node) is handled per `invalid_action_response`. The
        given state is never modified.
        """
        rule_index, node_index = self.to_action(action)
        agent = check_state(env_state).agent
        mask = self._mask_of(agent.problem)
        if not (
            0 <= rule_index < mask.shape[0]
            and 0 <= node_index < mask.shape[1]
            and mask[rule_index, node_index]
        ):
            return self._invalid_action(env_state, (rule_index, node_index))
        rule = self._rules[rule_index]
        tree = self._expressions.take_tree(agent.problem)
        change = apply_rule(tree, rule, node_index, agent.problem)
        assert change.result is not None
        out_state = env_state.get_out_state(
            problem=str(change.result.get_root()),
            action=(rule_index, node_index),
            moves_remaining=agent.moves_remaining - 1,
        )
        time_step = self.get_state_transition(out_state)
        if self.verbose:
            self.print_state(
                out_state, rule.name, node_index, change, time_step.reward
            )
        return out_state, time_step, change

    def _invalid_action(
        self, env_state: MathyEnvState, action: ActionType
    ) -> Tuple[MathyEnvState, TimeStep, ExpressionChangeRule]:
        rule_index, node_index = action
        agent = env_state.agent
        parsed = self._expressions.parse(agent.problem)
        rules = self._rules
        in_range = 0 <= rule_index < len(rules) and 0 <= node_index < len(parsed)
        if not 0 <= rule_index < len(rules):
            reason = f"rule index {rule_index} is out of range [0, {len(rules)})"
        elif not 0 <= node_index < len(parsed):
            reason = f"node index {node_index} is out of range [0, {len(parsed)})"
        else:
            reason = (
                f"{rules[rule_index].name} can't be applied to node {node_index}"
                " (or its result would not keep the expression's value)"
            )
        if self.invalid_action_response == "raise":
            raise ValueError(
                f"invalid action {action} at step {len(agent.history) - 1} of "
                f"expression {quote(agent.problem)}: {reason}"
            )
        rule = rules[rule_index] if 0 <= rule_index < len(rules) else _NO_RULE
        # A copy of the node: the parsed tree is shared and must never be handed out.
        node = parsed.nodes[node_index].clone() if in_range else None
        change = ExpressionChangeRule(rule, node)
        if self.invalid_action_response == "penalize":
            out_state = env_state.get_out_state(
                agent.problem, action, agent.moves_remaining - 1
            )
            features = self.state_to_observation(out_state)
            if out_state.agent.moves_remaining <= 0:
                step = termination(features, self.get_lose_signal(out_state))
            else:
                step = transition(features, EnvRewards.INVALID_MOVE, self.reward_discount)
            return out_state, step, change
        out_state = env_state.get_out_state(agent.problem, action, 0)
        features = self.state_to_observation(out_state)
        return out_state, termination(features, self.get_lose_signal(out_state)), change

    def get_state_transition(self, env_state: MathyEnvState) -> TimeStep:
        """Score a state. Checked in order: the env's `transition_fn`; no moves
        left (lose); a revisited expression (penalty, or lose after the fourth
        visit); a rewarding or penalizing last rule; otherwise the time step cost.
        """
        text = check_state(env_state).agent.problem
        visits = sum(1 for step in env_state.agent.history if step.raw == text)
        return self._score(env_state, visits)

    def _score(self, env_state: MathyEnvState, visits: int) -> TimeStep:
        """`get_state_transition` of a state whose text has been seen `visits`
        times in its history (the current step included)."""
        agent = env_state.agent
        parsed = self._expressions.parse(agent.problem)
        features = env_state.to_mathy_observation(
            move_mask=self._mask_of(agent.problem), parser=self._parser
        )
        try:
            custom = self.transition_fn(env_state, parsed.tree, features)
        except AssertionError as error:
            # mathy_core's term helpers assert on input they were not written for
            # (an equation such as "x = 2" in a polynomial task).
            raise ValueError(
                f"{type(self).__name__} cannot judge {quote(agent.problem)}: mathy_core "
                f"rejected it ({error or 'assertion failed'})"
            ) from error
        if custom is not None:
            return custom
        if agent.moves_remaining <= 0:
            return termination(features, self.get_lose_signal(env_state))
        if self.previous_state_penalty:
            if visits > 3:
                return termination(features, self.get_lose_signal(env_state))
            if visits > 1:
                return transition(
                    features,
                    EnvRewards.PREVIOUS_LOCATION * visits,
                    self.reward_discount,
                )
        rule_index = agent.action[0]
        if 0 <= rule_index < len(self._rules):
            rule = self._rules[rule_index]
            if isinstance(rule, tuple(self.get_rewarding_actions(env_state))):
                return transition(features, EnvRewards.HELPFUL_MOVE, self.reward_discount)
            if isinstance(rule, tuple(self.get_penalizing_actions(env_state))):
                return transition(
                    features, EnvRewards.UNHELPFUL_MOVE, self.reward_discount
                )
        return transition(features, EnvRewards.TIMESTEP, self.reward_discount)

    def is_terminal_state(self, env_state: MathyEnvState) -> bool:
        """Whether the state ends the episode.

        Arguments:
            env_state (MathyEnvState): The state to inspect

        Returns:
            (bool): A boolean indicating if the state is terminal or not.
        """
        return is_terminal_transition(self.get_state_transition(env_state))

    def get_win_signal(self, env_state: MathyEnvState) -> float:
        """The win reward: `WIN` plus a bonus for finishing in few moves."""
        total = max(float(env_state.max_moves), 3e-10)
        used = max(total - env_state.agent.moves_remaining, 3e-10)
        bonus = 1.0 / used
        if total > 10 and used < total / 2:
            bonus *= 2
        return min(2.0, EnvRewards.WIN + bonus)

    def get_lose_signal(self, env_state: MathyEnvState) -> float:
        """The reward for losing an episode."""
        return EnvRewards.LOSE

    def finalize_state(self, state: MathyEnvState) -> None:
        """Check that the episode's last expression has the value of its first.

        Both are evaluated exactly (no rounding or integer wrap-around) at
        pseudo-random points derived from the first text; raises `ValueError`
        when they differ.
        """
        history = check_state(state).agent.history
        first_text = history[0].raw if history else state.agent.problem
        last_text = state.agent.problem
        first = self._expressions.parse(first_text).tree
        last = self._expressions.parse(last_text).tree
        if not same_value(first, last, first_text):
            raise ValueError(
                f"expression value changed: {quote(first_text)} is not equal to "
                f"{quote(last_text)}"
            )

    # -- observations -----------------------------------------------------------

    @overload
    def state_to_observation(
        self,
        state: MathyEnvState,
        max_seq_len: Optional[int] = ...,
        obs_type: None = ...,
    ) -> MathyObservation: ...

    @overload
    def state_to_observation(
        self,
        state: MathyEnvState,
        max_seq_len: Optional[int] = ...,
        *,
        obs_type: ObservationType,
    ) -> MathyObservationUnion: ...

    @overload
    def state_to_observation(
        self,
        state: MathyEnvState,
        max_seq_len: Optional[int] = ...,
        obs_type: Optional[Union[ObservationType, str]] = ...,
    ) -> Any: ...

    def state_to_observation(
        self,
        state: MathyEnvState,
        max_seq_len: Optional[int] = None,
        obs_type: Optional[Union[ObservationType, str]] = None,
    ) -> Any:
        """A state's observation with its valid-move mask.

        With no `obs_type`, the plain-list `MathyObservation` (padded to
        `max_seq_len` when given); otherwise `state.to_observation` of that type
        (an `ObservationType` or the name of a registered observation type).
        """
        mask = self.valid_moves_array(state)
        if obs_type is None:
            return state.to_mathy_observation(
                move_mask=mask, parser=self._parser, max_seq_len=max_seq_len
            )
        return state.to_observation(
            move_mask=mask,
            parser=self._parser,
            max_seq_len=self.max_seq_len if max_seq_len is None else max_seq_len,
            obs_type=obs_type,
        )

    def to_hash_key(self, env_state: MathyEnvState) -> str:
        """A key for the state: its problem text."""
        return env_state.agent.problem

    def get_rule_from_timestep(self, time_step: MathyEnvStateStep) -> BaseRule:
        """The rule a history step applied."""
        rule_index = time_step.action[0]
        if not 0 <= rule_index < len(self._rules):
            raise ValueError(
                f"history step {quote(time_step)} has no rule (index {rule_index})"
            )
        return self._rules[rule_index]

    # -- rendering --------------------------------------------------------------

    def render_state(
        self,
        env_state: MathyEnvState,
        action_name: str,
        token_index: int = -1,
        change: Optional[ExpressionChangeRule] = None,
        change_reward: float = 0.0,
        pretty: bool = False,
    ) -> str:
        """One line: moves left, action, node, reward and expression."""
        text = env_state.agent.problem
        if pretty and change is not None and change.result is not None:
            text = change.result.get_root().terminal_text
        token = "---" if token_index < 0 else f"{token_index:03}"
        return (
            f"{env_state.agent.moves_remaining:03} | {action_name[:25]:<25} | "
            f"{token} | {change_reward:+.2f} | {text}"
        )

    def print_state(
        self,
        env_state: MathyEnvState,
        action_name: str,
        token_index: int = -1,
        change: Optional[ExpressionChangeRule] = None,
        change_reward: float = 0.0,
        pretty: bool = False,
    ) -> None:
        print(
            self.render_state(
                env_state, action_name, token_index, change, change_reward, pretty
            )
        )

    def print_history(self, env_state: MathyEnvState, pretty: bool = True) -> None:
        """Render the history of a state, replaying it from its first step.

        Each step's reward is recomputed as `get_state_transition` gives it, in
        time linear in the history's length: revisits are counted as the replay
        goes, and `transition_fn` sees a state holding the previous and the
        current step.

        Arguments:
            env_state (MathyEnvState): The state to render the history of.
        """
        history = check_state(env_state).agent.history
        if not history:
            return
        start = MathyEnvState(
            problem=history[0].raw,
            max_moves=env_state.max_moves,
            num_rules=env_state.num_rules,
            problem_type=env_state.agent.problem_type,
        )
        self.print_state(start, "initial-state", pretty=pretty)
        visits = Counter([history[0].raw])
        moves = start.agent.moves_remaining
        for previous, step in zip(history, history[1:]):
            rule_index, node_index = step.action
            name = (
                self._rules[rule_index].name
                if 0 <= rule_index < len(self._rules)
                else "invalid-action"
            )
            moves -= 1
            visits[step.raw] += 1
            state = start._with_history([previous, step], moves)
            reward = self._score(state, visits[step.raw]).reward
            self.print_state(state, name, node_index, None, reward, pretty)


CORE_RULE_TYPES: FrozenSet[type] = frozenset(type(rule) for rule in MathyEnv.core_rules())
"""Rules whose results on a safe expression (`ParsedExpression.safe`) are known
to be exact and in range; every other rule's results are checked one by one."""


__all__ = ("CORE_RULE_TYPES", "INVALID_ACTION_RESPONSES", "MathyEnv", "sample_valid_action")
