"""Masked random play: whole episodes of uniformly random valid actions.

`random_episode` is the random agent of `mathy-envs run --agent random` and of the
baselines; it is also a quick way to reach varied states of an env, or to see how
hard its problems are for an agent that knows nothing.
"""

from typing import List, NamedTuple, Optional, Tuple

import numpy as np

from ._env.actions import sample_valid_action
from .env import MathyEnv
from .limits import quote
from .state import MathyEnvState, check_state
from .time_step import TimeStep, is_terminal_transition
from .types import ActionType


class Transition(NamedTuple):
    """One step of a recorded episode."""

    state: MathyEnvState
    """The state the action was taken in."""
    action: ActionType
    """The `(rule, node)` action taken."""
    time_step: TimeStep
    """The time step `get_next_state` returned for it."""


class RandomEpisode(NamedTuple):
    """What `random_episode` played."""

    state: MathyEnvState
    """The last state reached (the start state when no step was taken)."""
    won: bool
    """The episode ended with a win (a terminal time step with a positive
    reward)."""
    reward: float
    """The sum of the rewards of every step (undiscounted)."""
    steps: int
    """The number of actions taken."""
    done: bool
    """The episode ended (won or lost), by a step or already at the start state.
    False when play stopped before: after `max_steps` actions, or at a state with
    no valid action."""
    transitions: Optional[Tuple[Transition, ...]]
    """Every step in order, with `record=True`; None otherwise."""


def random_episode(
    env: MathyEnv,
    state: MathyEnvState,
    rng: np.random.Generator,
    max_steps: Optional[int] = None,
    record: bool = False,
    mask_revisits: bool = False,
) -> RandomEpisode:
    """Play uniformly random valid actions from `state` until the episode ends.

    Each step draws one action from `rng`, uniformly among the 1s of
    `env.valid_moves_array(state)` (`mathy_envs._env.actions.sample_valid_action`), and
    takes it with `env.get_next_state`. Play stops at the first terminal
    transition, at a state with no valid action, or after `max_steps` actions.
    A `state` that already ends the episode (`env.get_state_transition(state)`
    is terminal, e.g. a problem already in its goal form) is returned as it is,
    `done`, and won when that time step's reward is positive.
    The same env, state and seeded generator give the same episode. Passing
    `env.np_random` draws the actions from the env's generator, as
    `env.random_action` does.

    Arguments:
        env: the environment whose rules, masks and rewards to play with
        state: the state to start from (usually from `env.get_initial_state`);
            it is not changed
        rng: the `numpy.random.Generator` to draw the actions from (one draw
            per step)
        max_steps: stop after this many actions, even if the episode has not
            ended (None: no limit besides the episode's own move budget)
        record: also return every step as a `Transition` (the state it was
            taken in, the action and its time step)
        mask_revisits: draw among the moves `MathyGymEnv` offers by default
            (`env.least_visited_moves_array(state)`: no move back to a more
            visited expression) instead of every valid move

    Returns:
        The last state, whether the episode was won, the total reward, the
        number of steps, whether the episode ended, and the transitions when
        `record` is true, as a `RandomEpisode`.

    Raises:
        ValueError: `env` is not a `MathyEnv`, `state` not a `MathyEnvState`,
            `rng` not a `numpy.random.Generator`, `max_steps` neither None nor a
            non-negative int, or `record` or `mask_revisits` not a bool
    """
    if not isinstance(env, MathyEnv):
        raise ValueError(f"env must be a MathyEnv, got {quote(env)}")
    check_state(state)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), "
            f"got {quote(rng)}"
        )
    if max_steps is not None and (
        isinstance(max_steps, bool)
        or not isinstance(max_steps, (int, np.integer))
        or max_steps < 0
    ):
        raise ValueError(
            f"max_steps must be None or a non-negative int, got {quote(max_steps)}"
        )
    for name, flag in (("record", record), ("mask_revisits", mask_revisits)):
        if not isinstance(flag, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {quote(flag)}")
    moves_of = env.least_visited_moves_array if mask_revisits else env.valid_moves_array
    limit = -1 if max_steps is None else int(max_steps)
    recorded: Optional[List[Transition]] = [] if record else None
    start = env.get_state_transition(state)
    if is_terminal_transition(start):  # already won or lost: nothing to play
        return RandomEpisode(
            state, bool(start.reward > 0), 0.0, 0, True, None if recorded is None else ()
        )
    total, steps = 0.0, 0
    while steps != limit:
        action = sample_valid_action(moves_of(state), rng)
        if action is None:
            break
        next_state, time_step, _ = env.get_next_state(state, action)
        if recorded is not None:
            recorded.append(Transition(state, action, time_step))
        state = next_state
        total += time_step.reward
        steps += 1
        if is_terminal_transition(time_step):
            return RandomEpisode(
                state,
                bool(time_step.reward > 0),
                total,
                steps,
                True,
                None if recorded is None else tuple(recorded),
            )
    return RandomEpisode(
        state, False, total, steps, False, None if recorded is None else tuple(recorded)
    )


__all__ = ("RandomEpisode", "Transition", "random_episode")
