"""`mathy-envs bench`: throughput of env steps and observations, next to the
mathy_core floor.

Workloads: seeded masked random play on PolySimplify, ComplexSimplify and
BinomialDistribute at normal difficulty, building an observation (with the mask)
every step, once per observation type, each run starting with cold caches; and
the same play by `BATCH_ENVS` episodes stepped together (`StepBatch`, flat
observations), with the share of its steps the native kernel took
(`StepBatch.native_fraction`) and, when not all, why (`StepBatch.native_reason`).
The native coverage: the same batched play of every built-in env at every
difficulty, with the shares of its steps and episode starts the native kernel
took (`StepBatch.native_start_fraction`).

The floor, for the same steps: the time mathy_core alone needs for one
`can_apply_to` sweep of every rule over every node, one `apply_to`, one `str()` of
the result and the parse of that text (what any env must do to know the next
state's valid moves), on trees parsed and listed beforehand.

The text interface (`mathy_envs.text`), on the same kind of play: the time of a
prompt (with its numbered moves), of the verdict on a reply that writes one valid
move, and of the verdict on a reply that keeps the value but skips steps, next
to the time of the env step itself; and the slowest verdict on a hostile reply
(`WORST_REPLIES`, each at the `MAX_REPLY_CHARS` limit: long runs of spaces,
stars and brackets after an answer prefix, step labels, thousands of lines), in
rewrite and choose mode and as a whole derivation.
"""

import gc
import json
import time
import sys
import types
from dataclasses import asdict, dataclass, field
from typing import IO, Any, Callable, Dict, List, NamedTuple, Optional, Set, Tuple, Type

import numpy as np
import numpy.typing as npt
from mathy_core import BaseRule, ExpressionParser, MathExpression

from ._env.actions import sample_valid_actions
from .batch import StepBatch
from ._bench.cores import VectorResult, vector_scaling
from .env import MathyEnv, sample_valid_action
from .envs import MATHY_BUILTIN_ENVS, BinomialDistribute, ComplexSimplify, PolySimplify
from .observations import ObservationType
from .problems import native_family
from ._engine import expression_cache
from ._engine import default_parser
from .state import MathyEnvState
from .text import CHOOSE, REWRITE, prompt_text, read_reply, score_derivation, text_moves
from .text.replies import MAX_REPLY_CHARS
from .time_step import is_terminal_transition
from .types import ActionType, MathyEnvDifficulty, MathyEnvProblemArgs

WORKLOADS: List[Type[MathyEnv]] = [PolySimplify, ComplexSimplify, BinomialDistribute]
SEED = 1337
OBSERVATION_NODES = 40
MEMORY_STATES = 100_000
BATCH_ENVS = 64
BATCH_THREADS = 2
"""The threads of the second batched run (`StepBatch(num_threads=...)`)."""
COVERAGE_CALLS = 40
"""The batch steps of each env and difficulty in the native coverage (a fifth of
them with `--quick`)."""


@dataclass
class WorkloadResult:
    env: str
    steps: int
    steps_per_second: Dict[str, float] = field(default_factory=dict)
    floor_us_per_step: float = 0.0
    us_per_step: float = 0.0
    floor_multiple: float = 0.0
    batched_steps_per_second: float = 0.0
    batched_threads_steps_per_second: float = 0.0
    """The same batched play with the native kernel on `BATCH_THREADS` threads."""
    batched_native_fraction: float = 0.0
    """The share of the batched steps the native kernel took."""
    batched_native_reason: Optional[str] = None
    """Why the native kernel took none of the batched steps (None: it took
    every one it could)."""


class BatchedRun(NamedTuple):
    """One run of `play_batched`."""

    steps_per_second: float
    native_fraction: float
    """`StepBatch.native_fraction` at the end of the run."""
    native_reason: Optional[str]
    """`StepBatch.native_reason` at the end of the run."""


