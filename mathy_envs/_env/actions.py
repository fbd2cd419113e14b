"""Actions: decoding what an agent passes to `step`, and sampling valid actions."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Type, Union

import numpy as np
import numpy.typing as npt
from mathy_core import BaseRule, ExpressionParser, MathExpression

from .._support.pristine import pristine
from ..limits import MAX_RULES, quote, shorten, type_name
from .._engine import (
    ExpressionCache,
    MaskArray,
    MoveCache,
    MoveResults,
    ParsedExpression,
    check_tree,
    default_parser,
    expression_cache,
    least_visited,
    node_at_index,
    private_entry,
    same_value_of,
    tree_mask,
    visit_counts,
)
from ..observations import mask_lists
from ..state import MathyEnvState, check_state
from ..types import ActionType

ActionInput = Union[int, np.integer[Any], Tuple[int, int], Sequence[int]]
"""A flat action index, or a `(rule, node)` pair."""


def decode_action(action: ActionInput, max_seq_len: int) -> ActionType:
    """An int indexes the flattened `(rule, node)` space as
    `(a // max_seq_len, a % max_seq_len)`; a pair of ints passes through. Anything
    else (bools, floats, other shapes) raises `ValueError`. Ranges are not checked
    here: an out-of-range action is an invalid action."""
    if type(action) is tuple and len(action) == 2:
        # The commonest action, a pair of plain ints (a bool is not one), as
        # the checks below pass it.
        rule, node = action
        if type(rule) is int and type(node) is int:
            return rule, node
    if isinstance(action, (bool, np.bool_)):
        raise ValueError(
            f"an action must be an int or a (rule, node) pair, got {quote(action)}"
        )
    if isinstance(action, (int, np.integer)):
        value = int(action)
        return value // max_seq_len, value % max_seq_len
    if isinstance(action, np.ndarray) and action.ndim == 0:
        return decode_action(action.item(), max_seq_len)
    if isinstance(action, (tuple, list, np.ndarray)) and len(action) == 2:
        rule, node = action[0], action[1]
        if (
            isinstance(rule, (int, np.integer))
            and isinstance(node, (int, np.integer))
            and not isinstance(rule, (bool, np.bool_))
            and not isinstance(node, (bool, np.bool_))
        ):
            return int(rule), int(node)
    raise ValueError(
        f"an action must be an int or a (rule, node) pair of ints, got {quote(action)}"
    )


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


NO_VALID_ACTION = 0
"""What `sample_valid_actions` gives a row with no valid action: action 0, a
member of every `Discrete(action_size)` space."""


def sample_valid_actions(masks: Any, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """One uniformly random valid action per row of a batch of flat masks, the
    batch a vector env's `infos["action_mask"]` (or the `"action_mask"` of its
    observations) holds.

    Arguments:
        masks: a 2-D array, one row per env and one column per action, of 0/1
            values or probabilities (bools, ints or floats in [0, 1]); an
            action is valid where its entry is nonzero, and every valid action
            of a row is equally likely, whatever its probability
        rng: the `numpy.random.Generator` to draw from (one `random(rows)` call
            per batch, so a seeded generator gives the same actions again)

    Returns:
        An int64 array with one flat action per row. A row with no valid action
        gets `NO_VALID_ACTION` (0): such a row comes only with the step that
        ended an episode (its final expression has no valid move, or grew past
        `max_seq_len`), and under Gymnasium's default next-step autoreset the
        vector env's next `step` resets that env and ignores its action.

    Raises:
        ValueError: `masks` is not a 2-D numeric array with at least one column,
            holds values outside [0, 1] (or NaN), or `rng` is not a Generator
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    try:
        batch = np.asarray(masks)
    except (TypeError, ValueError) as error:
        raise ValueError(f"masks must be a 2-D array, got {quote(masks)}") from error
    if batch.dtype.kind not in "biuf":
        raise ValueError(
            f"masks must hold bools, ints or floats, got dtype {batch.dtype} "
            f"{quote(masks)}"
        )
    if batch.ndim != 2 or batch.shape[1] == 0:
        hint = " (for one mask, pass mask[None])" if batch.ndim == 1 else ""
        raise ValueError(
            "masks must be a 2-D array (envs, actions) with at least one action, "
            f"got shape {batch.shape}{hint}"
        )
    if batch.dtype.kind == "f" and np.isnan(batch).any():
        raise ValueError(f"masks must not hold NaN, got {quote(masks)}")
    if batch.size and (batch.min() < 0 or batch.max() > 1):
        raise ValueError(
            f"masks must hold 0/1 values or probabilities in [0, 1], got values from "
            f"{batch.min()} to {batch.max()}"
        )
    rows, width = batch.shape
    # The valid actions of all rows, row after row, as flat indexes into the
    # batch; a row's valid actions start where its first column would be.
    chosen = np.flatnonzero(batch != 0)  # (of bools: much faster than of ints)
    starts = np.searchsorted(chosen, np.arange(rows + 1) * width)
    counts = np.diff(starts)
    # The k-th valid action of each row, k uniform in [0, count).
    picks = np.minimum(
        (rng.random(rows) * counts).astype(np.int64), np.maximum(counts - 1, 0)
    )
    result: npt.NDArray[np.int64] = np.full(rows, NO_VALID_ACTION, np.int64)
    has = counts > 0
    result[has] = chosen[starts[:-1][has] + picks[has]] % width
    return result


