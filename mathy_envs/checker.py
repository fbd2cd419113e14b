"""`check_mathy_env`: does an environment keep the `MathyEnv` contract?

The checker plays an environment through its public API, the way the Gymnasium
adapter, the swarm planner and a training loop do, and raises a
`MathyEnvContractError` (an `AssertionError`) naming the first rule of
`CONTRACT` the environment breaks. It is meant for your own environments (the
built-in ones pass it, and the test suite checks that they do):

```python
from mathy_envs.checker import check_mathy_env

check_mathy_env(MyEnv())  # raises MathyEnvContractError, or returns None
```

What it does, in well under a second per environment (0.05 to 0.25 s for the
built-in ones): for each difficulty, a seeded problem is generated twice (the
same seed must give the same problem) and its start state checked, every move its
mask offers is applied once, and every observation type built; then `episodes`
seeded episodes of masked random play (easy problems) must end within their move
budget, every step keeping the expression's value. The environment's `np_random` is put back afterwards, so
checking an env does not change the problems it generates next.
"""

import math
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any, Iterator, List, Mapping, NoReturn, Optional, Tuple

import numpy as np
from mathy_core import BaseRule, ExpressionChangeRule

from .env import MathyEnv
from .limits import QUOTE_LENGTH, quote, shorten, type_name
from .observations import observation_types
from .state import MathyEnvState
from .time_step import TimeStep, is_terminal_transition
from .types import EnvRewards, MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs

CONTRACT: Mapping[str, str] = MappingProxyType(
    {
        "namespace": "get_env_namespace() returns a non-empty str",
        "rules": (
            "env.rules is a non-empty list of mathy_core rules and action_size is "
            "len(rules) * max_seq_len"
        ),
        "problem": (
            "the env's problems (from its generator=, else problem_fn) are "
            "MathyEnvProblems, for every difficulty"
        ),
        "problem-text": (
            "a problem's text is a str that parses, with at most max_seq_len nodes"
        ),
        "problem-complexity": "a problem's complexity is a positive int",
        "seeded": (
            "get_initial_state(seed=s) draws the same problem every time for the "
            "same s (problems come from env.np_random only)"
        ),
        "start-state": (
            "get_initial_state returns (MathyEnvState, MathyEnvProblem): the "
            "problem's text, a positive move budget, all moves remaining, one mask "
            "row per rule and the env's namespace"
        ),
        "start-not-over": (
            "a problem's start state is not terminal and offers at least one move"
        ),
        "mask": (
            "valid_moves_array(state) is an int8 array of 0s and 1s of shape "
            "(len(rules), node count), equal to get_valid_moves(state)"
        ),
        "step-result": (
            "get_next_state accepts every offered move and returns (MathyEnvState, "
            "TimeStep, ExpressionChangeRule): one move used, the history one step "
            "longer, ending with the move"
        ),
        "step-reward": (
            "a step's reward is a finite float and its discount a float in [0, 1]"
        ),
        "step-value": (
            "every offered move keeps the expression's value (finalize_state passes)"
        ),
        "state-unchanged": "get_next_state leaves the state it is given unchanged",
        "win-terminal": (
            "a transition_fn verdict that wins (reward >= EnvRewards.WIN) is a "
            "terminal step, and get_next_state ends the episode there"
        ),
        "episode-end": (
            "masked random play ends every episode within its move budget, with a "
            "valid move in every state before the end"
        ),
        "observations": (
            "every registered observation type builds from the env's states"
        ),
    }
)
"""Rule name -> what the rule requires, in the order the checker tries them."""

MAX_EPISODES = 100
"""The most episodes `check_mathy_env` plays."""


