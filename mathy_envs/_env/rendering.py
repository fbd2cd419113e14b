"""Text rendering of states and episodes: one line per step."""

import numbers
from collections import Counter
from typing import List, Optional

import numpy as np
from mathy_core import BaseRule, ExpressionChangeRule, ExpressionParser

from .._support.pristine import pristine
from .._engine import canonical_text
from ..limits import quote, type_name
from .._support.settings import check_flag
from ..state import MathyEnvState, check_state
from ..time_step import TimeStep


def render_state(
    env_state: MathyEnvState,
    action_name: str,
    token_index: int = -1,
    change: Optional[ExpressionChangeRule] = None,
    change_reward: float = 0.0,
    pretty: bool = False,
) -> str:
    """`moves left | action | node | reward | expression`, e.g.
    `011 | commutative swap          | 003 | -0.01 | 2x + 4x + 2y`.

    With `pretty` and a `change`, the expression is the changed tree's terminal
    text instead of the state's text."""
    text = check_state(env_state).agent.problem
    if not isinstance(action_name, str):
        raise ValueError(f"action_name must be a str, got {type_name(action_name)}")
    if isinstance(token_index, (bool, np.bool_)) or not isinstance(
        token_index, (int, np.integer)
    ):
        raise ValueError(f"token_index must be an int, got {quote(token_index, 40)}")
    if change is not None and not isinstance(change, ExpressionChangeRule):
        raise ValueError(
            f"change must be a mathy_core ExpressionChangeRule or None, got "
            f"{type_name(change)}"
        )
    if isinstance(change_reward, (bool, np.bool_)) or not isinstance(
        change_reward, numbers.Real
    ):
        raise ValueError(f"change_reward must be a number, got {quote(change_reward, 40)}")
    check_flag("pretty", pretty)
    token_index = int(token_index)
    change_reward = float(change_reward)
    if pretty and change is not None and change.result is not None:
        text = change.result.get_root().terminal_text
    token = "---" if token_index < 0 else f"{token_index:03}"
    return (
        f"{env_state.agent.moves_remaining:03} | {action_name[:25]:<25} | "
        f"{token} | {change_reward:+.2f} | {text}"
    )


@pristine
class Rendering:
    """The rendering side of `MathyEnv`: one text line per state or step."""

    _rules: List[BaseRule]
    _parser: ExpressionParser

    def _score(self, env_state: MathyEnvState, visits: int) -> TimeStep:
        raise NotImplementedError

    def render_state(
        self,
        env_state: MathyEnvState,
        action_name: str,
        token_index: int = -1,
        change: Optional[ExpressionChangeRule] = None,
        change_reward: float = 0.0,
        pretty: bool = False,
    ) -> str:
        """One line: moves left, action, node, reward and expression (see
        `mathy_envs._env.rendering.render_state`)."""
        return render_state(env_state, action_name, token_index, change, change_reward, pretty)

    def print_state(
        self,
        env_state: MathyEnvState,
        action_name: str,
        token_index: int = -1,
        change: Optional[ExpressionChangeRule] = None,
        change_reward: float = 0.0,
        pretty: bool = False,
    ) -> None:
        """Print `render_state`'s line."""
        print(self.render_state(env_state, action_name, token_index, change, change_reward, pretty))

    def print_history(self, env_state: MathyEnvState, pretty: bool = True) -> None:
        """Print one line per step of a state's history, replaying it from its
        first step.

        Each step's reward is recomputed as `get_state_transition` gives it, in
        time linear in the history's length: revisits are counted as the replay
        goes, and `transition_fn` sees a state holding the previous and the
        current step.

        Arguments:
            env_state (MathyEnvState): The state to render the history of.
        """
        history = check_state(env_state).agent.history
        check_flag("pretty", pretty)
        if not history:
            return
        start = MathyEnvState(
            problem=history[0].raw,
            max_moves=env_state.max_moves,
            num_rules=env_state.num_rules,
            problem_type=env_state.agent.problem_type,
        )
        self.print_state(start, "initial-state", pretty=pretty)
        # Each text's visits so far, the first text in its canonical form.
        first = canonical_text(history[0].raw, self._parser)
        visits = Counter([first])
        moves = start.agent.moves_remaining
        rules = self._rules
        for previous, step in zip(history, history[1:]):
            rule_index, node_index = step.action
            name = rules[rule_index].name if 0 <= rule_index < len(rules) else "invalid-action"
            moves -= 1
            text = first if step.raw == history[0].raw else step.raw
            visits[text] += 1
            state = start._with_history([previous, step], moves)
            reward = self._score(state, visits[text]).reward
            self.print_state(state, name, node_index, None, reward, pretty)


__all__ = ("Rendering", "render_state")
