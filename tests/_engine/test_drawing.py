"""The native core's problem draws against the Python generators.

Every built-in env's generator asks the native core for its problem first
(`NativeFamily.draw`, from `mathy_envs._engine.drawing`) and draws in Python
where it gets none. The same seed must give the same problems either way, and
leave the env's random generator in the same state: here every env and
difficulty is drawn with the native core and with it switched off (the
engine's `NATIVE` set to None, which leaves every draw to Python), over many
seeds (the slow job takes more). Under `MATHY_ENVS_CORE=python` both runs are
Python's, and the test checks only that the Python path is whole.

The replay of numpy's draws underneath is compared with numpy itself, number
for number, on mixed scripts of floats, integers over small and large ranges,
and permutations.
"""

import threading
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest
from helpers import ENV_DIFFICULTY_CASES

from mathy_envs import MathyEnvProblemArgs, problems
from mathy_envs._engine import drawing
from mathy_envs._engine.admission import MOVE_LIMITS
from mathy_envs._engine.native import CORE
from mathy_envs.envs import ENV_TASKS, PolySimplify
from mathy_envs.types import MathyEnvDifficulty

native = pytest.importorskip("mathy_envs._native", reason="the native core is not built")

Draws = Tuple[List[Tuple[str, int]], Dict[str, Any]]


def draw(task: str, difficulty: MathyEnvDifficulty, seed: int, count: int, **kwargs: Any) -> Draws:
    """`count` problems of a seeded env of `task` (its `problem_fn`, as episodes
    start), and its generator's state after them."""
    env = ENV_TASKS[task](**kwargs)
    env.seed(seed)
    params = MathyEnvProblemArgs(difficulty=difficulty)
    made = [env.problem_fn(params) for _ in range(count)]
    return [(p.text, p.complexity) for p in made], env.np_random.bit_generator.state


def python_draw(
    monkeypatch: pytest.MonkeyPatch, task: str, difficulty: MathyEnvDifficulty, seed: int,
    count: int, **kwargs: Any,
) -> Draws:
    """`draw` with the native core's draws switched off."""
    with monkeypatch.context() as patch:
        patch.setattr(drawing, "NATIVE", None)
        return draw(task, difficulty, seed, count, **kwargs)


def compare(
    monkeypatch: pytest.MonkeyPatch, task: str, difficulty: MathyEnvDifficulty, seeds: range,
    count: int,
) -> None:
    for seed in seeds:
        expected = python_draw(monkeypatch, task, difficulty, seed, count)
        assert draw(task, difficulty, seed, count) == expected, (task, difficulty, seed)


@pytest.mark.parametrize("task, difficulty", ENV_DIFFICULTY_CASES)
def test_native_draws_are_the_python_generators(
    monkeypatch: pytest.MonkeyPatch, task: str, difficulty: MathyEnvDifficulty
) -> None:
    compare(monkeypatch, task, difficulty, range(40), 3)


@pytest.mark.slow
@pytest.mark.parametrize("task, difficulty", ENV_DIFFICULTY_CASES)
def test_native_draws_are_the_python_generators_over_many_seeds(
    monkeypatch: pytest.MonkeyPatch, task: str, difficulty: MathyEnvDifficulty
) -> None:
    compare(monkeypatch, task, difficulty, range(40, 1540), 4)


@pytest.mark.skipif(CORE != "native", reason="draws natively only on the native core")
@pytest.mark.parametrize("task", list(ENV_TASKS))
def test_every_built_in_generator_draws_natively(task: str) -> None:
    # The native core answers (`NativeFamily.draw` gives a problem) for every
    # env's own knobs, at every difficulty.
    module = __import__(ENV_TASKS[task].__module__, fromlist=["_NATIVE"])
    family: problems.NativeFamily = module._NATIVE
    env = ENV_TASKS[task]()
    env.seed(3)
    calls: List[int] = []
    real = family.draw

    def counted(*args: Any, **kwargs: Any) -> Any:
        made = real(*args, **kwargs)
        calls.append(made is not None)
        return made

    family.draw = counted  # type: ignore[method-assign]
    try:
        for difficulty in MathyEnvDifficulty:
            env.problem_fn(MathyEnvProblemArgs(difficulty=difficulty))
    finally:
        del family.draw
    assert calls == [True, True, True]


