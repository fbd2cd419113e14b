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
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from mathy_core import BaseRule, ExpressionParser, MathExpression

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


def copy_tree(node: MathExpression, parent: Optional[MathExpression] = None) -> MathExpression:
    """A copy of the tree under `node` that shares no node with it (mathy_core's
    `clone()` does the same, several times slower)."""
    copy: MathExpression = object.__new__(type(node))
    attributes = dict(node.__dict__, parent=parent)
    if isinstance(attributes.get("classes"), list):
        attributes["classes"] = list(attributes["classes"])
    for side in ("left", "right"):
        child = attributes.get(side)
        if child is not None:
            attributes[side] = copy_tree(child, copy)
    if attributes.get("child") is not None:  # a unary node's child is one of its sides
        attributes["child"] = attributes["left"] if node.child is node.left else attributes["right"]  # type: ignore[attr-defined]
    attributes.pop("cloned_node", None)
    attributes.pop("thread", None)
    copy.__dict__ = attributes
    return copy


def successors(
    rules: Sequence[BaseRule], text: str, actions: Sequence[ActionType]
) -> List[MathExpression]:
    """The expression each action turns `text` into, by mathy_core alone (the
    rule applied at the in-order node of a copy of the parsed text): what
    `get_next_state` gives for a valid action, without the env's scoring and
    masks."""
    tree = ExpressionParser().parse(text)
    results = []
    for rule_index, node_index in actions:
        copy = copy_tree(tree)
        node = copy.to_list("inorder")[node_index]
        change = rules[rule_index].apply_to(node)
        result = change.result if change.result is not None else node
        results.append(result.get_root())
    return results


def guided_win(
    env: MathyEnv,
    state: MathyEnvState,
    score: Callable[[MathExpression], float],
    max_texts: int = DEFAULT_MAX_TEXTS,
) -> SearchResult:
    """Best-first search from `state` for any win within its remaining moves: the
    moves into the texts with the lowest `score` first, then those from the
    paths with the most reward, then those of a rule the env rewards
    (`get_rewarding_actions`), then the fewest moves. `moves` is the length of
    the win found, not necessarily the fewest.

    A move is only scored (`score` of the expression it makes, `successors`) when its state is
    expanded, and taken with `get_next_state` when it comes first: most moves
    of a state are never taken, and taking one (the env scores the new state and
    builds its mask) costs much more than its text. A move into a text already
    reached with as many moves left comes after every other one, as it can only
    still win by its own transition (PolyHaystackLikeTerms' win depends on the
    action).

    Still exhaustive: a text is expanded again whenever it is reached with more
    moves left than before, and every move of an expanded state is taken unless
    a win comes first, so `complete` with no win proves, as in `shortest_win`,
    that no sequence of moves wins. `texts` counts the distinct texts reached
    by a move that did not end the episode (and the start). Gives up once more
    than `max_texts` of them have been reached.
    """
    start = state.agent.problem
    most_left: Dict[str, int] = {start: state.agent.moves_remaining}
    scores: Dict[str, float] = {}
    rules = env.rules
    order = 0
    # (seen before, score, -reward so far, unhelpful rule, depth, order, from
    # state, action, its text, path)
    Entry = Tuple[
        bool, float, float, bool, int, int, MathyEnvState, ActionType, str, List[ActionType]
    ]
    heap: List[Entry] = []

    def expand(current: MathyEnvState, negative_reward: float, path: List[ActionType]) -> None:
        nonlocal order
        left = current.agent.moves_remaining
        if left <= 0:
            return
        helpful = tuple(env.get_rewarding_actions(current))
        actions = valid_actions(env, current)
        for action, tree in zip(actions, successors(rules, current.agent.problem, actions)):
            text = str(tree)
            if text not in scores:
                scores[text] = score(tree)
            seen = left - 1 <= most_left.get(text, -1)
            unhelpful = not isinstance(rules[action[0]], helpful)
            order += 1
            heapq.heappush(
                heap,
                (
                    seen,
                    scores[text],
                    negative_reward,
                    unhelpful,
                    len(path) + 1,
                    order,
                    current,
                    action,
                    text,
                    path,
                ),
            )

    expand(state, 0.0, [])
    while heap:
        entry = heapq.heappop(heap)
        seen, _, negative_reward, _, depth, _, current, action, text, path = entry
        left = current.agent.moves_remaining
        if left < most_left[current.agent.problem]:
            continue  # its state was reached again with more moves left and expanded
        if not seen and left - 1 <= most_left.get(text, -1):
            order += 1  # reached with as many moves left since it was queued
            heapq.heappush(heap, (True, *entry[1:5], order, *entry[6:]))
            continue
        next_state, time_step, _ = env.get_next_state(current, action)
        assert next_state.agent.problem == text, (current.agent.problem, action, text)
        if is_terminal_transition(time_step):
            if time_step.reward > 0:
                return SearchResult(depth, True, len(most_left), path + [action])
            continue
        if left - 1 <= most_left.get(text, -1):
            continue
        most_left[text] = left - 1
        if len(most_left) > max_texts:
            return SearchResult(None, False, len(most_left))
        expand(next_state, negative_reward - time_step.reward, path + [action])
    return SearchResult(None, True, len(most_left))


__all__ = (
    "DEFAULT_MAX_TEXTS",
    "SearchResult",
    "guided_win",
    "shortest_win",
    "copy_tree",
    "successors",
    "valid_actions",
)
