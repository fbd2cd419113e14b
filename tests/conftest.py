"""Fixtures shared by the test modules.

Plain helpers (test envs, time steps, random play, observation checks, child
interpreters) are in `helpers.py`, imported by name like `oracles.py`,
`search.py` and `winnability.py`; this file makes pytest explain a failed
`assert` inside them as it does in tests.
"""

import fcntl
import gc
import json
import os
import subprocess
from typing import Callable

import pytest

from mathy_envs.envs import PolySimplify

pytest.register_assert_rewrite("helpers", "oracles", "search", "winnability")

from helpers import (  # noqa: E402  (after the hook)
    MASKABLE_PPO_SNIPPET,
    RLLIB_PPO_QUICK_ARGS,
    RLLIB_PPO_SNIPPET,
    run_python,
)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In a pytest-xdist worker, freeze what the run left in memory before the
    worker reports that it is done.

    The controller stops a worker soon after that report and sends it SIGINT when
    it is still busy 5 seconds later. On a loaded machine the garbage collections
    that pytest and the interpreter make at exit can take that long over a heap of
    a few million objects, and the interrupt then lands in Hypothesis's gc
    callback (an ignored `KeyboardInterrupt` printed at exit). Frozen objects are
    left out of every later collection, so those take no time.
    """
    if "PYTEST_XDIST_WORKER" in os.environ:
        gc.collect()
        gc.freeze()


@pytest.fixture
def poly() -> PolySimplify:
    """A fresh `PolySimplify` with the default settings (`max_moves=20`,
    `max_seq_len=128`)."""
    return PolySimplify()


def _run_once(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    run: Callable[[], "subprocess.CompletedProcess[str]"],
) -> "subprocess.CompletedProcess[str]":
    """`run()` made once per test session, its outcome shared.

    Under pytest-xdist the workers share one run: the first to ask makes it and
    writes the outcome to this session's temporary root (as `name.json`), the
    others wait on a lock and read it.
    """
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return run()
    shared = tmp_path_factory.getbasetemp().parent  # this run's workers share it
    outcome = shared / f"{name}.json"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not outcome.exists():
            result = run()
            outcome.write_text(
                json.dumps([result.args, result.returncode, result.stdout, result.stderr])
            )
        args, returncode, stdout, stderr = json.loads(outcome.read_text())
    return subprocess.CompletedProcess(args, returncode, stdout, stderr)


@pytest.fixture(scope="session")
def maskable_ppo_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> "subprocess.CompletedProcess[str]":
    """The MaskablePPO example run once, in its own interpreter from its folder,
    for every test that checks it (shared by pytest-xdist workers)."""

    def run() -> "subprocess.CompletedProcess[str]":
        return run_python(
            str(MASKABLE_PPO_SNIPPET),
            hash_seed="random",
            cwd=MASKABLE_PPO_SNIPPET.parent,
            timeout=300,
        )

    return _run_once(tmp_path_factory, "maskable_ppo_run", run)


@pytest.fixture(scope="session")
def rllib_ppo_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> "subprocess.CompletedProcess[str]":
    """The RLlib PPO example's quick run (`RLLIB_PPO_QUICK_ARGS`: one training
    iteration, a short evaluation), made once in its own interpreter from its
    folder for every test that checks it (shared by pytest-xdist workers)."""

    def run() -> "subprocess.CompletedProcess[str]":
        return run_python(
            str(RLLIB_PPO_SNIPPET),
            *RLLIB_PPO_QUICK_ARGS,
            hash_seed="random",
            cwd=RLLIB_PPO_SNIPPET.parent,
            timeout=300,
        )

    return _run_once(tmp_path_factory, "rllib_ppo_run", run)
