"""Swarm planning: solve a problem on any `MathyEnv` with no trained model.

Fractal Monte Carlo: a swarm of walkers takes random valid actions from the start
state. After each step every walker compares itself with a random companion by its
"virtual reward", the product of its (relativized) episode reward and its
(relativized) distance to the companion; a walker with a lower virtual reward than
its companion clones onto it with probability `(vr_companion - vr) / vr`. Rewarding
branches attract walkers while distance keeps the swarm spread out. Walkers that
lose clone onto live ones; when none is left alive, the swarm restarts from the
start state. The first win found is returned as a list of actions.
"""

import math
import numbers
import time
from dataclasses import dataclass
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from .env import MathyEnv, sample_valid_action
from .limits import MAX_MOVES, quote
from .observations import node_types, node_values
from ._engine import parse
from .state import MathyEnvState
from .time_step import TimeStep, is_terminal_transition
from .types import ActionType

FloatArray = npt.NDArray[np.float64]
MAX_WALKERS = 1_000_000
"""The most walkers a swarm may have (each holds a state; a swarm step steps
every one of them)."""


@dataclass
class SwarmConfig:
    """Knobs of the swarm planner.

    - `n_walkers`: walkers in the swarm
    - `max_iters`: swarm steps (each walker acts once per step) before giving up
    - `seed`: seed of the planner's random generator (same seed, same solution)
    - `balance`: exponent on the reward term of the virtual reward (higher values
      favour reward over exploration)
    - `max_moves`: move budget when solving a problem given as text (the env's
      `max_moves` when None)
    - `max_seconds`: wall-clock budget in seconds (None: no limit), checked between
      walker steps, so the planner can overrun it by about one step. When it runs
      out the planner gives up like after `max_iters`: the solution is unsolved and
      holds the most rewarding path found so far. Where it stops depends on the
      machine's speed; use `max_steps` for a result that does not.
    - `max_steps`: budget of environment transitions, counted over all walkers
      (None: no limit); one swarm step of `n_walkers` live walkers uses
      `n_walkers`. It gives up like `max_seconds` does, and with the same `seed`
      it always stops at the same place.

    Whichever of `max_iters`, `max_seconds` and `max_steps` runs out first ends
    the search. Bad values (a wrong type, out of range, not finite) raise a
    `ValueError` naming the field.
    """

    n_walkers: int = 64
    max_iters: int = 200
    seed: Optional[int] = 0
    balance: float = 1.0
    max_moves: Optional[int] = None
    max_seconds: Optional[float] = None
    max_steps: Optional[int] = None

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Raise a `ValueError` naming the first bad field (`swarm_solve` checks
        again, so fields changed after construction are checked too)."""
        _check_int("n_walkers", self.n_walkers, 1)
        if self.n_walkers > MAX_WALKERS:
            raise ValueError(
                f"n_walkers must be at most MAX_WALKERS={MAX_WALKERS}, got "
                f"{quote(self.n_walkers, 40)}"
            )
        _check_int("max_iters", self.max_iters, 0)
        if self.seed is not None:
            _check_int("seed", self.seed, 0)
        if not (
            _is_real(self.balance)
            and math.isfinite(self.balance)
            and self.balance >= 0
        ):
            raise ValueError(
                f"balance must be a finite number >= 0, got {quote(self.balance)}"
            )
        if self.max_moves is not None:
            _check_int("max_moves", self.max_moves, 1)
            if self.max_moves > MAX_MOVES:
                raise ValueError(
                    f"max_moves must be at most MAX_MOVES={MAX_MOVES}, got "
                    f"{quote(self.max_moves, 40)}"
                )
        if self.max_seconds is not None and not (
            _is_real(self.max_seconds)
            and math.isfinite(self.max_seconds)
            and self.max_seconds > 0
        ):
            raise ValueError(
                "max_seconds must be a finite number of seconds > 0 (or None for "
                f"no limit), got {quote(self.max_seconds)}"
            )
        if self.max_steps is not None:
            _check_int("max_steps", self.max_steps, 1, "or None for no limit")


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _check_int(name: str, value: Any, least: int, note: str = "") -> None:
    is_int = isinstance(value, numbers.Integral) and not isinstance(
        value, (bool, np.bool_)
    )
    if not is_int or value < least:
        extra = f" ({note})" if note else ""
        raise ValueError(
            f"{name} must be an integer >= {least}{extra}, got {quote(value)}"
        )


@dataclass
class SwarmSolution:
    """The planner's result.

    `actions` are `(rule, node)` pairs and `states` the state after each of them;
    replaying `actions` with `env.get_next_state` from the start state reproduces
    `states`. When `solved` is False they are the most rewarding path found.
    """

    solved: bool
    actions: List[ActionType]
    states: List[MathyEnvState]
    reward: float
    iterations: int


class _Step(NamedTuple):
    """A walker's path as a linked list of steps, shared between clones."""

    action: ActionType
    state: MathyEnvState
    parent: Optional["_Step"]


