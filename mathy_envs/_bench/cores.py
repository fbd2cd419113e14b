"""The last part of `mathy-envs bench`: steps/s on several cores.

One Gymnasium env of `VECTOR_ID` in one process, two independent processes each
playing one, and a 2-worker `gymnasium.vector.AsyncVectorEnv`, all playing masked
random actions from `info["action_mask"]`. Every env runs in a spawned process,
plays for a warm-up and is then timed over the same window.
"""

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .._env.actions import sample_valid_actions

VECTOR_ID = "mathy-poly-normal-v0"


@dataclass
class VectorResult:
    """Steps/s on several cores: one process, `workers` independent processes
    (each playing its own env), and an `AsyncVectorEnv` of `workers` workers."""

    env_id: str
    workers: int
    single_steps_per_second: float
    vector_steps_per_second: float
    speedup: float
    processes_steps_per_second: float = 0.0
    processes_speedup: float = 0.0


def _make_env(env_id: str = VECTOR_ID) -> Any:
    """A Gymnasium env of `env_id`; importable by name, so spawned workers
    (which start without the ids registered) can build it."""
    import gymnasium

    import mathy_envs.gym  # noqa: F401  (registers the ids)

    return gymnasium.make(env_id)


class _MaskedRandomPlayer:
    """One Gymnasium env played with masked random actions from
    `info["action_mask"]`, resetting when an episode ends."""

    def __init__(self, seed: int, env_id: str = VECTOR_ID) -> None:
        self.rng = np.random.default_rng(seed)
        self.env = _make_env(env_id)
        _, self.info = self.env.reset(seed=seed)

    def play(self, steps: int) -> None:
        env, rng, info = self.env, self.rng, self.info
        for _ in range(steps):
            valid = np.flatnonzero(info["action_mask"])
            action = int(valid[int(rng.integers(valid.size))]) if valid.size else 0
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                _, info = env.reset()
        self.info = info

    def play_for(self, seconds: float) -> Tuple[int, float]:
        """Play in slices of `_SLICE` steps until `seconds` have passed; the
        steps played and the seconds they took."""
        steps = 0
        started = time.perf_counter()
        while True:
            self.play(_SLICE)
            steps += _SLICE
            elapsed = time.perf_counter() - started
            if elapsed >= seconds:
                return steps, elapsed

    def close(self) -> None:
        self.env.close()


_SLICE = 20
_START_SECONDS = 120.0
"""How long spawned workers may take to start (imports, env, warm-up)."""


def _independent_worker(
    index: int, seconds: float, seed: int, env_id: str, start: Any, results: Any
) -> None:
    try:
        player = _MaskedRandomPlayer(seed + index, env_id)
        player.play_for(seconds / 4)  # imports and warm-up, not timed
        start.wait(_START_SECONDS)
        steps, elapsed = player.play_for(seconds)
        player.close()
        results.put((index, True, steps / elapsed))
    except BaseException as error:  # told to the parent, which raises it
        results.put((index, False, f"{type(error).__name__}: {error}"[:300]))


@contextmanager
def _pinned(core: Optional[int]) -> Iterator[None]:
    """Run the block on CPU `core` alone (Linux; nothing when None): the
    calling thread's affinity, which processes started in the block inherit."""
    if core is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _stop(processes: Sequence[Any], terminate: bool) -> None:
    """Wait for `processes` to end, first telling them to (SIGTERM) when
    `terminate`; one still running after 5 seconds is killed."""
    if terminate:
        for process in processes:
            if process.is_alive():
                process.terminate()
    for process in processes:
        process.join(5.0)
        if process.is_alive():
            process.kill()
            process.join()


def _exit_reason(code: int) -> str:
    return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"


def independent_processes(
    seconds: float,
    workers: int,
    cores: Optional[Sequence[Optional[int]]] = None,
    env_id: str = VECTOR_ID,
    seed: int = 0,
) -> float:
    """Total steps/s of `workers` spawned processes, each playing its own env
    (seeded `seed + i`) for the same `seconds`, all started together at a barrier
    after a warm-up: the sum of their rates over a window in which all of them
    run, as in training, where every worker keeps playing. `cores[i]` pins
    worker `i` to that CPU (Linux). Raises RuntimeError with a worker's error
    when one fails, dies or does not finish in time."""
    import multiprocessing
    import queue

    pins = list(cores) if cores is not None else [None] * workers
    if len(pins) != workers:
        raise ValueError(f"cores names {len(pins)} CPUs for {workers} workers")
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(workers)
    results = context.Queue()
    processes = [
        context.Process(
            target=_independent_worker,
            args=(i, seconds, seed, env_id, start, results),
            daemon=True,
        )
        for i in range(workers)
    ]
    deadline = time.monotonic() + _START_SECONDS + 2 * seconds
    rates: Dict[int, float] = {}
    started: List[Any] = []
    try:
        for process, core in zip(processes, pins):
            with _pinned(core):
                process.start()
            started.append(process)
        while len(rates) < workers:
            try:
                index, ok, value = results.get(timeout=0.5)
            except queue.Empty:
                for index, process in enumerate(processes):
                    if index not in rates and process.exitcode is not None:
                        raise RuntimeError(
                            f"a benchmark worker {_exit_reason(process.exitcode)}"
                        ) from None
                if time.monotonic() > deadline:
                    raise RuntimeError("benchmark workers did not finish in time") from None
                continue
            if not ok:
                raise RuntimeError(f"a benchmark worker failed: {value}")
            rates[index] = value
    finally:
        _stop(started, terminate=len(rates) < workers)
    return float(sum(rates.values()))