class MathyEnvContractError(AssertionError):
    """An environment breaks a rule of the `MathyEnv` contract (`CONTRACT`).

    The message names the environment, the rule and what the rule requires, then
    what went wrong; `rule` is the rule's name and `detail` what went wrong."""

    env_name: str
    """The class name of the environment."""
    rule: str
    """The name of the broken rule, a key of `CONTRACT`."""
    detail: str
    """What the environment did."""

    def __init__(self, env_name: str, rule: str, detail: str) -> None:
        self.env_name = env_name
        self.rule = rule
        self.detail = detail
        super().__init__(
            f"{env_name} breaks the MathyEnv contract, rule {rule!r} "
            f"({CONTRACT[rule]}): {detail}"
        )

    def __reduce__(self) -> Tuple[Any, Tuple[str, str, str]]:
        return (type(self), (self.env_name, self.rule, self.detail))


def check_mathy_env(env: MathyEnv, *, seed: int = 0, episodes: int = 3) -> None:
    """Check that `env` keeps the `MathyEnv` contract (`CONTRACT`).

    Arguments:
        env: the environment to check, an instance (not the class)
        seed: the first seed of the problems and of the random play
        episodes: how many seeded episodes of masked random play to play to
            their end (1 to `MAX_EPISODES`)

    Raises:
        MathyEnvContractError: (an `AssertionError`) naming the first broken rule
            and what went wrong; an exception raised by the env's own code while
            a rule is checked is reported as a break of that rule, with the
            exception as its `__cause__`.
        ValueError: when `env` is not a `MathyEnv` instance, or `seed` or
            `episodes` is out of range.

    The env's `np_random` is put back as it was, whatever happens.
    """
    if isinstance(env, type) and issubclass(env, MathyEnv):
        name = shorten(env.__name__, 80)
        raise ValueError(
            f"check_mathy_env takes an environment instance, got the class "
            f"{name}: pass {name}() instead"
        )
    if not isinstance(env, MathyEnv):
        raise ValueError(
            f"check_mathy_env takes a MathyEnv instance, got {type_name(env)} "
            f"{quote(env, 80)}"
        )
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {quote(seed, 40)}")
    if (
        isinstance(episodes, bool)
        or not isinstance(episodes, (int, np.integer))
        or not 1 <= episodes <= MAX_EPISODES
    ):
        raise ValueError(
            f"episodes must be an int from 1 to {MAX_EPISODES}, "
            f"got {quote(episodes, 40)}"
        )
    rng = env.np_random
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"{type(env).__name__}.np_random must be a numpy.random.Generator (set "
            f"by env.seed), got {type_name(rng)}"
        )
    rng_state = rng.bit_generator.state
    try:
        _Checker(env, int(seed)).run(int(episodes))
    finally:
        rng.bit_generator.state = rng_state
        env.np_random = rng


# -- the checks ---------------------------------------------------------------------

_Snapshot = Tuple[Any, ...]


def _snapshot(state: MathyEnvState) -> _Snapshot:
    """Everything a state holds, to compare before and after a step."""
    agent = state.agent
    return (
        state.max_moves,
        state.num_rules,
        agent.moves_remaining,
        agent.problem,
        agent.problem_type,
        agent.reward,
        tuple(agent.history),
    )


