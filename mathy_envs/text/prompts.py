"""Prompts: a state of any `MathyEnv` as text a language model reads.

A prompt holds the task's goal in words (the first paragraph of the env class's
docstring), the current expression, the moves left and, on request, the
numbered list of valid moves: each move's rule, the node it applies at (its
in-order index and the subexpression rooted there) and the expression it gives.
Moves are numbered from 1 in the order of the valid-move mask: rule by rule (in
`env.rules` order), nodes left to right. A valid move that leaves the text as it
is (commuting `x + x`, say) is no step of a derivation, and is not listed.
"""

import inspect
from typing import Dict, List, NamedTuple, Tuple

from ..env import MathyEnv
from ..state import MathyEnvState

CHOOSE = "choose"
"""Reply mode: the reply names a move, by its number or its rule and node."""
REWRITE = "rewrite"
"""Reply mode: the reply writes the expression one move gives."""
MODES = (CHOOSE, REWRITE)

DEFAULT_GOAL = "Rewrite the expression into the task's goal form."
"""The goal of an env class without a docstring."""


class TextMove(NamedTuple):
    """One valid move of a state, as a prompt lists it."""

    number: int
    """Its number in the prompt, from 1."""
    rule_index: int
    node: int
    """The node's in-order index (the mask's column)."""
    rule: str
    """The rule's name."""
    where: str
    """The subexpression rooted at the node."""
    result: str
    """The expression the move gives."""

    @property
    def action(self) -> Tuple[int, int]:
        """`(rule_index, node)`, as `get_next_state` takes it."""
        return (self.rule_index, self.node)

    def line(self) -> str:
        """`3. Commutative Swap at node 3 (4x + 2y) -> 2y + 4x + 3x`."""
        return f"{self.number}. {self.rule} at node {self.node} ({self.where}) -> {self.result}"


def goal_text(env: MathyEnv) -> str:
    """The task's goal in words: the first paragraph of the env class's
    docstring, on one line (`DEFAULT_GOAL` when it has none)."""
    doc = inspect.getdoc(type(env))
    if not doc:
        return DEFAULT_GOAL
    paragraph = doc.strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split())


def text_moves(
    env: MathyEnv, state: MathyEnvState, describe: bool = True
) -> Tuple[TextMove, ...]:
    """The valid moves of `state` that change its text, numbered as prompts
    list them; without `describe`, their `where` is "" (reading replies needs
    only the results: printing each node's subexpression is the prompt's work)."""
    text = state.agent.problem
    results = [(move, out) for move, out in sorted(env.move_results(state).items()) if out != text]
    wheres: Dict[int, str] = {}
    moves: List[TextMove] = []
    for number, ((rule_index, node), result) in enumerate(results, start=1):
        where = wheres.get(node, "")
        if describe and node not in wheres:
            where = wheres[node] = _unwrapped(env.node_text(text, node))
        moves.append(TextMove(number, rule_index, node, env.rules[rule_index].name, where, result))
    return tuple(moves)


def _unwrapped(text: str) -> str:
    """`text` less one pair of parentheses around all of it (mathy_core prints
    a grouped subexpression with its own)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for position, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and position < len(text) - 1:
            return text  # the first parenthesis closes before the end
    return text[1:-1]


def reply_instruction(mode: str) -> str:
    """What a reply in `mode` must hold."""
    if mode == CHOOSE:
        return (
            "Reply with one move: its number, or its rule and node (such as "
            "`Commutative Swap at node 3`), alone on the last line."
        )
    return (
        "Reply with the expression that one valid move gives, alone on the last "
        "line (apply exactly one rewrite; do not skip steps)."
    )


def prompt_text(
    env: MathyEnv,
    state: MathyEnvState,
    mode: str = REWRITE,
    list_moves: bool = True,
    moves: Tuple[TextMove, ...] = (),
) -> str:
    """The prompt of `state`: goal, expression, moves left, the numbered valid
    moves when `list_moves` (`moves`: those of `text_moves`, when already
    computed), and what to reply in `mode`."""
    lines = [
        f"Task: {goal_text(env)}",
        f"Expression: {state.agent.problem}",
        f"Moves left: {state.agent.moves_remaining}",
    ]
    if list_moves:
        listed = moves or text_moves(env, state)
        lines.append("Valid moves:")
        lines.extend(f"  {move.line()}" for move in listed)
    lines.append(reply_instruction(mode))
    return "\n".join(lines)


def derivation_prompt(env: MathyEnv, problem: str, max_moves: int) -> str:
    """The single-turn prompt of `problem`: the goal, the rules, and how to
    write a derivation that `mathy_envs.text.derivations` checks."""
    rules = ", ".join(rule.name for rule in env.rules)
    return "\n".join(
        [
            f"Task: {goal_text(env)}",
            f"Problem: {problem}",
            f"Each step applies exactly one of these rewrite rules at one place in "
            f"the expression: {rules}.",
            "Write the derivation one expression per line: each line is the result "
            "of one rewrite of the line before, starting from the problem and "
            f"ending at the goal, in at most {max_moves} steps. Write nothing else "
            "on those lines.",
        ]
    )


__all__ = (
    "CHOOSE",
    "DEFAULT_GOAL",
    "MODES",
    "REWRITE",
    "TextMove",
    "derivation_prompt",
    "goal_text",
    "prompt_text",
    "reply_instruction",
    "text_moves",
)
