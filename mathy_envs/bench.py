"""`mathy-envs bench`: throughput of env steps and observations, next to the
mathy_core floor.

Workloads: seeded masked random play on PolySimplify, ComplexSimplify and
BinomialDistribute at normal difficulty, building an observation (with the mask)
every step, once per observation type, each run starting with cold caches.

The floor, for the same steps: the time mathy_core alone needs for one
`can_apply_to` sweep of every rule over every node, one `apply_to`, one `str()` of
the result and the parse of that text (what any env must do to know the next
state's valid moves), on trees parsed and listed beforehand.
"""

import gc
import json
import os
import time
import sys
import types
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import IO, Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Type

import numpy as np
import numpy.typing as npt
from mathy_core import BaseRule, ExpressionParser, MathExpression

from .actions import sample_valid_actions
from .env import MathyEnv, sample_valid_action
from .envs import BinomialDistribute, ComplexSimplify, PolySimplify
from .observations import ObservationType
from .parsing import default_parser, expression_cache
from .state import MathyEnvState
from .time_step import is_terminal_transition
from .types import ActionType, MathyEnvDifficulty, MathyEnvProblemArgs

WORKLOADS: List[Type[MathyEnv]] = [PolySimplify, ComplexSimplify, BinomialDistribute]
SEED = 1337
OBSERVATION_NODES = 40
MEMORY_STATES = 100_000
VECTOR_ID = "mathy-poly-normal-v0"


@dataclass
class WorkloadResult:
    env: str
    steps: int
    steps_per_second: Dict[str, float] = field(default_factory=dict)
    floor_us_per_step: float = 0.0
    us_per_step: float = 0.0
    floor_multiple: float = 0.0


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


@dataclass
class BenchResult:
    workloads: List[WorkloadResult]
    observation_us: Dict[str, float]
    observation_nodes: int
    memory_mb: float
    memory_states: int
    vector: Optional[VectorResult]


def _cold_env(env_class: Type[MathyEnv]) -> MathyEnv:
    expression_cache(default_parser()).clear()
    return env_class(seed=SEED)


def play(
    env_class: Type[MathyEnv], obs_type: ObservationType, steps: int
) -> Tuple[float, List[Tuple[str, ActionType]]]:
    """Masked random play for `steps` steps, one observation per step. Returns
    the seconds taken and the `(text, action)` of every step."""
    env = _cold_env(env_class)
    rng = np.random.default_rng(SEED)
    config = MathyEnvProblemArgs(MathyEnvDifficulty.normal)
    taken: List[Tuple[str, ActionType]] = []
    gc.collect()
    started = time.perf_counter()
    state, _ = env.get_initial_state(config, print_problem=False)
    for _ in range(steps):
        mask = env.valid_moves_array(state)
        state.to_observation(
            move_mask=mask, parser=env.parser, max_seq_len=env.max_seq_len, obs_type=obs_type
        )
        action = sample_valid_action(mask, rng)
        if action is None:
            state, _ = env.get_initial_state(config, print_problem=False)
            continue
        taken.append((state.agent.problem, action))
        state, time_step, _ = env.get_next_state(state, action)
        if is_terminal_transition(time_step):
            state, _ = env.get_initial_state(config, print_problem=False)
    return time.perf_counter() - started, taken


def floor_seconds(env: MathyEnv, taken: List[Tuple[str, ActionType]]) -> float:
    """mathy_core's own time for the steps: a full `can_apply_to` sweep, one
    `apply_to`, one `str()` and one parse of the result per step, on trees parsed
    and listed (in-order) beforehand."""
    parser = ExpressionParser()
    prepared = []
    for text, action in taken:
        tree = parser.parse(text)
        parser.clear_cache()
        prepared.append((tree.to_list("inorder"), action))
    rules = env.rules
    gc.collect()
    return _timed_floor(prepared, rules, parser)


def _timed_floor(
    prepared: List[Tuple[List[MathExpression], ActionType]],
    rules: List[BaseRule],
    parser: ExpressionParser,
) -> float:
    started = time.perf_counter()
    for nodes, (rule_index, node_index) in prepared:
        for rule in rules:
            for node in nodes:
                rule.can_apply_to(node)
        change = rules[rule_index].apply_to(nodes[node_index])
        assert change.result is not None
        parser.parse(str(change.result.get_root()))
        # mathy_core's parser keeps every text; a step parses a new one.
        parser.clear_cache()
    return time.perf_counter() - started