@pristine
class ActionSpace:
    """The action side of `MathyEnv`: which `(rule, node)` actions are valid in a
    state, decoding an agent's action, and sampling valid ones.

    Valid-move masks and move results are computed once per distinct expression
    text and cached per env (`_moves`, the engine's `MoveCache`).
    """

    supports_equations: bool = True
    """Whether texts with `=` are accepted (the built-in envs' goals use term
    helpers that only read expressions, so they refuse equations)."""
    max_seq_len: int
    np_random: np.random.Generator
    _rules: List[BaseRule]
    _parser: ExpressionParser
    _moves: MoveCache

    @property
    def rules(self) -> List[BaseRule]:
        return self._rules

    @rules.setter
    def rules(self, rules: List[BaseRule]) -> None:
        if not isinstance(rules, (list, tuple)) or not all(
            isinstance(rule, BaseRule) for rule in rules
        ):
            raise ValueError(f"rules must be a list of mathy_core rules, got {quote(rules)}")
        if len(rules) > MAX_RULES:
            raise ValueError(
                f"rules holds {len(rules)} rules, more than MAX_RULES={MAX_RULES}"
            )
        self._rules = list(rules)
        self._moves.clear()

    @property
    def parser(self) -> ExpressionParser:
        return self._parser

    @parser.setter
    def parser(self, parser: ExpressionParser) -> None:
        if not isinstance(parser, ExpressionParser):
            raise ValueError(
                f"parser must be a mathy_core ExpressionParser, got {type_name(parser)}"
            )
        self._parser = parser
        self._moves.clear()

    def __getstate__(self) -> Dict[str, Any]:
        # Caches are rebuilt on demand; the shared default parser stays shared.
        state = self.__dict__.copy()
        if state["_parser"] is default_parser():
            state["_parser"] = None
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        parser = state.pop("_parser")
        # Pickles of envs made before the engine's MoveCache held the caches.
        if "_moves" not in state:
            state.pop("_masks", None)
            state.pop("_results", None)
            state["_moves"] = MoveCache()
        self.__dict__.update(state)
        self.parser = parser if parser is not None else default_parser()

    @property
    def _expressions(self) -> ExpressionCache:
        """The calling thread's cache of parsed texts for this env's parser."""
        return expression_cache(self._parser)

    @property
    def action_size(self) -> int:
        """Return the number of available actions"""
        return len(self._rules) * self.max_seq_len

    def parse(self, text: str) -> ParsedExpression:
        """The parse of `text` (admitted against the supported range), over a
        private copy of the cached tree: yours to keep and change."""
        return private_entry(self._expressions.parse(text))

    def printed_text(self, text: str) -> str:
        """`text` as mathy_core prints its parse (its spacing, no redundant
        parentheses): two texts of the same tree print the same. `ValueError`
        when it does not parse or is out of the supported range."""
        return self._expressions.parse(text).printed()

    def has_same_value(self, text: str, other: str) -> bool:
        """Whether `other` has the exact value of `text` (both parsed by the env),
        tested as a move's result is tested (`mathy_envs._engine.values`). `ValueError`
        when either does not parse or is out of the supported range."""
        return same_value_of(self._expressions.parse(text), self._expressions.parse(other))

    def node_text(self, text: str, index: int) -> str:
        """The subexpression rooted at the `index`-th node (in-order, a mask
        column) of `text`, as mathy_core prints it. `ValueError` when `text`
        does not parse or has no such node."""
        nodes = self._expressions.parse(text).nodes
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not (
            0 <= index < len(nodes)
        ):
            raise ValueError(f"node index {quote(index, 40)} is out of range [0, {len(nodes)})")
        return str(nodes[index])

    def node_count(self, text: str) -> int:
        """The number of nodes of the parsed `text`."""
        return len(self._expressions.parse(text))

    def valid_moves_array(self, env_state: MathyEnvState) -> MaskArray:
        """`get_valid_moves` as a read-only `(num_rules, num_nodes)` int8 array,
        computed once per distinct expression text."""
        return self._mask_of(check_state(env_state).agent.problem)

    def flat_valid_moves(self, env_state: MathyEnvState) -> npt.NDArray[np.int8]:
        """`valid_moves_array` as one flat int8 vector of `action_size` entries:
        entry `rule * max_seq_len + node`, zero past the expression's nodes (a
        new array, yours to change)."""
        return self.flat_moves(self.valid_moves_array(env_state))

    def move_results(self, env_state: MathyEnvState) -> Dict[ActionType, str]:
        """The text each valid move of the state's expression gives, by
        `(rule_index, node_index)` (a new dict): what `get_next_state` would make
        the expression. Computed once per distinct expression text."""
        text = check_state(env_state).agent.problem
        return {(rule, node): out for rule, node, out in self._results_of(text)}

    def least_visited_moves_array(self, env_state: MathyEnvState) -> MaskArray:
        """`valid_moves_array` less the moves whose result the episode has visited
        more often than another valid move's result (a read-only array): while
        any valid move leads to an expression not in the state's history, only
        such moves; otherwise those whose expression was visited least often.
        Every move of a solution that never returns to an expression (a
        shortest solution, for one) is offered."""
        state = check_state(env_state)
        text = state.agent.problem
        visits = visit_counts(state.agent.history, self._parser)
        mask = self.valid_moves_array(state)
        own = self._mask_of(text)
        # The env's own mask (not a subclass's): the results are its moves.
        results = self._moves.results(text, self._rules, self._parser, own)
        return least_visited(mask, results, visits, mask is own)

    def flat_moves(self, moves: MaskArray) -> npt.NDArray[np.int8]:
        """A `(rules, nodes)` move mask as one flat int8 vector of `action_size`
        entries: entry `rule * max_seq_len + node`, zero past the expression's
        nodes (a new array, yours to change)."""
        flat = np.zeros((moves.shape[0], self.max_seq_len), np.int8)
        flat[:, : moves.shape[1]] = moves
        return flat.reshape(-1)

    def _results_of(self, text: str) -> MoveResults:
        """`(rule, node, result text)` of each valid move of `text`, in mask
        order (`MoveCache.results`)."""
        return self._moves.results(text, self._rules, self._parser, self._mask_of(text))

    def _mask_of(self, text: str) -> MaskArray:
        """The cached read-only mask of `text` (`MoveCache.mask`)."""
        return self._moves.mask(
            text, self._rules, self._parser, self.supports_equations, type(self)
        )

    def get_valid_moves(self, env_state: MathyEnvState) -> List[List[int]]:
        """A `num_rules x num_nodes` 0/1 matrix: row `r`, column `i` is 1 when rule
        `r` can be applied to the `i`-th node from the left."""
        return mask_lists(self.valid_moves_array(env_state))

    def get_actions_for_node(
        self,
        expression: MathExpression,
        rule_list: Optional[List[Type[BaseRule]]] = None,
    ) -> List[List[int]]:
        """The valid-move matrix of an expression tree (`num_rules x num_nodes`):
        column `i` is the `i`-th node of `expression` from the left. With
        `rule_list` (rule classes), rows of rules of other types are all zero.

        The tree `expression` belongs to may be built by hand: `ValueError` says
        what is wrong when it is not well formed (see `mathy_envs._engine.tree_checks.check_tree`:
        missing operands, children that are not nodes, constants that are not
        numbers in range, cycles...) or is outside the supported range. A failure
        of a user's subclass (of a node class, or of the int, float or str a
        constant or variable holds) while the mask is computed is a `ValueError`
        too."""
        checked = check_tree(expression)
        if rule_list is not None:
            rule_list = _check_rule_list(rule_list)
        try:
            return self._actions_of_tree(checked.root, expression, rule_list)
        except RecursionError:
            # mathy_core prints trees recursively: a tree within MAX_DEPTH may
            # still be too deep for what is left of the caller's stack.
            raise ValueError(
                "expression is too deep for mathy_core to print from here "
                "(it recurses once per level)"
            ) from None
        except ValueError:
            raise
        except Exception as error:
            if not checked.foreign:
                raise
            # The code of a user's node class.
            raise ValueError(
                f"the actions of an expression holding nodes or values of classes "
                f"other than mathy_core's (and int, float, str) can't be computed: "
                f"{type_name(error)}: "
                f"{shorten(_message(error))}"
            ) from error

    def _actions_of_tree(
        self,
        root: MathExpression,
        expression: MathExpression,
        rule_list: Optional[List[Type[BaseRule]]],
    ) -> List[List[int]]:
        """`get_actions_for_node` of a checked tree (`tree_mask`)."""
        mask = tree_mask(
            root,
            expression,
            self._rules,
            rule_list,
            self._parser,
            self.supports_equations,
            type(self),
        )
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
        return decode_action(action, self.max_seq_len)

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


def _check_rule_list(rule_list: Any) -> List[Type[BaseRule]]:
    """`rule_list` as a list of rule classes, or a `ValueError`."""
    if not isinstance(rule_list, (list, tuple)):
        raise ValueError(
            f"rule_list must be a list of rule classes (or None), got {quote(rule_list)}"
        )
    rules = list(rule_list)
    for rule in rules:
        if not (isinstance(rule, type) and issubclass(rule, BaseRule)):
            hint = " (pass the class, not an instance)" if isinstance(rule, BaseRule) else ""
            raise ValueError(
                f"rule_list must be a list of rule classes, but it holds "
                f"{quote(rule, 80)}{hint}"
            )
    return rules


def _message(error: BaseException) -> str:
    """`str(error)`, or the error's type name when that fails."""
    try:
        return str(error)
    except Exception:
        return type_name(error)


__all__ = (
    "ActionInput",
    "ActionSpace",
    "NO_VALID_ACTION",
    "decode_action",
    "sample_valid_action",
    "sample_valid_actions",
)
