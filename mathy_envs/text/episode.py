"""`TextEpisode`: a multi-turn episode of any `MathyEnv` played by text.

`reset()` gives the first prompt; each `step(reply)` judges the reply
(`mathy_envs.text.replies`), takes the move it names or writes, and gives the
next prompt with the env's own reward and end. A refused reply is an invalid
move: it uses one move of the budget, leaves the expression as it is and is
scored by the env's reward scheme as one (`EnvRewards.INVALID_MOVE`, or the
lose signal when no move is left), whatever the env's
`invalid_action_response`.

    from mathy_envs.envs import PolySimplify
    from mathy_envs.text import TextEpisode

    episode = TextEpisode(PolySimplify(), mode="rewrite")
    prompt = episode.reset(problem="4x + 2y + 3x")
    step = episode.step("2y + 4x + 3x")   # step.reward, step.done, step.verdict
"""

from typing import List, NamedTuple, Optional, Tuple

from .._env.outcome import outcome_of
from ..env import MathyEnv
from ..limits import quote, type_name
from .._support.settings import check_seed
from ..state import MathyEnvState
from ..time_step import is_terminal_transition
from ..types import ActionType, MathyEnvProblemArgs
from .notation import read_math
from .prompts import MODES, REWRITE, TextMove, prompt_text, text_moves
from .reach import check_grain, moves_to
from .replies import ACCEPTED, NOT_ONE_MOVE, Verdict, answer_line, normalize_notation, read_reply

INVALID_ACTION = (-1, -1)
"""The action a refused reply records in the state's history."""


class TextStep(NamedTuple):
    """What one reply did."""

    prompt: str
    """The next prompt (the final state's, when `done`)."""
    reward: float
    """The env's reward for the move (or for the refused reply)."""
    done: bool
    """The episode ended: won, lost, or out of moves."""
    won: bool
    """The episode ended with a win."""
    verdict: Verdict
    """How the reply was read."""


