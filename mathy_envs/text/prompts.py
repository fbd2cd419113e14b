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
from typing import Dict, List, NamedTuple, Optional, Tuple

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


def reply_instruction(mode: str, steps_per_line: int = 1) -> str:
    """What a reply in `mode` must hold (in "rewrite" mode, the expression at
    most `steps_per_line` valid moves give)."""
    if mode == CHOOSE:
        return (
            "Reply with one move: its number, or its rule and node (such as "
            "`Commutative Swap at node 3`), alone on the last line."
        )
    if steps_per_line > 1:
        return (
            f"Reply with the expression that at most {steps_per_line} valid moves "
            "give, alone on the last line."
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
    steps_per_line: int = 1,
) -> str:
    """The prompt of `state`: goal, expression, moves left, the numbered valid
    moves when `list_moves` (`moves`: those of `text_moves`, when already
    computed), and what to reply in `mode` (with `steps_per_line` moves at
    most in "rewrite" mode)."""
    lines = [
        f"Task: {goal_text(env)}",
        f"Expression: {state.agent.problem}",
        f"Moves left: {state.agent.moves_remaining}",
    ]
    if list_moves:
        listed = moves or text_moves(env, state)
        lines.append("Valid moves:")
        lines.extend(f"  {move.line()}" for move in listed)
    lines.append(reply_instruction(mode, steps_per_line))
    return "\n".join(lines)


WORKED_EXAMPLES: Dict[str, Tuple[str, str]] = {
    "Constant Arithmetic": ("2y + (4 + 3) * x", "2y + 7x"),
    "Commutative Swap": ("4x + 2y", "2y + 4x"),
    "Distributive Multiply": ("3 * (x + 2)", "3x + 3 * 2"),
    "Distributive Factoring": ("4x + 3x", "(4 + 3) * x"),
    "Associative Group": ("2y + 4x + 3x", "2y + (4x + 3x)"),
    "Variable Multiplication": ("x^2 * x^3", "x^(2 + 3)"),
    "Restate Subtraction": ("4x - 2y", "4x + -2y"),
}
"""One application of each core rule: `(before, after)` (the prompt of a
problem shows its own move of the rule instead, when it has one)."""


def rule_examples(env: MathyEnv, problem: str) -> List[str]:
    """A worked example of each of the env's rules: `Rule: before -> after`,
    one move of that rule on `problem` when it has one, else the rule's entry
    in `WORKED_EXAMPLES` (a rule of neither is named alone)."""
    own: Dict[str, str] = {}
    try:
        for move in text_moves(env, env.state_from_text(problem), describe=False):
            own.setdefault(move.rule, move.result)
    except ValueError:
        pass  # a problem the env does not take: the table's examples
    lines = []
    for rule in env.rules:
        name = rule.name
        if name in own:
            lines.append(f"  {name}: {problem} -> {own[name]}")
        elif name in WORKED_EXAMPLES:
            before, after = WORKED_EXAMPLES[name]
            lines.append(f"  {name}: {before} -> {after}")
        else:
            lines.append(f"  {name}")
    return lines


def grain_rule(steps_per_line: Optional[int]) -> str:
    """What one line of a derivation may do at the grain `steps_per_line`."""
    if steps_per_line is None:
        return (
            "Each line must be equal to the line before it (you may apply any number "
            "of rewrites on one line, such as combining all like terms at once), and "
            "the last line must be in the goal form."
        )
    if steps_per_line == 1:
        return (
            "Each line must be the result of exactly one rewrite (one rule applied at "
            "one place) of the line before it: do not skip or combine steps."
        )
    return (
        f"Each line must be the result of at most {steps_per_line} rewrites (each one "
        "rule applied at one place) of the line before it."
    )


def derivation_prompt(
    env: MathyEnv, problem: str, max_moves: int, steps_per_line: Optional[int] = 1
) -> str:
    """The single-turn prompt of `problem`: the goal, the rules (with a worked
    example of each when `steps_per_line` is an int), the rule of the grain in
    use, and how to write a derivation that `mathy_envs.text.derivations`
    checks."""
    lines = [f"Task: {goal_text(env)}", f"Problem: {problem}"]
    if steps_per_line is None:
        rules = ", ".join(rule.name for rule in env.rules)
        lines.append(f"The rewrite rules are: {rules}.")
    else:
        lines.append("The rewrite rules, each with one application:")
        lines.extend(rule_examples(env, problem))
    lines.append(grain_rule(steps_per_line))
    budget = (
        ""
        if steps_per_line is None
        else f" The derivation may use at most {max_moves} rewrites in all."
    )
    lines.append(
        "Write the derivation one expression per line, starting from the problem "
        f"and ending at the goal.{budget} You may reason first; then put the "
        "derivation alone between <answer> and </answer>."
    )
    return "\n".join(lines)


__all__ = (
    "CHOOSE",
    "DEFAULT_GOAL",
    "MODES",
    "REWRITE",
    "TextMove",
    "WORKED_EXAMPLES",
    "derivation_prompt",
    "goal_text",
    "grain_rule",
    "prompt_text",
    "reply_instruction",
    "rule_examples",
    "text_moves",
)