class Coverage(NamedTuple):
    """The native kernel's share of a batched run of one env and difficulty."""

    env: str
    difficulty: str
    steps: float
    """`StepBatch.native_fraction` at the end of the run."""
    starts: float
    """`StepBatch.native_start_fraction` at the end of the run."""
    reason: Optional[str]
    """`StepBatch.native_reason` at the end of the run."""
    problems: Optional[float] = None
    """The share of the run's problems the native core drew (`NativeFamily`),
    None where the env's generator has no native family."""


@dataclass
class BenchResult:
    workloads: List[WorkloadResult]
    observation_us: Dict[str, float]
    observation_nodes: int
    memory_mb: float
    memory_states: int
    vector: Optional[VectorResult]
    text_us: Dict[str, float] = field(default_factory=dict)
    worst_reply_ms: float = 0.0
    worst_reply: str = ""
    coverage: List[Coverage] = field(default_factory=list)
    derivation_ms: Dict[str, float] = field(default_factory=dict)
    """`derivation_millis`: median milliseconds per derivation, by grain."""


WORST_REPLIES: Dict[str, Callable[[int], str]] = {
    "spaces after 'answer'": lambda n: "answer" + " " * n + "x",
    "stars and spaces after 'answer'": lambda n: "**answer" + " *" * n + "x",
    "spaces after 'move'": lambda n: "move" + " " * n + "x",
    "spaces after '#'": lambda n: "# " + " " * n + "x",
    "spaces in a rule name": lambda n: "a" + " " * n + "at x",
    "spaces after a step label": lambda n: "step 1" + " " * n + "x",
    "an unclosed box": lambda n: "\\boxed{" + "}" * n + "x",
    "one step per line": lambda n: "4x + 2x\n" * n,
    "blank lines": lambda n: "\n" * n + "6x",
    "spaces between letters": lambda n: "x " * n,
    "answer tags": lambda n: "<answer>" * (n // 8),
    "LaTeX groups": lambda n: "\\left(" * (n // 6),
}
"""Hostile replies by name, each made from a repeat count (cut to the limit)."""


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


def play_batched(env_class: Type[MathyEnv], steps: int, num_threads: int = 1) -> BatchedRun:
    """Masked random play of `BATCH_ENVS` episodes stepped together by a
    `StepBatch` (flat observations and masks written every step, the native
    kernel on `num_threads` threads), for about `steps` steps in all: the steps
    per second, and how many of them the native kernel took."""
    env = _cold_env(env_class)
    batch = StepBatch(
        env, BATCH_ENVS, MathyEnvProblemArgs(MathyEnvDifficulty.normal), num_threads=num_threads
    )
    rng = np.random.default_rng(SEED)
    calls = max(1, steps // BATCH_ENVS)
    gc.collect()
    started = time.perf_counter()
    batch.reset(seed=SEED)
    for _ in range(calls):
        batch.step(sample_valid_actions(batch.masks, rng))
    seconds = time.perf_counter() - started
    return BatchedRun(calls * BATCH_ENVS / seconds, batch.native_fraction, batch.native_reason)


def native_coverage(calls: int) -> List[Coverage]:
    """Masked random play of `BATCH_ENVS` episodes of every built-in env at
    every difficulty, `calls` batch steps each: the share of the steps and of
    the episode starts the native kernel took, why none where it took none,
    and the share of the problems the native core drew."""
    runs = []
    for env_class in MATHY_BUILTIN_ENVS:
        for difficulty in MathyEnvDifficulty:
            generator = env_class.generator
            family = None if generator is None else native_family(generator)
            before = (0, 0) if family is None else family.counts()
            batch = StepBatch(env_class(), BATCH_ENVS, MathyEnvProblemArgs(difficulty))
            rng = np.random.default_rng(SEED)
            batch.reset(seed=SEED)
            for _ in range(calls):
                batch.step(sample_valid_actions(batch.masks, rng))
            after = (0, 0) if family is None else family.counts()
            asked, drawn = after[0] - before[0], after[1] - before[1]
            runs.append(
                Coverage(
                    env_class.__name__,
                    difficulty.value,
                    batch.native_fraction,
                    batch.native_start_fraction,
                    batch.native_reason,
                    drawn / asked if asked else None,
                )
            )
    return runs


def coverage_lines(runs: List[Coverage]) -> List[str]:
    """The native coverage as a table: one row per env, a column per
    difficulty, each cell `steps% / starts%` (and `/ problems%` where the
    run's generator has a native family); then each distinct reason of a run
    the native kernel took no step of."""
    difficulties: List[str] = []
    rows: Dict[str, Dict[str, Coverage]] = {}
    for run in runs:
        if run.difficulty not in difficulties:
            difficulties.append(run.difficulty)
        rows.setdefault(run.env, {})[run.difficulty] = run
    width = 26
    lines = [f"{'env':22}" + "".join(f"{name:>{width}}" for name in difficulties)]
    for env, cells in rows.items():
        line = f"{env:22}"
        for name in difficulties:
            cell = cells.get(name)
            text = "-" if cell is None else f"{cell.steps:.1%} / {cell.starts:.1%}"
            if cell is not None and cell.problems is not None:
                text += f" / {cell.problems:.1%}"
            line += f"{text:>{width}}"
        lines.append(line)
    reasons: List[str] = []
    for run in runs:
        if run.reason is not None and run.reason not in reasons:
            reasons.append(run.reason)
    lines.extend(f"  no native steps: {reason}" for reason in reasons)
    return lines


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


def text_micros(steps: int) -> Dict[str, float]:
    """Microseconds per env step, prompt and verdict over `steps` steps of
    seeded masked random play on PolySimplify normal, each state's prompt and
    verdicts made once, with cold caches (as a new state's are)."""
    env = _cold_env(PolySimplify)
    env.seed(SEED)
    rng = np.random.default_rng(SEED)
    config = MathyEnvProblemArgs(MathyEnvDifficulty.normal)
    state, _ = env.get_initial_state(config, print_problem=False)
    spent = {"step": 0.0, "prompt": 0.0, "verdict_accepted": 0.0, "verdict_refused": 0.0}
    clock = time.perf_counter
    for _ in range(steps):
        started = clock()
        moves = text_moves(env, state)
        prompt_text(env, state, REWRITE, True, moves)
        prompted = clock()
        if not moves:
            state, _ = env.get_initial_state(config, print_problem=False)
            continue
        move = moves[int(rng.integers(len(moves)))]
        read_reply(env, state, move.result, REWRITE, moves)
        accepted = clock()
        # The problem itself rewritten as "0 + it": the same value, no one move.
        read_reply(env, state, f"0 + {state.agent.problem}", REWRITE, moves)
        refused = clock()
        next_state, time_step, _ = env.get_next_state(state, move.action)
        env.valid_moves_array(next_state)
        stepped = clock()
        spent["prompt"] += prompted - started
        spent["verdict_accepted"] += accepted - prompted
        spent["verdict_refused"] += refused - accepted
        spent["step"] += stepped - refused
        state = next_state
        if is_terminal_transition(time_step):
            state, _ = env.get_initial_state(config, print_problem=False)
    return {name: seconds / steps * 1e6 for name, seconds in spent.items()}


DERIVATION_LINES = 10
"""The lines of each derivation `derivation_millis` scores."""


def derivation_millis(count: int) -> Dict[str, float]:
    """Median milliseconds to score a `DERIVATION_LINES`-line derivation of a
    PolySimplify normal problem (seeded random valid moves from a generated
    problem): one move a line at grains 1 and None, three moves a line at
    grain 3 (its search)."""
    env = PolySimplify()
    config = MathyEnvProblemArgs(MathyEnvDifficulty.normal)
    rng = np.random.default_rng(SEED)
    times: Dict[str, List[float]] = {"1": [], "3": [], "None": []}
    clock = time.perf_counter
    made = 0
    for seed in range(100 * count):
        if made == count:
            break
        env.seed(SEED + seed)
        start, _ = env.get_initial_state(config, print_problem=False)
        problem, texts = start.agent.problem, []
        # A walk that never returns to an expression, with room for it.
        state = env.state_from_text(problem, max_moves=10 * DERIVATION_LINES)
        for _ in range(3 * DERIVATION_LINES):
            moves = [m for m in text_moves(env, state, describe=False) if m.result not in texts]
            if not moves:
                break
            state, time_step, _ = env.get_next_state(state, moves[int(rng.integers(len(moves)))].action)
            texts.append(state.agent.problem)
            if is_terminal_transition(time_step):
                break
        if len(texts) < 3 * DERIVATION_LINES:
            continue
        made += 1
        single = "\n".join(texts[:DERIVATION_LINES])
        triple = "\n".join(texts[2::3])
        for grain, completion in (("1", single), ("3", triple), ("None", single)):
            started = clock()
            score_derivation(
                env,
                problem,
                completion,
                10 * DERIVATION_LINES,
                steps_per_line=None if grain == "None" else int(grain),
            )
            times[grain].append((clock() - started) * 1e3)
    return {grain: float(np.median(spent)) if spent else float("nan") for grain, spent in times.items()}


def worst_reply_millis() -> Tuple[float, str]:
    """The slowest verdict (milliseconds) on a `WORST_REPLIES` reply at the
    `MAX_REPLY_CHARS` limit, in rewrite and choose mode and as a derivation of
    a PolySimplify problem, and what it was."""
    env = PolySimplify()
    state = env.state_from_text("4x + 2x")
    moves = text_moves(env, state, describe=False)
    clock = time.perf_counter
    worst, what = 0.0, ""
    for name, make in WORST_REPLIES.items():
        reply = make(MAX_REPLY_CHARS)[:MAX_REPLY_CHARS]
        checks: Dict[str, Callable[[], object]] = {
            "rewrite": lambda: read_reply(env, state, reply, REWRITE, moves),
            "choose": lambda: read_reply(env, state, reply, CHOOSE, moves),
            "derivation": lambda: score_derivation(env, state.agent.problem, reply),
        }
        for kind, check in checks.items():
            started = clock()
            check()
            spent = (clock() - started) * 1e3
            if spent > worst:
                worst, what = spent, f"{name}, {kind}"
    return worst, what


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
    parts = len(WORKLOADS) + 5
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
        play_batched(env_class, steps)  # warm-up, not measured
        batched = max(
            (play_batched(env_class, 4 * steps) for _ in range(repeats)),
            key=lambda run: run.steps_per_second,
        )
        result.batched_steps_per_second = batched.steps_per_second
        result.batched_threads_steps_per_second = max(
            play_batched(env_class, 4 * steps, BATCH_THREADS).steps_per_second
            for _ in range(repeats)
        )
        result.batched_native_fraction = batched.native_fraction
        result.batched_native_reason = batched.native_reason
        floor = min(floor_seconds(env_class(), taken) for _ in range(repeats))
        result.floor_us_per_step = floor / len(taken) * 1e6
        result.us_per_step = 1e6 / result.steps_per_second[ObservationType.FLAT.value]
        result.floor_multiple = result.us_per_step / result.floor_us_per_step
        results.append(result)
    report(f"[{parts - 4}/{parts}] native coverage: every built-in env and difficulty, batched")
    coverage = native_coverage(COVERAGE_CALLS // 5 if quick else COVERAGE_CALLS)
    report(f"[{parts - 3}/{parts}] the text interface: prompts and verdicts")
    text_us = min((text_micros(200 if quick else 1000) for _ in range(repeats)), key=lambda r: r["prompt"])
    worst_ms, worst_what = worst_reply_millis()
    derivation_ms = derivation_millis(5 if quick else 25)
    report(f"[{parts - 2}/{parts}] observation building per type")
    observation_us = observation_micros(300 if quick else 3000)
    report(f"[{parts - 1}/{parts}] memory of held states")
    states = MEMORY_STATES // 10 if quick else MEMORY_STATES
    memory = memory_mb(states)
    report(f"[{parts}/{parts}] several cores: processes and vector envs")
    vector = vector_scaling(0.5 if quick else 2.0, 1 if quick else 5, SEED)
    return BenchResult(
        workloads=results,
        observation_us=observation_us,
        observation_nodes=OBSERVATION_NODES,
        memory_mb=memory,
        memory_states=states,
        vector=vector,
        text_us=text_us,
        worst_reply_ms=worst_ms,
        worst_reply=worst_what,
        coverage=coverage,
        derivation_ms=derivation_ms,
    )


def native_lines(workloads: List[WorkloadResult]) -> List[str]:
    """The lines that say how many batched steps the native kernel took per
    workload and, where not all, why."""
    shares = ", ".join(f"{w.env} {w.batched_native_fraction:.1%}" for w in workloads)
    lines = [f"batched steps taken by the native kernel: {shares}"]
    for w in workloads:
        if w.batched_native_reason is not None:
            lines.append(f"  {w.env}: no native steps: {w.batched_native_reason}")
        elif w.batched_native_fraction < 1.0:
            lines.append(
                f"  {w.env}: the other steps' expressions needed the Python path "
                "(a value check, a number beyond the native core's safe range, an "
                "oversize result)"
            )
    return lines


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
    print(
        header
        + f"{'us/step':>10}{'floor us':>10}{'x floor':>9}{f'batched x{BATCH_ENVS}':>14}"
        + f"{f'{BATCH_THREADS} threads':>11}",
        file=out,
    )
    for w in result.workloads:
        cells = "".join(f"{w.steps_per_second[t]:>17.0f}" for t in types)
        print(
            f"{w.env:22}{cells}{w.us_per_step:>10.1f}{w.floor_us_per_step:>10.1f}"
            f"{w.floor_multiple:>9.2f}{w.batched_steps_per_second:>14.0f}"
            f"{w.batched_threads_steps_per_second:>11.0f}",
            file=out,
        )
    print(
        f"(batched: {BATCH_ENVS} episodes stepped together by mathy_envs.batch.StepBatch, "
        f"flat observations; then the same with num_threads={BATCH_THREADS})",
        file=out,
    )
    for line in native_lines(result.workloads):
        print(line, file=out)
    print(file=out)
    if result.coverage:
        print(
            f"native share of batched steps / episode starts / problems drawn "
            f"({BATCH_ENVS} episodes, masked random play, flat observations):",
            file=out,
        )
        for line in coverage_lines(result.coverage):
            print(line, file=out)
        print(file=out)
    print(f"to_observation of a {result.observation_nodes}-node expression:", file=out)
    for name, micros in result.observation_us.items():
        print(f"  {name:16} {micros:8.1f} us", file=out)
    print(file=out)
    text = result.text_us
    print("text interface (mathy_envs.text), PolySimplify normal, per state:", file=out)
    for name, label in (
        ("step", "env step (get_next_state + mask)"),
        ("prompt", "prompt with its numbered moves"),
        ("verdict_accepted", "verdict: one valid move"),
        ("verdict_refused", "verdict: same value, not one move"),
    ):
        print(f"  {label:36} {text[name]:8.1f} us ({text[name] / text['step']:.1f} steps)", file=out)
    print(
        f"  slowest verdict on a hostile {MAX_REPLY_CHARS:,}-character reply: "
        f"{result.worst_reply_ms:.1f} ms ({result.worst_reply})",
        file=out,
    )
    if result.derivation_ms:
        millis = result.derivation_ms
        print(
            f"  a {DERIVATION_LINES}-line derivation, median: steps_per_line=None "
            f"{millis['None']:.1f} ms, =1 {millis['1']:.1f} ms (one move a line), "
            f"=3 {millis['3']:.1f} ms (three moves a line)",
            file=out,
        )
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


__all__ = (
    "WORST_REPLIES",
    "BatchedRun",
    "BenchResult",
    "Coverage",
    "WorkloadResult",
    "bench",
    "coverage_lines",
    "native_coverage",
    "native_lines",
    "play_batched",
    "run_bench",
    "worst_reply_millis",
)