def swarm_solve(
    problem: Union[str, MathyEnvState],
    config: Optional[SwarmConfig] = None,
    env: Optional[MathyEnv] = None,
) -> SwarmSolution:
    """Solve `problem` (a text or a start state) on `env` (`PolySimplify()` when
    None) by swarm planning."""
    config = config if config is not None else SwarmConfig()
    if not isinstance(config, SwarmConfig):
        raise ValueError(f"config must be a SwarmConfig or None, got {type(config).__name__}")
    config.check()  # its fields may have changed since it was built
    if env is not None and not isinstance(env, MathyEnv):
        raise ValueError(f"env must be a MathyEnv or None, got {type(env).__name__}")
    if env is None:
        from .envs import PolySimplify

        env = PolySimplify()
    root = _start_state(problem, env, config)
    return _Swarm(env, root, config).run()


def _start_state(
    problem: Union[str, MathyEnvState], env: MathyEnv, config: SwarmConfig
) -> MathyEnvState:
    if isinstance(problem, MathyEnvState):
        text = problem.agent.problem
    elif isinstance(problem, str):
        text = problem
    else:
        raise ValueError(
            f"problem must be a text or a MathyEnvState, got {quote(problem)}"
        )
    if isinstance(problem, MathyEnvState):
        env.check_fits(text)
        return problem
    return env.state_from_text(text, config.max_moves)


def relativize(values: FloatArray) -> FloatArray:
    """Scale values to positive numbers around 1 that keep their order: the
    standard score `z`, mapped through `1 + log(1 + z)` above the mean and `exp(z)`
    below it."""
    std = values.std()
    if std == 0 or not np.isfinite(std):
        return np.ones_like(values)
    score = (values - values.mean()) / std
    above = 1.0 + np.log1p(np.maximum(score, 0.0))
    return np.asarray(
        np.where(score > 0, above, np.exp(np.minimum(score, 0.0))), dtype=np.float64
    )