def test_user_operators_are_drawn_as_python_draws_them(monkeypatch: pytest.MonkeyPatch) -> None:
    for ops in (["+", "-"], ["-", "*", "+"], ["*"]):
        for seed in range(15):
            expected = python_draw(monkeypatch, "poly", MathyEnvDifficulty.normal, seed, 3, ops=ops)
            assert draw("poly", MathyEnvDifficulty.normal, seed, 3, ops=ops) == expected


def test_knobs_changed_in_place_are_read_at_each_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    # TERM_COUNTS is the env file's own dict: a change to it is a change of the
    # generator, which both paths read when they draw.
    from mathy_envs.envs import poly_simplify

    monkeypatch.setitem(poly_simplify.TERM_COUNTS, MathyEnvDifficulty.normal, (9, 12))
    for seed in range(10):
        expected = python_draw(monkeypatch, "poly", MathyEnvDifficulty.normal, seed, 2)
        got = draw("poly", MathyEnvDifficulty.normal, seed, 2)
        assert got == expected
        assert all(complexity >= 9 for _, complexity in got[0])


def test_a_draw_the_generator_refuses_leaves_the_generator_as_python_leaves_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # simplify_terms refuses fewer than 2 terms after the count was drawn: the
    # native core gives the draw back to Python, and the generator's state
    # after the error is the Python generator's.
    from mathy_envs.envs import poly_simplify

    monkeypatch.setitem(poly_simplify.TERM_COUNTS, MathyEnvDifficulty.normal, (1, 1))
    states = []
    for switched_off in (True, False):
        env = PolySimplify()
        env.seed(4)
        with monkeypatch.context() as patch:
            if switched_off:
                patch.setattr(drawing, "NATIVE", None)
            with pytest.raises(ValueError, match="at least 2 terms"):
                env.problem_fn(MathyEnvProblemArgs(difficulty=MathyEnvDifficulty.normal))
        states.append(env.np_random.bit_generator.state)
    assert states[0] == states[1]


def test_generators_on_other_bit_generators_draw_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    for bit_generator in (np.random.MT19937, np.random.Philox, np.random.SFC64):
        made = []
        for switched_off in (True, False):
            env = PolySimplify()
            env.np_random = np.random.Generator(bit_generator(8))
            with monkeypatch.context() as patch:
                if switched_off:
                    patch.setattr(drawing, "NATIVE", None)
                made.append([env.problem_fn(MathyEnvProblemArgs()).text for _ in range(5)])
        assert made[0] == made[1]


def test_a_generator_subclass_is_asked_for_its_draws() -> None:
    # Your Generator's methods run: the native core draws only from numpy's own.
    class Counting(np.random.Generator):
        calls = 0

        def random(self, *args: Any, **kwargs: Any) -> Any:
            Counting.calls += 1
            return super().random(*args, **kwargs)

    env = PolySimplify()
    env.np_random = Counting(np.random.PCG64(2))
    env.problem_fn(MathyEnvProblemArgs())
    assert Counting.calls > 0