def observation_micros(repeats: int) -> Dict[str, float]:
    """Microseconds per `to_observation` (with a move mask) of a 40-node
    expression, for each observation type."""
    env = PolySimplify()
    text = "4x + 2y + 7z^2 + 3x + 9y + 2z^2 + 5x + 8 + 6y - -x"
    state = env.state_from_text(text, max_moves=20)
    assert len(env.parse(text)) == OBSERVATION_NODES, len(env.parse(text))
    mask = env.valid_moves_array(state)
    result = {}
    for obs_type in ObservationType:
        build = state.to_observation
        build(move_mask=mask, obs_type=obs_type)
        best = np.inf
        for _ in range(3):
            started = time.perf_counter()
            for _ in range(repeats):
                build(move_mask=mask, obs_type=obs_type)
            best = min(best, time.perf_counter() - started)
        result[obs_type.value] = best / repeats * 1e6
    return result


def held_bytes(roots: List[object]) -> int:
    """Bytes of every object reachable from `roots` (each counted once), not
    counting classes, functions and modules."""
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    seen: Set[int] = set()
    pending = list(roots)
    total = 0
    while pending:
        obj = pending.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        pending.extend(gc.get_referents(obj))
    return total


def memory_mb(count: int) -> float:
    """Megabytes held by `count` distinct states reached by random play (the
    states, their histories and texts; not the env's bounded caches)."""
    env = PolySimplify(seed=SEED)
    rng = np.random.default_rng(SEED)
    config = MathyEnvProblemArgs(MathyEnvDifficulty.normal)
    states: List[MathyEnvState] = []
    state, _ = env.get_initial_state(config, print_problem=False)
    while len(states) < count:
        action = sample_valid_action(env.valid_moves_array(state), rng)
        if action is None:
            state, _ = env.get_initial_state(config, print_problem=False)
            continue
        state, time_step, _ = env.get_next_state(state, action)
        states.append(state)
        if is_terminal_transition(time_step):
            state, _ = env.get_initial_state(config, print_problem=False)
    return held_bytes([states]) / 2**20


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
    index: int, seconds: float, env_id: str, start: Any, results: Any
) -> None:
    try:
        player = _MaskedRandomPlayer(SEED + index, env_id)
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


def _exit_reason(code: int) -> str:
    return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"