class _Checker:
    """One run of `check_mathy_env` on one env."""

    def __init__(self, env: MathyEnv, seed: int) -> None:
        self.env = env
        self.seed = seed
        self.name = type(env).__name__
        self.namespace = ""
        self.num_rules = 0

    # -- reporting ----------------------------------------------------------------

    def fail(self, rule: str, detail: str) -> NoReturn:
        raise MathyEnvContractError(self.name, rule, detail)

    @contextmanager
    def rule(self, rule: str, doing: str) -> Iterator[None]:
        """Report an exception of the env's code, raised while `doing`, as a
        break of `rule`."""
        try:
            yield
        except MathyEnvContractError:
            raise
        except Exception as error:
            raise MathyEnvContractError(
                self.name,
                rule,
                f"{doing} raised {type_name(error)}: "
                f"{shorten(str(error), 2 * QUOTE_LENGTH)}",
            ) from error

    # -- the run ------------------------------------------------------------------

    def run(self, episodes: int) -> None:
        self.check_namespace()
        self.check_rules()
        for index, difficulty in enumerate(MathyEnvDifficulty):
            params = MathyEnvProblemArgs(difficulty)
            state = self.check_start(params, self.seed + index)
            moves = self.check_mask(state)
            if not moves:
                self.fail(
                    "start-not-over", f"{quote(state.agent.problem)} offers no move"
                )
            for action in moves:
                self.check_step(state, action)
            self.check_observations(state)
        easy = MathyEnvProblemArgs(MathyEnvDifficulty.easy)
        for episode in range(episodes):
            self.play(easy, self.seed + 1000 + episode)

    def check_namespace(self) -> None:
        with self.rule("namespace", "get_env_namespace()"):
            namespace = self.env.get_env_namespace()
        if not isinstance(namespace, str) or not namespace:
            self.fail("namespace", f"got {type_name(namespace)} {quote(namespace, 80)}")
        self.namespace = namespace

    def check_rules(self) -> None:
        env = self.env
        with self.rule("rules", "reading env.rules"):
            rules = env.rules
            action_size = env.action_size
        if not isinstance(rules, list) or not rules:
            self.fail("rules", f"env.rules is {type_name(rules)} {quote(rules, 80)}")
        for index, rule in enumerate(rules):
            if not isinstance(rule, BaseRule):
                self.fail(
                    "rules",
                    f"env.rules[{index}] is {type_name(rule)} {quote(rule, 80)}",
                )
        if action_size != len(rules) * env.max_seq_len:
            self.fail(
                "rules",
                f"action_size is {quote(action_size, 40)}, not {len(rules)} rules x "
                f"max_seq_len={env.max_seq_len}",
            )
        self.num_rules = len(rules)

    def check_start(self, params: MathyEnvProblemArgs, seed: int) -> MathyEnvState:
        """Generate a problem with `seed`, check it, then check that
        `get_initial_state(seed=seed)` draws it again and starts it right."""
        env = self.env
        level = params.difficulty.value
        # The generator= argument (an env's own); a class's generator is what
        # its problem_fn calls.
        generated = getattr(env, "__dict__", {}).get("generator") is not None
        source = "the env's generator" if generated else "problem_fn"
        with self.rule("problem", f"{source} ({level})"):
            env.seed(seed)
            problem = env.generate_problem(params)
        if not isinstance(problem, MathyEnvProblem):
            self.fail("problem", f"{source} ({level}) returned {type_name(problem)}")
        text = problem.text
        if not isinstance(text, str):
            self.fail(
                "problem-text", f"the text of a {level} problem is {type_name(text)}"
            )
        with self.rule("problem-text", f"check_fits on the {level} problem's text"):
            env.check_fits(text)
        complexity = problem.complexity
        if (
            isinstance(complexity, bool)
            or not isinstance(complexity, (int, np.integer))
            or complexity < 1
        ):
            self.fail(
                "problem-complexity",
                f"the {level} problem {quote(text)} has complexity "
                f"{quote(complexity, 40)}",
            )
        with self.rule("start-state", f"get_initial_state({level}, seed={seed})"):
            start = env.get_initial_state(params, print_problem=False, seed=seed)
        if not (
            isinstance(start, tuple)
            and len(start) == 2
            and isinstance(start[0], MathyEnvState)
            and isinstance(start[1], MathyEnvProblem)
        ):
            self.fail("start-state", f"get_initial_state returned {quote(start, 120)}")
        state, again = start
        if again != problem:
            self.fail(
                "seeded",
                f"seed={seed} drew {quote(text)} (complexity {complexity}), then "
                f"{quote(again.text)} (complexity {quote(again.complexity, 20)})",
            )
        self.check_start_state(state, problem)
        return state

    def check_start_state(self, state: MathyEnvState, problem: MathyEnvProblem) -> None:
        agent = state.agent
        wrong: List[str] = []
        if agent.problem != problem.text:
            wrong.append(
                f"its text is {quote(agent.problem)}, not {quote(problem.text)}"
            )
        if isinstance(state.max_moves, bool) or not (
            isinstance(state.max_moves, int) and state.max_moves >= 1
        ):
            wrong.append(f"its move budget is {quote(state.max_moves, 40)}")
        elif agent.moves_remaining != state.max_moves:
            wrong.append(
                f"{agent.moves_remaining} of its {state.max_moves} moves remain"
            )
        if state.num_rules != self.num_rules:
            wrong.append(
                f"num_rules is {state.num_rules}, the env has {self.num_rules} rules"
            )
        if agent.problem_type != self.namespace:
            wrong.append(
                f"problem_type is {quote(agent.problem_type, 80)}, the namespace is "
                f"{quote(self.namespace, 80)}"
            )
        if len(agent.history) != 1:
            wrong.append(f"its history holds {len(agent.history)} steps")
        if wrong:
            self.fail(
                "start-state",
                f"the start state of {quote(problem.text)}: " + "; ".join(wrong),
            )
        with self.rule(
            "start-not-over", f"scoring the start state of {quote(problem.text)}"
        ):
            step = self.env.get_state_transition(state)
            over = is_terminal_transition(step)
        if over:
            self.fail(
                "start-not-over",
                f"the start state of {quote(problem.text)} is terminal "
                f"(reward {quote(step.reward, 40)})",
            )

    def check_mask(self, state: MathyEnvState) -> List[Tuple[int, int]]:
        """Check the state's mask and return its offered moves."""
        env = self.env
        text = state.agent.problem
        with self.rule("mask", f"the mask of {quote(text)}"):
            mask = env.valid_moves_array(state)
            listed = env.get_valid_moves(state)
            nodes = env.node_count(text)
        if not isinstance(mask, np.ndarray):
            self.fail(
                "mask", f"valid_moves_array of {quote(text)} is {type_name(mask)}"
            )
        if mask.shape != (self.num_rules, nodes):
            self.fail(
                "mask",
                f"valid_moves_array of {quote(text)} has shape {mask.shape}, not "
                f"({self.num_rules}, {nodes})",
            )
        if mask.dtype != np.int8:
            self.fail(
                "mask",
                f"valid_moves_array of {quote(text)} has dtype {mask.dtype}, not int8",
            )
        if not np.isin(mask, (0, 1)).all():
            self.fail(
                "mask",
                f"valid_moves_array of {quote(text)} holds values other than 0 and 1",
            )
        if listed != mask.tolist():
            self.fail(
                "mask",
                f"get_valid_moves of {quote(text)} differs from valid_moves_array",
            )
        return [(int(rule), int(node)) for rule, node in zip(*np.nonzero(mask))]

    def check_step(
        self, state: MathyEnvState, action: Tuple[int, int]
    ) -> Tuple[MathyEnvState, TimeStep]:
        """Apply an offered move and check the step; returns the next state and
        its time step."""
        env = self.env
        text = state.agent.problem
        where = f"move {action} of {quote(text)}"
        before = _snapshot(state)
        with self.rule("step-result", f"get_next_state for {where}"):
            result = env.get_next_state(state, action)
        if _snapshot(state) != before:
            self.fail(
                "state-unchanged",
                f"get_next_state for {where} changed the state it was given "
                f"(now {quote(state.agent.problem)}, {state.agent.moves_remaining} "
                "moves left)",
            )
        if not (isinstance(result, tuple) and len(result) == 3):
            self.fail(
                "step-result",
                f"get_next_state for {where} returned {quote(result, 120)}",
            )
        out, step, change = result
        if not isinstance(out, MathyEnvState):
            self.fail(
                "step-result",
                f"get_next_state for {where} returned a {type_name(out)} state",
            )
        if not isinstance(step, TimeStep):
            self.fail(
                "step-result",
                f"get_next_state for {where} returned a {type_name(step)} time step",
            )
        if not isinstance(change, ExpressionChangeRule):
            self.fail(
                "step-result",
                f"get_next_state for {where} returned a {type_name(change)} change",
            )
        self.check_time_step(step, where)
        agent = out.agent
        if agent.moves_remaining != state.agent.moves_remaining - 1:
            self.fail(
                "step-result",
                f"{where} left {agent.moves_remaining} moves, not "
                f"{state.agent.moves_remaining - 1}",
            )
        history = list(agent.history)
        if (
            len(history) != len(state.agent.history) + 1
            or history[:-1] != list(state.agent.history)
            or tuple(history[-1].action) != action
            or history[-1].raw != agent.problem
        ):
            self.fail(
                "step-result",
                f"after {where} the history is not the old one plus "
                f"({quote(agent.problem)}, {action})",
            )
        with self.rule("step-value", f"finalize_state after {where}"):
            env.finalize_state(out)
        self.check_verdict(out, step, where)
        return out, step

    def check_time_step(self, step: TimeStep, where: str) -> None:
        reward, discount = step.reward, step.discount
        for name, value in (("reward", reward), ("discount", discount)):
            if isinstance(value, bool) or not isinstance(
                value, (float, int, np.floating, np.integer)
            ):
                self.fail(
                    "step-reward",
                    f"the {name} of {where} is {type_name(value)} {quote(value, 40)}",
                )
        if not math.isfinite(float(reward)):
            self.fail("step-reward", f"the reward of {where} is {reward}")
        if not 0.0 <= float(discount) <= 1.0:
            self.fail("step-reward", f"the discount of {where} is {discount}")
        with self.rule("step-result", f"reading the step type of {where}"):
            is_terminal_transition(step)

    def check_verdict(self, out: MathyEnvState, step: TimeStep, where: str) -> None:
        """A winning `transition_fn` verdict on `out` is terminal, and so is the
        step that reached `out` (unless the expression outgrew max_seq_len,
        which loses first)."""
        env = self.env
        text = out.agent.problem
        with self.rule("win-terminal", f"transition_fn on {quote(text)}"):
            if env.node_count(text) > env.max_seq_len:
                return
            features = env.state_to_observation(out)
            verdict: Optional[TimeStep] = env.transition_fn(
                out, env.parse(text).tree, features
            )
        if verdict is None:
            return
        if not isinstance(verdict, TimeStep):
            self.fail(
                "win-terminal",
                f"transition_fn on {quote(text)} returned {type_name(verdict)}",
            )
        self.check_time_step(verdict, f"transition_fn on {quote(text)}")
        if float(verdict.reward) < EnvRewards.WIN:
            return
        if not is_terminal_transition(verdict):
            self.fail(
                "win-terminal",
                f"transition_fn on {quote(text)} wins (reward {verdict.reward}) with a "
                "non-terminal step",
            )
        if not is_terminal_transition(step):
            self.fail(
                "win-terminal",
                f"transition_fn wins on {quote(text)}, but get_next_state for {where} "
                f"did not end the episode (reward {step.reward})",
            )

    def check_observations(self, state: MathyEnvState) -> None:
        env = self.env
        text = state.agent.problem
        for obs_type in observation_types():
            with self.rule(
                "observations", f"the {obs_type!r} observation of {quote(text)}"
            ):
                env.state_to_observation(state, obs_type=obs_type)

    def play(self, params: MathyEnvProblemArgs, seed: int) -> None:
        """One episode of masked random play, seeded with `seed`."""
        env = self.env
        with self.rule("start-state", f"get_initial_state(seed={seed})"):
            state, problem = env.get_initial_state(
                params, print_problem=False, seed=seed
            )
        self.check_start_state(state, problem)
        rng = np.random.default_rng(seed)
        budget = state.max_moves
        for used in range(budget):
            moves = self.check_mask(state)
            if not moves:
                self.fail(
                    "episode-end",
                    f"after {used} of {budget} moves from {quote(problem.text)}, "
                    f"{quote(state.agent.problem)} offers no valid move and the "
                    "episode is not over",
                )
            state, step = self.check_step(state, moves[int(rng.integers(len(moves)))])
            if is_terminal_transition(step):
                if env.node_count(state.agent.problem) <= env.max_seq_len:
                    self.check_observations(state)
                return
        self.fail(
            "episode-end",
            f"the episode from {quote(problem.text)} used all {budget} moves and did "
            f"not end (last: {quote(state.agent.problem)})",
        )


__all__ = ("CONTRACT", "MAX_EPISODES", "MathyEnvContractError", "check_mathy_env")