def test_threads_drawing_from_their_own_envs_get_their_own_problems() -> None:
    expected = {seed: draw("poly", MathyEnvDifficulty.hard, seed, 60) for seed in range(4)}
    got: Dict[int, Draws] = {}

    def run(seed: int) -> None:
        got[seed] = draw("poly", MathyEnvDifficulty.hard, seed, 60)

    threads = [threading.Thread(target=run, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == expected


# -- numpy's draws, replayed ------------------------------------------------------------


def numpy_draws(rng: np.random.Generator, asked: List[Tuple[int, int, int]]) -> List[Any]:
    made: List[Any] = []
    for kind, a, b in asked:
        if kind == 0:
            made.append(float(rng.random()))
        elif kind == 1:
            made.append(int(rng.integers(a, b)))
        else:
            made.append([int(each) for each in rng.permutation(a)])
    return made


@pytest.mark.parametrize("seed", range(25))
def test_replayed_draws_are_numpys(seed: int) -> None:
    plan = np.random.default_rng(seed + 1000)
    asked: List[Tuple[int, int, int]] = []
    for _ in range(300):
        kind = int(plan.integers(3))
        low = int(plan.integers(-50, 50))
        span = int(plan.choice([1, 2, 3, 5, 12, 13, 100, 2**31 - 1, 2**31 + 7, 2**32 - 1, 2**32]))
        asked.append((kind, low if kind == 1 else int(plan.integers(0, 20)), low + span))
    expected_rng = np.random.default_rng(seed)
    replayed_rng = np.random.default_rng(seed)
    expected = numpy_draws(expected_rng, asked)
    with replayed_rng.bit_generator.lock:
        replayed = native.replay_draws(replayed_rng.bit_generator, asked)
    assert replayed == expected
    # ... and the generators go on alike (the 32-bit half numpy keeps included).
    assert replayed_rng.bit_generator.state == expected_rng.bit_generator.state
    assert replayed_rng.random() == expected_rng.random()


def test_draws_past_32_bits_are_not_replayed() -> None:
    rng = np.random.default_rng(0)
    first = np.random.default_rng(0).random()
    asked = [(0, 0, 0), (1, 0, 2**32 + 1), (0, 0, 0)]
    assert native.replay_draws(rng.bit_generator, asked) == [first, None]
    assert native.replay_draws(rng.bit_generator, [(1, 5, 5)]) == [None]
    # (a span past int64 included)
    assert native.replay_draws(rng.bit_generator, [(1, -(2**63), 2)]) == [None]


def test_the_replay_is_checked_against_numpy() -> None:
    assert drawing.replays_numpy() is (CORE == "native")


def test_draw_problem_checks_its_arguments() -> None:
    bit_generator = np.random.default_rng(0).bit_generator
    good: Dict[str, Any] = dict(
        bit_generator=bit_generator, family=0, counts=[4, 7], chances=[0.5, 0.66, 0.2], ops=["+"],
        variables=problems.VARIABLES, common_variables=problems.COMMON_VARIABLES,
        numbers=[12, 4, 100, 128], limits=list(MOVE_LIMITS),
    )
    assert native.draw_problem(**good) is not None
    for change, message in (
        ({"bit_generator": object()}, "one of numpy's bit generators"),
        # A capsule does not keep its bit generator alive: never taken alone.
        ({"bit_generator": bit_generator.capsule}, "one of numpy's bit generators"),
        # A subclass may define its capsule otherwise.
        ({"bit_generator": type("Mine", (np.random.PCG64,), {})(0)}, "one of numpy's"),
        ({"family": len(native.PROBLEM_FAMILIES)}, "no problem family"),
        ({"family": -1}, "no problem family"),
        ({"numbers": [12, 4, 100]}, "numbers must hold 4 values"),
        ({"limits": [1, 2]}, "limits"),
    ):
        with pytest.raises(ValueError, match=message):
            native.draw_problem(**{**good, **change})


def test_knobs_out_of_the_native_range_are_left_to_python() -> None:
    rng = np.random.default_rng(0)
    capsule = rng.bit_generator
    base: Dict[str, Any] = dict(
        family=0, counts=[4, 7], chances=[0.5, 0.66, 0.2], ops=["+"],
        variables=problems.VARIABLES, common_variables=problems.COMMON_VARIABLES,
        numbers=[12, 4, 100, 128], limits=list(MOVE_LIMITS),
    )
    with rng.bit_generator.lock:
        assert native.draw_problem(capsule, **base) is not None
    for change in (
        {"counts": [4, 100_000]},          # more terms than the native core draws
        {"counts": [7, 4]},                # numpy refuses low > high
        {"chances": [0.5]},                # a knob missing
        {"ops": []},                       # simplify_terms refuses no operator
        {"ops": ["+" * 40]},               # an operator past the native core's length
        {"variables": "ab1"},              # variables that are not letters
        {"numbers": [1, 4, 100, 128]},     # a coefficient range numpy refuses
        {"numbers": [12, 4, 0, 128]},      # no attempts: retry raises
    ):
        with rng.bit_generator.lock:
            assert native.draw_problem(capsule, **{**base, **change}) is None, change