def _lone_cores(workers: int) -> List[Optional[int]]:
    """The CPUs to time one lone process on, one after the other: the first
    `workers` this process may run on (Linux), or [None] (unpinned)."""
    if not hasattr(os, "sched_getaffinity"):
        return [None]
    cores: List[Optional[int]] = [*sorted(os.sched_getaffinity(0))[:workers]]
    return cores


def _async_vector_rate(seconds: float, workers: int, seed: int = 0) -> float:
    """Env steps/s of a `workers`-worker `gymnasium.vector.AsyncVectorEnv` of
    `VECTOR_ID` envs in spawned workers, stepped with masked random actions for
    `seconds` after a warm-up. A step that only resets a sub-env (next-step
    autoreset, Gymnasium's default) is not counted. Raises RuntimeError when a
    worker fails or dies, or does not start in time."""
    import gymnasium

    rng = np.random.default_rng(seed)
    vector = gymnasium.vector.AsyncVectorEnv(
        [_make_env] * workers,
        context="spawn",
        autoreset_mode=gymnasium.vector.AutoresetMode.NEXT_STEP,
    )
    failed = True
    try:
        vector.reset_async(seed=seed)
        _, infos = vector.reset_wait(timeout=_START_SECONDS)
        resetting: npt.NDArray[np.bool_] = np.zeros(workers, dtype=bool)
        played = 0
        started = time.perf_counter()
        warm_up = True
        while True:
            for _ in range(_SLICE):
                vector.step_async(sample_valid_actions(infos["action_mask"], rng))
                # No timeout, as in `vector.step`: waiting with one polls every
                # worker's pipe first, which costs a fifth of the steps/s here.
                # A worker that dies closes its pipe, which ends the wait.
                _, _, terminated, truncated, infos = vector.step_wait()
                played += workers - int(resetting.sum())
                resetting = terminated | truncated
            elapsed = time.perf_counter() - started
            if warm_up and elapsed >= seconds / 4:
                warm_up, played, started = False, 0, time.perf_counter()
            elif not warm_up and elapsed >= seconds:
                failed = False
                return played / elapsed
    except Exception as error:
        raise RuntimeError(
            f"the AsyncVectorEnv benchmark failed: {type(error).__name__}: {error}"[:300]
        ) from error
    finally:
        if failed:
            _abandon(vector)
        else:
            vector.close()


def _abandon(vector: Any) -> None:
    """Stop a failed `AsyncVectorEnv`'s workers and close its pipes. Its own
    `close` first waits for the pending call's answer, which a dead worker
    never sends (and a stuck one sends late)."""
    _stop(vector.processes, terminate=True)
    for pipe in vector.parent_pipes:
        if pipe is not None:
            pipe.close()
    vector.closed = True  # nothing is left for close() (or garbage collection) to do


def vector_scaling(seconds: float, repeats: int = 1, seed: int = 0) -> Optional[VectorResult]:
    """Steps/s of `mathy-poly-normal-v0` played with masked random actions for
    `seconds`: one spawned process, two independent spawned processes each
    playing its own env, and a 2-worker `gymnasium.vector.AsyncVectorEnv`
    (None when gymnasium is not installed), measured one after the other in
    each of `repeats` rounds; each number is the median of its rounds.

    Cores can differ in speed, so on Linux the one process is timed pinned to
    each of the first two CPUs this process may use, its steps/s the mean of
    those, and the two processes are pinned one to each: a lone unpinned
    process runs at the speed of whichever core it lands on, and the best of
    several such runs is the faster core's, which two processes cannot both
    have. The two processes run between the lone runs, so that a machine
    whose speed drifts during a round drifts alike for both numbers."""
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        return None

    workers = 2
    cores = _lone_cores(workers)
    pair = cores if len(cores) == workers else None
    before, after = cores[: (len(cores) + 1) // 2], cores[(len(cores) + 1) // 2 :]
    rounds = []
    for _ in range(repeats):
        lone = [independent_processes(seconds, 1, [core], seed=seed) for core in before]
        processes = independent_processes(seconds, workers, pair, seed=seed)
        lone += [independent_processes(seconds, 1, [core], seed=seed) for core in after]
        batched = _async_vector_rate(seconds, workers, seed)
        rounds.append((float(np.mean(lone)), processes, batched))
    single, processes, batched = (float(np.median(rates)) for rates in zip(*rounds))
    return VectorResult(
        VECTOR_ID,
        workers,
        single,
        batched,
        batched / single,
        processes_steps_per_second=processes,
        processes_speedup=processes / single,
    )


__all__ = ("VectorResult", "independent_processes", "vector_scaling")
