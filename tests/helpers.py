"""Helpers shared by the test modules, imported by name (`from helpers import
is_last`).

Fixtures are in `conftest.py`; independent oracles of values and terms are in
`oracles.py`; the exhaustive win search is in `search.py`.
"""

import importlib.util
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, Iterator, List, Optional, Type

import numpy as np
from mathy_core import BaseRule
from mathy_core.rules import (
    AssociativeSwapRule,
    CommutativeSwapRule,
    ConstantsSimplifyRule,
    DistributiveFactorOutRule,
    DistributiveMultiplyRule,
    RestateSubtractionRule,
    VariableMultiplyRule,
)

from mathy_envs import MathyEnv, MathyEnvState, envs
from mathy_envs.time_step import TimeStep, is_terminal_transition
from mathy_envs.types import ActionType

REPO = Path(__file__).resolve().parent.parent
"""The root of this checkout."""

MASKABLE_PPO_SNIPPET = REPO / "snippets" / "gym" / "maskable_ppo.py"
"""The MaskablePPO training example (a run of about two minutes: the
`maskable_ppo_run` fixture makes it once per session)."""

BASELINES_SCRIPT = REPO / "scripts" / "baselines.py"
"""The baselines script (`python scripts/baselines.py`)."""


def load_baselines_script() -> ModuleType:
    """`scripts/baselines.py` imported as a module, to call its `main(argv)`."""
    spec = importlib.util.spec_from_file_location("baselines_script", BASELINES_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CORE_RULE_TYPES: List[Type[BaseRule]] = [
    ConstantsSimplifyRule,
    CommutativeSwapRule,
    DistributiveMultiplyRule,
    DistributiveFactorOutRule,
    AssociativeSwapRule,
    VariableMultiplyRule,
    RestateSubtractionRule,
]
"""The core rules in action order, written out independently of the env."""


# -- time steps, rules and actions ----------------------------------------------


def is_mid(step: TimeStep) -> bool:
    """A transition in the middle of an episode."""
    return bool(step.step_type.tolist() == [1])


def is_last(step: TimeStep) -> bool:
    """The transition that ends an episode."""
    return bool(step.step_type.tolist() == [2])


def rule_index(env: MathyEnv, rule_type: Type[BaseRule]) -> int:
    """The index of the env's only rule of exactly `rule_type`."""
    matches = [i for i, rule in enumerate(env.rules) if type(rule) is rule_type]
    assert len(matches) == 1
    return matches[0]


def valid_actions(env: MathyEnv, state: MathyEnvState) -> List[ActionType]:
    """Every `(rule, node)` with a 1 in `env.get_valid_moves(state)`."""
    mask = np.asarray(env.get_valid_moves(state))
    return [(int(rule), int(node)) for rule, node in zip(*np.nonzero(mask))]


# -- states ---------------------------------------------------------------------


def play(seed: int, steps: int, invalid_every: int = 0) -> MathyEnvState:
    """A PolySimplify state reached by masked random play from a seeded problem
    (with a penalized invalid action every `invalid_every` steps when set)."""
    kwargs = {"invalid_action_response": "penalize"} if invalid_every else {}
    env = envs.PolySimplify(seed=seed, **kwargs)  # type: ignore[arg-type]
    state, _ = env.get_initial_state(print_problem=False)
    rng = np.random.default_rng(seed)
    for i in range(steps):
        if invalid_every and i % invalid_every == invalid_every - 1:
            action = (int(rng.integers(-3, 12)), int(rng.integers(-3, 200)))
        else:
            valid = np.argwhere(np.asarray(env.get_valid_moves(state)))
            if len(valid) == 0:
                break
            rule, node = valid[rng.integers(len(valid))]
            action = (int(rule), int(node))
        state, step, _ = env.get_next_state(state, action)
        if is_terminal_transition(step):
            break
    return state


def snapshot(state: MathyEnvState) -> str:
    """Everything a state holds, independent of its serialization."""
    agent = state.agent
    return repr(
        (
            state.max_moves,
            state.num_rules,
            agent.moves_remaining,
            agent.problem,
            agent.problem_type,
            agent.reward,
            [(s.raw, tuple(s.action)) for s in agent.history],
        )
    )


# -- observations ---------------------------------------------------------------


def assert_observation_in_range(observation: Any) -> None:
    """Every array of an observation (of any of the four types) is finite, and
    its float32 arrays (features and masks) lie in [0, 1]."""
    arrays = (
        [observation]
        if isinstance(observation, np.ndarray)
        else [v for v in observation.to_dict().values() if isinstance(v, np.ndarray)]
    )
    for array in arrays:
        assert np.isfinite(array).all()
        if array.dtype == np.float32:
            assert 0.0 <= array.min() and array.max() <= 1.0


# -- time and processes ---------------------------------------------------------


class Hang(BaseException):
    """Raised by `time_limit`: a BaseException, so no `except Exception` hides it."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise `Hang` in the main thread when the block runs longer than `seconds`."""

    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def python_environment(hash_seed: str = "0") -> Dict[str, str]:
    """The environment variables of a child interpreter that imports this
    checkout's `mathy_envs` (whether or not, and whichever version, is installed):
    this process's, with the checkout first on `PYTHONPATH` and
    `PYTHONHASHSEED=hash_seed`."""
    path = os.environ.get("PYTHONPATH")
    return {
        **os.environ,
        "PYTHONHASHSEED": hash_seed,
        "PYTHONPATH": os.pathsep.join([str(REPO), path]) if path else str(REPO),
    }


def run_python(
    *args: str,
    hash_seed: str = "0",
    cwd: Optional[Path] = None,
    timeout: float = 120,
) -> "subprocess.CompletedProcess[str]":
    """`python *args` in a fresh interpreter that imports this checkout's
    `mathy_envs` (see `python_environment`), with `PYTHONHASHSEED=hash_seed`,
    from `cwd` (the checkout's root by default)."""
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=REPO if cwd is None else cwd,
        env=python_environment(hash_seed),
        timeout=timeout,
    )
