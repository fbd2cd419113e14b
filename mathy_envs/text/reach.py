"""Reach: the fewest valid moves from a state to an expression a model wrote.

`moves_to(env, state, expression, k)` searches the env's own moves breadth
first, up to `k` of them (`steps_per_line`), for an expression that matches the
one written (`mathy_envs.text.matching`), and returns the moves, or why there
are none. Expressions already visited by the search are not expanded again,
texts to `avoid` (where an episode would end before the path does, found by the
caller when it takes the moves) are not passed through, and at most
`MAX_SEARCH_TEXTS` expressions are visited: the cost is about one move listing
(`text_moves`) per expression expanded, at most `1 + b + ... + b^(k-1)` of them
for `b` valid moves per expression.
"""

from typing import AbstractSet, List, Optional, Tuple, Union

from ..env import MathyEnv
from ..limits import quote
from ..state import MathyEnvState
from ..types import ActionType
from .matching import first_match, loose_text
from .prompts import text_moves

MAX_STEPS_PER_LINE = 4
"""The largest int `steps_per_line`: the search grows as the number of valid
moves to that power."""
MAX_SEARCH_TEXTS = 20_000
"""The expressions one search visits at most; an expression not found among
them is judged not reachable in that many moves."""


def check_grain(steps_per_line: Optional[int]) -> None:
    """`ValueError` unless `steps_per_line` is None or an int from 1 to
    `MAX_STEPS_PER_LINE`."""
    if steps_per_line is None:
        return
    if (
        isinstance(steps_per_line, bool)
        or not isinstance(steps_per_line, int)
        or not 1 <= steps_per_line <= MAX_STEPS_PER_LINE
    ):
        raise ValueError(
            f"steps_per_line must be None or an int from 1 to {MAX_STEPS_PER_LINE}, "
            f"got {quote(steps_per_line, 40)}"
        )


def moves_to(
    env: MathyEnv,
    state: MathyEnvState,
    expression: str,
    steps: int,
    avoid: AbstractSet[str] = frozenset(),
) -> Union[List[ActionType], str]:
    """The fewest valid moves (at most `steps`) from `state` to an expression
    that matches `expression` (a text the env reads), passing through none of
    the texts `avoid`, or why there are none."""
    try:
        printed = env.printed_text(expression)
    except (ValueError, RecursionError):
        return "not an expression the env reads"
    loose = loose_text(printed)
    frontier: List[Tuple[str, List[ActionType]]] = [(state.agent.problem, [])]
    seen = {state.agent.problem}
    for depth in range(1, steps + 1):
        following: List[Tuple[str, List[ActionType]]] = []
        for text, path in frontier:
            if path:
                try:
                    here = env.state_from_text(text, state.max_moves)
                except ValueError:
                    continue  # past the env's limits: no move goes on from it
            else:
                here = state
            moves = text_moves(env, here, describe=False)
            near = [move for move in moves if loose_text(move.result) == loose]
            found = first_match(env, expression, [move.result for move in near])
            if found >= 0:
                return path + [near[found].action]
            if depth == steps:
                continue
            for move in moves:
                if move.result in seen or move.result in avoid:
                    continue
                if len(seen) >= MAX_SEARCH_TEXTS:
                    return (
                        f"it is not among the {MAX_SEARCH_TEXTS:,} expressions up to "
                        f"{steps} valid moves away"
                    )
                seen.add(move.result)
                following.append((move.result, path + [move.action]))
        frontier = following
    plural = "valid move gives" if steps == 1 else f"{steps} valid moves give"
    return f"it keeps the value, but no {plural} it: write fewer rewrites per line"


__all__ = ("MAX_SEARCH_TEXTS", "MAX_STEPS_PER_LINE", "check_grain", "moves_to")