class _Swarm:
    def __init__(self, env: MathyEnv, root: MathyEnvState, config: SwarmConfig):
        self.env = env
        self.root = root
        self.config = config
        self.rng = np.random.default_rng(config.seed)
        self.size = config.n_walkers
        self.width = 2 * env.max_seq_len
        self._encodings: Dict[str, FloatArray] = {}
        self._rewrites: Dict[Tuple[str, int, int], str] = {}
        # The budgets of `run`: env transitions taken, and when time runs out.
        self.steps = 0
        self.deadline: Optional[float] = None

    # -- one walker step ----------------------------------------------------------

    def _step(
        self, state: MathyEnvState, action: ActionType
    ) -> Tuple[MathyEnvState, TimeStep]:
        """`env.get_next_state`, skipping the rule application for a
        `(text, action)` pair seen before (rewrites depend on the text alone)."""
        key = (state.agent.problem, action[0], action[1])
        text = self._rewrites.get(key)
        if text is None:
            next_state, time_step, _ = self.env.get_next_state(state, action)
            self._rewrites[key] = next_state.agent.problem
            return next_state, time_step
        next_state = state.get_out_state(text, action, state.agent.moves_remaining - 1)
        return next_state, self.env.get_state_transition(next_state)

    def _encode(self, state: MathyEnvState) -> FloatArray:
        """A fixed-size vector of the expression (pre-order node types and
        values), the space walker distances are measured in."""
        text = state.agent.problem
        vector = self._encodings.get(text)
        if vector is None:
            layout = parse(text, self.env.parser).layout
            count = min(len(layout), self.env.max_seq_len)
            order = layout.preorder[:count]
            vector = np.zeros(self.width, np.float64)
            vector[:count] = node_types(layout, True)[order]
            vector[self.env.max_seq_len : self.env.max_seq_len + count] = node_values(
                layout, True
            )[order]
            self._encodings[text] = vector
        return vector

    # -- the swarm ------------------------------------------------------------------

    def _out_of_budget(self) -> bool:
        """Whether `max_steps` or `max_seconds` ran out."""
        config = self.config
        if config.max_steps is not None and self.steps >= config.max_steps:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def run(self) -> SwarmSolution:
        env, rng, size = self.env, self.rng, self.size
        seconds = self.config.max_seconds
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        self.steps = 0
        start = env.get_state_transition(self.root)
        if is_terminal_transition(start):
            return SwarmSolution(start.reward > 0, [], [], 0.0, 0)
        if not env.valid_moves_array(self.root).any():
            return SwarmSolution(False, [], [], 0.0, 0)
        states: List[MathyEnvState] = [self.root] * size
        paths: List[Optional[_Step]] = [None] * size
        rewards = np.zeros(size)
        dead = np.zeros(size, dtype=bool)
        best: Tuple[float, Optional[_Step]] = (-np.inf, None)

        iteration = 0
        while iteration < self.config.max_iters:
            if self._out_of_budget():
                break
            iteration += 1
            winner: Optional[int] = None
            stopped = False
            for i in range(size):
                if i > 0 and self._out_of_budget():
                    stopped = True  # the budget ran out within this iteration
                    break
                action = sample_valid_action(env.valid_moves_array(states[i]), rng)
                if action is None:
                    dead[i] = True
                    continue
                self.steps += 1
                state, time_step = self._step(states[i], action)
                states[i] = state
                paths[i] = _Step(action, state, paths[i])
                rewards[i] += time_step.reward
                if is_terminal_transition(time_step):
                    dead[i] = True
                    won = time_step.reward > 0
                    if won and (winner is None or rewards[i] > rewards[winner]):
                        winner = i
                if rewards[i] > best[0]:
                    best = (float(rewards[i]), paths[i])
            if winner is not None:
                return _solution(True, paths[winner], float(rewards[winner]), iteration)
            if stopped:
                break
            if dead.all():
                states = [self.root] * size
                paths = [None] * size
                rewards[:] = 0.0
                dead[:] = False
                continue
            self._clone(states, paths, rewards, dead)
        best_reward = best[0] if best[1] is not None else 0.0
        return _solution(False, best[1], best_reward, iteration)

    def _clone(
        self,
        states: List[MathyEnvState],
        paths: List[Optional[_Step]],
        rewards: FloatArray,
        dead: npt.NDArray[np.bool_],
    ) -> None:
        """Each walker compares its virtual reward with a random companion's and
        clones onto it with probability `(vr_companion - vr) / vr`; dead walkers
        always clone onto a live companion."""
        rng, size = self.rng, self.size
        alive = np.flatnonzero(~dead)
        companions = rng.integers(size, size=size)
        # Dead walkers (and anyone paired with a dead walker) look at live ones.
        companions = np.where(
            dead[companions], alive[rng.integers(alive.size, size=size)], companions
        )
        encodings = np.stack([self._encode(state) for state in states])
        distance = np.linalg.norm(encodings - encodings[companions], axis=1)
        virtual = relativize(rewards) ** self.config.balance * relativize(distance)
        virtual = np.where(dead, 0.0, virtual)
        with np.errstate(divide="ignore", invalid="ignore"):
            probability = np.where(
                virtual > 0, (virtual[companions] - virtual) / virtual, 1.0
            )
        clone = (probability > rng.random(size)) & ~dead[companions]
        for i in np.flatnonzero(clone):
            j = int(companions[i])
            states[i] = states[j]
            paths[i] = paths[j]
            rewards[i] = rewards[j]
            dead[i] = dead[j]


def _solution(
    solved: bool, last: Optional[_Step], reward: float, iterations: int
) -> SwarmSolution:
    steps: List[_Step] = []
    while last is not None:
        steps.append(last)
        last = last.parent
    steps.reverse()
    return SwarmSolution(
        solved=solved,
        actions=[step.action for step in steps],
        states=[step.state for step in steps],
        reward=reward,
        iterations=iterations,
    )


__all__ = ("MAX_WALKERS", "SwarmConfig", "SwarmSolution", "relativize", "swarm_solve")
