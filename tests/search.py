"""Exhaustive search for the shortest win of a state, through the public env API
only (`get_valid_moves`, `get_next_state`, `is_terminal_transition`).

A test helper, not a test file: `shortest_win` runs a breadth-first search over
distinct expression texts, up to the state's remaining move budget, and reports
the fewest moves that win, that no sequence of moves wins, or that the search
grew past its cap before it could tell.

Why deduplicating on text is sound, even for PolyHaystackLikeTerms (whose win
depends on the last action and the text it acted on, not only on the new text):

- Wins are checked on every transition, before any deduplication, so a win that
  depends on the acted-on text and the action is seen the first time that text
  is expanded, which (breadth first) is at its fewest moves.
- Everything else a transition's verdict depends on is the text, the moves left
  and revisits of earlier texts. A text reached in fewer moves has at least as
  many moves left, and a shortest path never revisits a text (cutting the loop
  out leaves a shorter one that ends in the same transition), so keeping only
  the first (fewest moves) visit of each text loses no win.
- A terminal transition that is not a win (a loss) is never expanded: the
  episode ends there.
"""

import heapq
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set, Tuple

from mathy_envs.env import MathyEnv
from mathy_envs.state import MathyEnvState
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import ActionType

from helpers import valid_actions

DEFAULT_MAX_TEXTS = 20_000
"""Distinct texts a search may visit before it gives up as "too big"."""


@dataclass
class SearchResult:
    """What a search found.

    - `moves`: the fewest moves of a win, or None when it found none
    - `complete`: the whole move budget was searched; `moves is None` together
      with `complete` proves that no sequence of moves wins
    - `texts`: distinct texts visited (the start text included)
    - `actions`: the `(rule, node)` actions of the shortest win found
    """

    moves: Optional[int]
    complete: bool
    texts: int
    actions: List[ActionType] = field(default_factory=list)

    @property
    def won(self) -> bool:
        return self.moves is not None

    @property
    def unwinnable(self) -> bool:
        """Proven: no sequence of moves within the budget wins."""
        return self.complete and self.moves is None

    @property
    def too_big(self) -> bool:
        """The search hit its cap before finding a win or running out of moves."""
        return not self.complete and self.moves is None


def shortest_win(
    env: MathyEnv, state: MathyEnvState, max_texts: int = DEFAULT_MAX_TEXTS
) -> SearchResult:
    """Breadth-first search from `state` for the fewest moves that win within its
    remaining moves (`state.agent.moves_remaining`, which is `state.max_moves`
    for a start state). A win is a terminal transition with a positive reward.

    Gives up (`complete=False`) once more than `max_texts` distinct texts have
    been visited.
    """
    budget = state.agent.moves_remaining
    seen: Set[str] = {state.agent.problem}
    frontier: List[Tuple[MathyEnvState, List[ActionType]]] = [(state, [])]
    for depth in range(budget):
        last_level = depth + 1 == budget
        next_frontier: List[Tuple[MathyEnvState, List[ActionType]]] = []
        for current, path in frontier:
            for action in valid_actions(env, current):
                next_state, time_step, _ = env.get_next_state(current, action)
                if is_terminal_transition(time_step):
                    if time_step.reward > 0:
                        return SearchResult(depth + 1, True, len(seen), path + [action])
                    continue
                text = next_state.agent.problem
                if last_level or text in seen:
                    continue
                seen.add(text)
                if len(seen) > max_texts:
                    return SearchResult(None, False, len(seen))
                next_frontier.append((next_state, path + [action]))
        if not next_frontier:
            break
        frontier = next_frontier
    return SearchResult(None, True, len(seen))


def guided_win(
    env: MathyEnv,
    state: MathyEnvState,
    score: Callable[[str], float],
    max_texts: int = DEFAULT_MAX_TEXTS,
) -> SearchResult:
    """Best-first search from `state` for any win within its remaining moves: the
    texts with the lowest `score` first, then those reached with the most reward,
    then the fewest moves. `moves` is the length of the win found, not
    necessarily the fewest.

    Still exhaustive: a text is expanded again whenever it is reached with more
    moves left than before, so `complete` with no win proves, as in
    `shortest_win`, that no sequence of moves wins. Gives up once more than
    `max_texts` distinct texts have been seen.
    """
    start = state.agent.problem
    most_left: Dict[str, int] = {start: state.agent.moves_remaining}
    order = 0
    Entry = Tuple[float, float, int, int, MathyEnvState, List[ActionType]]
    heap: List[Entry] = [(score(start), 0.0, 0, order, state, [])]
    while heap:
        _, negative_reward, depth, _, current, path = heapq.heappop(heap)
        left = current.agent.moves_remaining
        if left < most_left[current.agent.problem] or left <= 0:
            continue  # reached again with more moves left since it was queued
        for action in valid_actions(env, current):
            next_state, time_step, _ = env.get_next_state(current, action)
            if is_terminal_transition(time_step):
                if time_step.reward > 0:
                    return SearchResult(depth + 1, True, len(most_left), path + [action])
                continue
            text = next_state.agent.problem
            if left - 1 <= most_left.get(text, -1):
                continue
            most_left[text] = left - 1
            if len(most_left) > max_texts:
                return SearchResult(None, False, len(most_left))
            order += 1
            heapq.heappush(
                heap,
                (
                    score(text),
                    negative_reward - time_step.reward,
                    depth + 1,
                    order,
                    next_state,
                    path + [action],
                ),
            )
    return SearchResult(None, True, len(most_left))


__all__ = (
    "DEFAULT_MAX_TEXTS",
    "SearchResult",
    "guided_win",
    "shortest_win",
    "valid_actions",
)
