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

from dataclasses import dataclass, field
from typing import List, Optional, Set, Tuple

import numpy as np

from mathy_envs.env import MathyEnv
from mathy_envs.state import MathyEnvState
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import ActionType

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


def valid_actions(env: MathyEnv, state: MathyEnvState) -> List[ActionType]:
    """Every `(rule, node)` with a 1 in `env.get_valid_moves(state)`."""
    mask = np.asarray(env.get_valid_moves(state))
    return [(int(rule), int(node)) for rule, node in zip(*np.nonzero(mask))]


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


__all__ = ("DEFAULT_MAX_TEXTS", "SearchResult", "shortest_win", "valid_actions")