class TextEpisode:
    """One episode at a time of `env`, by text.

    Arguments:
        env: the environment (any `MathyEnv`: its rules, rewards, generator and
            move budget)
        mode: "rewrite" (a reply writes the next expression) or "choose" (it
            names a move)
        list_moves: prompts list the valid moves, numbered, with the expression
            each gives ("choose" needs them to be numbered; without the list a
            reply in "choose" mode can still name a rule and node)
        params: the problem arguments (difficulty) of generated problems
        steps_per_line: in "rewrite" mode, a reply may write what at most this
            many valid moves give (found by `mathy_envs.text.reach`, fewest
            first): the moves are taken one by one, each with its reward and
            its share of the budget, and the step's reward is their sum (an int
            from 1 to `MAX_STEPS_PER_LINE`; an episode takes moves, so None,
            which `score_derivation` takes, is not one)
    """

    def __init__(
        self,
        env: MathyEnv,
        mode: str = REWRITE,
        list_moves: bool = True,
        params: Optional[MathyEnvProblemArgs] = None,
        steps_per_line: int = 1,
    ) -> None:
        if steps_per_line is None:
            raise ValueError(
                "steps_per_line must be an int for a TextEpisode: each reply is "
                "taken as moves (score_derivation takes None)"
            )
        check_grain(steps_per_line)
        if not isinstance(env, MathyEnv):
            raise ValueError(f"env must be a MathyEnv, got {type_name(env)} {quote(env, 60)}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {list(MODES)}, got {quote(mode, 40)}")
        if not isinstance(list_moves, bool):
            raise ValueError(f"list_moves must be a bool, got {quote(list_moves, 40)}")
        if params is not None and not isinstance(params, MathyEnvProblemArgs):
            raise ValueError(f"params must be MathyEnvProblemArgs or None, got {type_name(params)}")
        self.env = env
        self.mode = mode
        self.list_moves = list_moves
        self.params = params if params is not None else MathyEnvProblemArgs()
        self.steps_per_line = steps_per_line
        self.state: Optional[MathyEnvState] = None
        """The current state (None before `reset`)."""
        self.done = False
        self._moves: Tuple[TextMove, ...] = ()

    def reset(
        self,
        seed: Optional[int] = None,
        problem: Optional[str] = None,
        max_moves: Optional[int] = None,
    ) -> str:
        """Start an episode and return its first prompt: `problem` (with
        `max_moves`, the env's budget when None) or a problem generated from
        `env.np_random` (reseeded with `seed` first)."""
        if seed is not None:
            check_seed("seed", seed)
            self.env.seed(seed)
        if problem is not None:
            state = self.env.state_from_text(problem, max_moves)
        else:
            state, _ = self.env.fitting_initial_state(self.params)
        self._enter(state, done=False)
        return self.prompt()

    def prompt(self) -> str:
        """The prompt of the current state."""
        state = self._require_state()
        return prompt_text(
            self.env, state, self.mode, self.list_moves, self._moves, self.steps_per_line
        )

    @property
    def moves(self) -> Tuple[TextMove, ...]:
        """The valid moves of the current state, numbered as the prompt lists them."""
        self._require_state()
        return self._moves

    def step(self, reply: object, mode: Optional[str] = None) -> TextStep:
        """Judge `reply` (in `mode`, the episode's when None), take its move (or
        count it as an invalid move) and return the next prompt, the reward,
        the end and the verdict. `ValueError` before `reset()`, after the
        episode ended, or for a `mode` that is not one of `MODES`."""
        state = self._require_state()
        if self.done:
            raise ValueError("the episode is over: call reset() to start a new one")
        if mode is not None and mode not in MODES:
            raise ValueError(f"mode must be one of {list(MODES)}, got {quote(mode, 40)}")
        verdict = read_reply(self.env, state, reply, mode or self.mode, self._moves)
        env = self.env
        path = [verdict.move] if verdict.move is not None else []
        if verdict.kind == NOT_ONE_MOVE and self.steps_per_line > 1:
            path, verdict = self._moves_to(state, reply, verdict)
        reward = 0.0
        if path:
            after = state
            for action in path:
                after, time_step, _ = env.get_next_state(after, action)
                reward += time_step.reward
                if is_terminal_transition(time_step):
                    break
            oversize = env.node_count(after.agent.problem) > env.max_seq_len
            if len(path) > 1:
                verdict = verdict._replace(expression=after.agent.problem)
        else:
            after = state.get_out_state(
                state.agent.problem, INVALID_ACTION, state.agent.moves_remaining - 1
            )
            features = after.to_mathy_observation(
                move_mask=env.valid_moves_array(after), parser=env.parser
            )
            time_step = env.reward_scheme.score_invalid(env, after, features)
            oversize = False  # the expression it had
        outcome = outcome_of(time_step, after.agent.moves_remaining, bool(path), oversize)
        self._enter(after, outcome.done)
        won = outcome.win and verdict.accepted
        # The moves before the last one earned their own rewards.
        total = outcome.reward + reward - time_step.reward if path else outcome.reward
        return TextStep(self.prompt(), total, outcome.done, won, verdict)

    def _moves_to(
        self, state: MathyEnvState, reply: object, verdict: Verdict
    ) -> Tuple[List[ActionType], Verdict]:
        """The moves (at most `steps_per_line`) that give the expression a reply
        wrote, and the verdict on it."""
        assert isinstance(reply, str)
        text = str.__add__("", reply)  # a plain str, whatever a subclass overrides
        try:
            expression = read_math(
                normalize_notation(answer_line(text)), self.env.supports_equations, self.env.parser
            )
        except ValueError:
            return [], verdict
        path = moves_to(self.env, state, expression, self.steps_per_line)
        if isinstance(path, str):
            reason = f"{quote(expression, 120)}: {path} (steps_per_line={self.steps_per_line})"
            return [], Verdict(NOT_ONE_MOVE, None, None, reason)
        return path, Verdict(
            ACCEPTED, path[-1], expression, f"{len(path)} valid moves give {quote(expression, 120)}"
        )

    def _enter(self, state: MathyEnvState, done: bool) -> None:
        self._moves = text_moves(self.env, state)
        self.state = state
        self.done = done

    def _require_state(self) -> MathyEnvState:
        if self.state is None:
            raise ValueError("call reset() before step()")
        return self.state


__all__ = ("INVALID_ACTION", "TextEpisode", "TextStep")
