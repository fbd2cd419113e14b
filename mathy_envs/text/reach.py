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


AUTO = "auto"
"""A grain resolved per env (`grain_for`): None where the env takes free
derivations (`free_derivations`), else `AUTO_STEPS` (a line may make a few
moves, each checked)."""
AUTO_STEPS = 3
"""`AUTO`'s grain for an env that takes no free derivations."""


def grain_for(env: MathyEnv, steps_per_line: Union[int, None, str]) -> Optional[int]:
    """`steps_per_line` for `env`: `AUTO` resolved, the others checked
    (`check_grain`)."""
    if steps_per_line == AUTO:
        return None if getattr(env, "free_derivations", False) else AUTO_STEPS
    if isinstance(steps_per_line, str):
        raise ValueError(
            f"steps_per_line must be None, an int from 1 to {MAX_STEPS_PER_LINE} or "
            f"{AUTO!r}, got {quote(steps_per_line, 40)}"
        )
    check_grain(steps_per_line, env)
    return steps_per_line


def check_grain(steps_per_line: Optional[int], env: Optional[MathyEnv] = None) -> None:
    """`ValueError` unless `steps_per_line` is None or an int from 1 to
    `MAX_STEPS_PER_LINE`, and (given `env`) None only for an env that takes
    free derivations."""
    if steps_per_line is None:
        if env is not None and not getattr(env, "free_derivations", False):
            raise ValueError(
                f"{type(env).__name__} does not take free derivations "
                "(free_derivations is False: its goal is about the problem's own terms, "
                "which free rewrites could replace): use steps_per_line=1 to "
                f"{MAX_STEPS_PER_LINE}"
            )
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


class SearchBudget:
    """The expressions the searches of one derivation may still visit, all
    lines together: a hostile derivation can't make each of its lines search
    to the limit."""

    def __init__(self, texts: int) -> None:
        self.left = texts


def moves_to(
    env: MathyEnv,
    state: MathyEnvState,
    expression: str,
    steps: int,
    avoid: AbstractSet[str] = frozenset(),
    budget: Optional[SearchBudget] = None,
) -> Union[List[ActionType], str]:
    """The fewest valid moves (at most `steps`) from `state` to an expression
    that matches `expression` (a text the env reads), passing through none of
    the texts `avoid` and visiting at most what `budget` has left, or why there
    are none."""
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
                if budget is not None:
                    if budget.left <= 0:
                        return "the derivation's search budget is spent before it is found"
                    budget.left -= 1
                seen.add(move.result)
                following.append((move.result, path + [move.action]))
        frontier = following
    plural = "valid move gives" if steps == 1 else f"{steps} valid moves give"
    return f"it keeps the value, but no {plural} it: write fewer rewrites per line"


__all__ = (
    "AUTO",
    "AUTO_STEPS",
    "MAX_SEARCH_TEXTS",
    "MAX_STEPS_PER_LINE",
    "SearchBudget",
    "check_grain",
    "grain_for",
    "moves_to",
)
