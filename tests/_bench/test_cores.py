"""`mathy-envs bench`'s several-cores part: one process, independent processes
and an AsyncVectorEnv, each timed in spawned processes over the same window."""

import time
from typing import Any, Dict, List, Optional, Tuple

import pytest

from mathy_envs._bench.cores import vector_scaling


@pytest.mark.slow
def test_measures_one_process_independent_processes_and_a_vector_env() -> None:
    result = vector_scaling(0.2)
    assert result is not None and result.workers == 2
    assert result.single_steps_per_second > 0
    assert result.processes_steps_per_second > 0
    assert result.vector_steps_per_second > 0
    assert result.processes_speedup == pytest.approx(
        result.processes_steps_per_second / result.single_steps_per_second
    )
    assert result.speedup == pytest.approx(
        result.vector_steps_per_second / result.single_steps_per_second
    )


def test_several_cores_numbers_are_medians_of_their_rounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import mathy_envs._bench.cores as cores_module

    # one process on core 0, two processes, one process on core 1, in each of three rounds
    lone = iter([800.0, 1000.0, 1000.0, 1000.0, 3000.0, 3000.0])
    pairs = iter([1700.0, 2000.0, 1900.0])
    vectors = iter([500.0, 700.0, 600.0])
    asked: List[Tuple[float, int, Optional[List[Optional[int]]]]] = []

    def processes(
        seconds: float, workers: int, cores: Optional[List[Optional[int]]] = None, seed: int = 0
    ) -> float:
        assert seed == 7
        asked.append((seconds, workers, cores))
        return next(lone) if workers == 1 else next(pairs)

    monkeypatch.setattr(cores_module, "_lone_cores", lambda workers: [0, 1])
    monkeypatch.setattr(cores_module, "independent_processes", processes)
    monkeypatch.setattr(cores_module, "_async_vector_rate", lambda seconds, workers, seed: next(vectors))
    result = vector_scaling(2.5, repeats=3, seed=7)
    assert result is not None
    assert asked == [(2.5, 1, [0]), (2.5, 2, [0, 1]), (2.5, 1, [1])] * 3
    assert result.single_steps_per_second == 1000.0  # median of 900, 1000, 3000
    assert result.processes_steps_per_second == 1900.0
    assert result.vector_steps_per_second == 600.0
    assert result.processes_speedup == pytest.approx(1.9)
    assert result.speedup == pytest.approx(0.6)


def test_masked_random_player_plays_whole_slices_for_the_time_asked() -> None:
    from mathy_envs._bench.cores import _SLICE, _MaskedRandomPlayer

    player = _MaskedRandomPlayer(seed=3)
    steps, elapsed = player.play_for(0.05)
    player.close()
    assert steps > 0 and steps % _SLICE == 0
    assert elapsed >= 0.05


def test_vector_rate_does_not_count_steps_that_only_reset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import numpy as np

    import mathy_envs._bench.cores as cores_module

    class FakeClock:
        now = 0.0

        def perf_counter(self) -> float:
            self.now += 1.0
            return self.now

    class FakeVector:
        """Sub-env 0 ends an episode at steps 19 (the last of the warm-up) and
        50; with next-step autoreset, its steps 20 and 51 only reset it.
        Sub-env 1 never ends."""

        def __init__(self, fns: List[object], context: str, autoreset_mode: object) -> None:
            assert context == "spawn" and autoreset_mode == gymnasium.vector.AutoresetMode.NEXT_STEP
            self.index = 0
            self.closed_with: List[bool] = []

        def reset_async(self, seed: int) -> None:
            pass

        def reset_wait(self, timeout: float) -> Tuple[None, Dict[str, np.ndarray]]:
            return None, {"action_mask": np.ones((2, 3), dtype=bool)}

        def step_async(self, actions: np.ndarray) -> None:
            pass

        def step_wait(self) -> Tuple[object, ...]:
            terminated = np.array([self.index in (19, 50), False])
            self.index += 1
            infos = {"action_mask": np.ones((2, 3), dtype=bool)}
            return None, np.zeros(2), terminated, np.zeros(2, dtype=bool), infos

        def close(self) -> None:
            pass

    import gymnasium

    monkeypatch.setattr(cores_module, "time", FakeClock())
    monkeypatch.setattr(gymnasium.vector, "AsyncVectorEnv", FakeVector)
    # The clock ticks one second per reading: the warm-up ends after the first
    # slice of 20 steps, then four slices (steps 20 to 99) make the 4 seconds
    # timed: 160 sub-env steps, of which steps 20 and 51 of sub-env 0 only reset.
    assert cores_module._async_vector_rate(4.0, 2) == pytest.approx(158 / 4)


@pytest.mark.slow
def test_vector_rate_raises_and_cleans_up_when_a_worker_dies() -> None:
    import multiprocessing
    import os
    import signal
    import threading

    import gymnasium

    import mathy_envs._bench.cores as cores_module

    vectors: List[Any] = []
    real: Any = gymnasium.vector.AsyncVectorEnv

    def recording(*args: Any, **kwargs: Any) -> Any:
        vector = real(*args, **kwargs)
        vectors.append(vector)
        return vector

    def kill_a_worker() -> None:
        while not vectors:
            time.sleep(0.05)
        time.sleep(1.0)  # inside the warm-up or the timed window
        os.kill(vectors[0].processes[0].pid, signal.SIGKILL)

    raised: List[BaseException] = []

    def measure() -> None:
        try:
            cores_module._async_vector_rate(30.0, 2)
        except BaseException as error:
            raised.append(error)

    patch = pytest.MonkeyPatch()
    patch.setattr(gymnasium.vector, "AsyncVectorEnv", recording)
    try:
        threading.Thread(target=kill_a_worker, daemon=True).start()
        thread = threading.Thread(target=measure, daemon=True)
        thread.start()
        thread.join(120)
    finally:
        patch.undo()
    assert not thread.is_alive(), "the vector benchmark hung after a worker died"
    assert len(raised) == 1 and isinstance(raised[0], RuntimeError), raised
    assert "AsyncVectorEnv benchmark failed" in str(raised[0])
    vector = vectors[0]
    assert vector.closed
    assert not any(p.is_alive() for p in vector.processes)
    assert not [p for p in multiprocessing.active_children() if p in vector.processes]


def test_worker_failure_is_raised_not_waited_for() -> None:
    import threading

    from mathy_envs._bench.cores import independent_processes

    raised: List[BaseException] = []

    def measure() -> None:
        try:
            independent_processes(0.1, 2, env_id="mathy-nope-v0")
        except BaseException as error:
            raised.append(error)

    thread = threading.Thread(target=measure, daemon=True)
    thread.start()
    thread.join(120)  # a worker's start takes about a second
    assert not thread.is_alive(), "independent_processes hung after a worker failed"
    assert len(raised) == 1 and isinstance(raised[0], RuntimeError)
    assert "mathy-nope" in str(raised[0])