def independent_processes(
    seconds: float,
    workers: int,
    cores: Optional[Sequence[Optional[int]]] = None,
    env_id: str = VECTOR_ID,
) -> float:
    """Total steps/s of `workers` spawned processes, each playing its own env
    (its own seed) for the same `seconds`, all started together at a barrier
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
            target=_independent_worker, args=(i, seconds, env_id, start, results), daemon=True
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
        failed = len(rates) < workers
        for process in started:
            if failed and process.is_alive():
                process.terminate()
            process.join(5.0)
            if process.is_alive():
                process.kill()
                process.join()
    return float(sum(rates.values()))


def _lone_cores(workers: int) -> List[Optional[int]]:
    """The CPUs to time one lone process on, one after the other: the first
    `workers` this process may run on (Linux), or [None] (unpinned)."""
    if not hasattr(os, "sched_getaffinity"):
        return [None]
    cores: List[Optional[int]] = [*sorted(os.sched_getaffinity(0))[:workers]]
    return cores


def _async_vector_rate(seconds: float, workers: int) -> float:
    """Env steps/s of a `workers`-worker `gymnasium.vector.AsyncVectorEnv` of
    `VECTOR_ID` envs in spawned workers, stepped with masked random actions for
    `seconds` after a warm-up. A step that only resets a sub-env (next-step
    autoreset, Gymnasium's default) is not counted. Raises RuntimeError when a
    worker fails or dies, or does not start in time."""
    import gymnasium

    rng = np.random.default_rng(SEED)
    vector = gymnasium.vector.AsyncVectorEnv(
        [_make_env] * workers,
        context="spawn",
        autoreset_mode=gymnasium.vector.AutoresetMode.NEXT_STEP,
    )
    failed = True
    try:
        vector.reset_async(seed=SEED)
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
    for process in vector.processes:
        if process.is_alive():
            process.terminate()
    for process in vector.processes:
        process.join(5.0)
        if process.is_alive():
            process.kill()
            process.join()
    for pipe in vector.parent_pipes:
        if pipe is not None:
            pipe.close()
    vector.closed = True  # nothing is left for close() (or garbage collection) to do


def vector_scaling(seconds: float, repeats: int = 1) -> Optional[VectorResult]:
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
        lone = [independent_processes(seconds, 1, [core]) for core in before]
        processes = independent_processes(seconds, workers, pair)
        lone += [independent_processes(seconds, 1, [core]) for core in after]
        rounds.append((float(np.mean(lone)), processes, _async_vector_rate(seconds, workers)))
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


Progress = Callable[[str], None]
"""Called with a short description of each part of the benchmark as it starts."""


def bench(quick: bool = False, progress: Optional[Progress] = None) -> BenchResult:
    """Every single-process number is the best of `repeats` runs: on a shared
    machine the fastest run is the one least disturbed by other work. The
    several-cores numbers are medians (see `vector_scaling`)."""
    report: Progress = progress if progress is not None else (lambda _: None)
    steps = 400 if quick else 3000
    repeats = 1 if quick else 3
    results = []
    parts = len(WORKLOADS) + 3
    for index, env_class in enumerate(WORKLOADS, start=1):
        report(f"[{index}/{parts}] {env_class.__name__}: steps/s per observation type and the floor")
        result = WorkloadResult(env=env_class.__name__, steps=steps)
        taken: List[Tuple[str, ActionType]] = []
        play(env_class, ObservationType.FLAT, steps // 4)  # warm-up, not measured
        for obs_type in ObservationType:
            best = np.inf
            for _ in range(repeats):
                seconds, taken = play(env_class, obs_type, steps)
                best = min(best, seconds)
            result.steps_per_second[obs_type.value] = steps / best
        floor = min(floor_seconds(env_class(), taken) for _ in range(repeats))
        result.floor_us_per_step = floor / len(taken) * 1e6
        result.us_per_step = 1e6 / result.steps_per_second[ObservationType.FLAT.value]
        result.floor_multiple = result.us_per_step / result.floor_us_per_step
        results.append(result)
    report(f"[{parts - 2}/{parts}] observation building per type")
    observation_us = observation_micros(300 if quick else 3000)
    report(f"[{parts - 1}/{parts}] memory of held states")
    states = MEMORY_STATES // 10 if quick else MEMORY_STATES
    memory = memory_mb(states)
    report(f"[{parts}/{parts}] several cores: processes and vector envs")
    vector = vector_scaling(0.5 if quick else 2.0, 1 if quick else 5)
    return BenchResult(
        workloads=results,
        observation_us=observation_us,
        observation_nodes=OBSERVATION_NODES,
        memory_mb=memory,
        memory_states=states,
        vector=vector,
    )


def run_bench(
    as_json: bool, out: IO[str], quick: bool = False, progress: Optional[Progress] = None
) -> int:
    result = bench(quick, progress)
    if as_json:
        print(json.dumps(asdict(result), indent=2), file=out)
        return 0
    types = [t.value for t in ObservationType]
    header = f"{'workload (normal)':22}" + "".join(f"{t:>17}" for t in types)
    print("steps/s, masked random play with an observation every step", file=out)
    print(header + f"{'us/step':>10}{'floor us':>10}{'x floor':>9}", file=out)
    for w in result.workloads:
        cells = "".join(f"{w.steps_per_second[t]:>17.0f}" for t in types)
        print(
            f"{w.env:22}{cells}{w.us_per_step:>10.1f}{w.floor_us_per_step:>10.1f}"
            f"{w.floor_multiple:>9.2f}",
            file=out,
        )
    print(file=out)
    print(f"to_observation of a {result.observation_nodes}-node expression:", file=out)
    for name, micros in result.observation_us.items():
        print(f"  {name:16} {micros:8.1f} us", file=out)
    print(file=out)
    print(
        f"memory: {result.memory_states:,} states held in a list: "
        f"{result.memory_mb:.1f} MB",
        file=out,
    )
    vector = result.vector
    if vector is None:
        print("vector envs: skipped (gymnasium is not installed)", file=out)
    else:
        print(
            f"several cores ({vector.env_id}): 1 process "
            f"{vector.single_steps_per_second:.0f} steps/s, {vector.workers} "
            f"independent processes {vector.processes_steps_per_second:.0f} steps/s "
            f"({vector.processes_speedup:.2f}x), AsyncVectorEnv x{vector.workers} "
            f"{vector.vector_steps_per_second:.0f} steps/s ({vector.speedup:.2f}x)",
            file=out,
        )
    return 0


__all__ = ("BenchResult", "WorkloadResult", "bench", "run_bench")
