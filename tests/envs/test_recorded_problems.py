"""Every built-in env draws exactly the problems it drew when they were recorded
(`tests/data/problem_digests.json`, written before generation was made fast).

A cell is an env (an `ENV_TASKS` task, or a generator with fixed knobs) at a
difficulty. For each seed of the cell the env is reseeded (`env.seed(seed)`) and
draws `DRAWS` problems in a row with `fitting_initial_state`, as `StepBatch`
does; each draw gives a line (text, complexity, problem type, the state's
`max_moves`), and after the draws the line of the generator's state (so a
generator that drew the same problems but used its random numbers differently
is caught too). The file keeps the sha256 of the lines of each cell and the first
lines in plain text (for a readable failure). The default run replays `SEEDS`;
the slow job (`pytest -m slow`) `SLOW_SEEDS` more.

After a change that is meant to change the problems, write the file again and
review its diff:

    python tests/envs/test_recorded_problems.py
"""

import hashlib
import json
import sys
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Tuple

import numpy as np
import pytest

from mathy_envs.env import MathyEnv
from mathy_envs.envs import ENV_TASKS, PolySimplify
from mathy_envs.envs.binomial_distribute import (
    STYLES,
    binomial_times_binomial,
    binomial_times_monomial,
)
from mathy_envs.envs.complex_simplify import complex_product
from mathy_envs.envs.poly_combine_in_place import combine_in_place
from mathy_envs.envs.poly_commute_like_terms import commute_like_terms
from mathy_envs.envs.poly_group_like_terms import group_like_terms
from mathy_envs.envs.poly_haystack_like_terms import haystack_like_terms
from mathy_envs.envs.poly_simplify import simplify_terms
from mathy_envs.envs.poly_simplify_blockers import commute_blockers
from mathy_envs.problems import GeneratedProblem, join_terms, rand_unlike_terms
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs

RECORD = Path(__file__).resolve().parent.parent / "data" / "problem_digests.json"
SEEDS = range(100)
"""Seeds of the default run."""
SLOW_SEEDS = range(100, 3100)
"""Seeds of the slow job."""
DRAWS = 2
"""Problems drawn in a row after each reseed."""
SHOWN = 4
"""Lines of each cell kept in plain text."""

HARD = STYLES[MathyEnvDifficulty.hard]


def _primitives(rng: np.random.Generator) -> GeneratedProblem:
    terms, _ = rand_unlike_terms(rng, 5, constant_probability=0.5, coefficient_probability=0.5)
    return GeneratedProblem(join_terms(rng, terms, ("+", "-", "*"), 0.5), 5)


GENERATORS: Dict[str, Callable[[np.random.Generator], GeneratedProblem]] = {
    "simplify_terms-ops": lambda rng: simplify_terms(rng, 6, ops=("+", "-", "*")),
    "simplify_terms-2": lambda rng: simplify_terms(rng, 2, parenthesize_probability=0.9),
    "commute_blockers-1": lambda rng: commute_blockers(rng, 1),
    "combine_in_place-3": lambda rng: combine_in_place(rng, 3),
    "commute_like_terms-noise": lambda rng: commute_like_terms(rng, 2, max_noise=4),
    "group_like_terms-3": lambda rng: group_like_terms(rng, 3),
    "haystack_like_terms-2": lambda rng: haystack_like_terms(rng, 2),
    "complex_product-2": lambda rng: complex_product(rng, 2),
    "binomial_times_binomial-hard": lambda rng: binomial_times_binomial(rng, HARD),
    "binomial_times_monomial-hard": lambda rng: binomial_times_monomial(rng, HARD),
    "primitives": _primitives,
}
"""Generators called directly, with knobs the envs do not use."""

ENVS: Dict[str, Callable[[], MathyEnv]] = {
    **{task: cls for task, cls in ENV_TASKS.items()},
    "poly-ops": lambda: PolySimplify(ops=["+", "-"]),
}
"""The envs of the cells: the registry, and one env with its own knobs."""

CELLS: List[str] = [
    *(f"{task}/{d.value}" for task in ENVS for d in MathyEnvDifficulty),
    *(f"generator/{name}" for name in GENERATORS),
]


def _rng_line(rng: np.random.Generator) -> str:
    state = rng.bit_generator.state
    return f"rng {state['state']['state']} {state['has_uint32']} {state['uinteger']}"


def cell_lines(cell: str, seeds: Iterable[int]) -> List[str]:
    """The lines of `cell` over `seeds` (see the module's docstring)."""
    kind, name = cell.split("/")
    lines: List[str] = []
    if kind == "generator":
        generator = GENERATORS[name]
        for seed in seeds:
            rng = np.random.default_rng(seed)
            for _ in range(DRAWS):
                text, complexity = generator(rng)
                lines.append(f"{text}\t{complexity}")
            lines.append(_rng_line(rng))
        return lines
    env = ENVS[kind]()
    params = MathyEnvProblemArgs(MathyEnvDifficulty(name))
    for seed in seeds:
        env.seed(seed)
        for _ in range(DRAWS):
            state, problem = env.fitting_initial_state(params)
            assert state.agent.problem == problem.text
            lines.append(
                f"{problem.text}\t{problem.complexity}\t{problem.type}\t{state.max_moves}"
            )
        lines.append(_rng_line(env.np_random))
    return lines


def digest(lines: List[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def record(seeds: Iterable[int]) -> Dict[str, Dict[str, object]]:
    cells: Dict[str, Dict[str, object]] = {}
    for cell in CELLS:
        lines = cell_lines(cell, seeds)
        cells[cell] = {"sha256": digest(lines), "first": lines[:SHOWN], "lines": len(lines)}
    return cells


def _recorded() -> Dict[str, Dict[str, Dict[str, object]]]:
    data: Dict[str, Dict[str, Dict[str, object]]] = json.loads(RECORD.read_text())
    return data


def _check(cell: str, seeds: range, part: str) -> None:
    expected = _recorded()[part][cell]
    lines = cell_lines(cell, seeds)
    assert lines[:SHOWN] == expected["first"]
    assert len(lines) == expected["lines"]
    assert digest(lines) == expected["sha256"], (
        f"{cell}: the problems of seeds {seeds.start}-{seeds.stop - 1} changed "
        f"(rewrite {RECORD.name} with `python tests/envs/test_recorded_problems.py` "
        "only if that is meant)"
    )


def test_record_covers_every_env_and_difficulty() -> None:
    recorded = _recorded()
    assert recorded["seeds"] == [SEEDS.start, SEEDS.stop]
    assert recorded["slow_seeds"] == [SLOW_SEEDS.start, SLOW_SEEDS.stop]
    assert recorded["draws"] == DRAWS
    expected = {f"{task}/{d.value}" for task in ENV_TASKS for d in MathyEnvDifficulty}
    assert expected <= set(recorded["default"]) == set(CELLS)
    assert set(recorded["slow"]) == set(CELLS)


def test_a_changed_problem_changes_the_digest() -> None:
    lines = cell_lines("poly/easy", range(2))
    assert len(lines) == 2 * (DRAWS + 1)
    changed = [lines[0].replace("+", "-", 1)] + lines[1:]
    assert digest(changed) != digest(lines)
    # the generator's state after the draws is part of the cell
    env = PolySimplify()
    env.seed(0)
    env.fitting_initial_state(MathyEnvProblemArgs())
    before = _rng_line(env.np_random)
    env.np_random.random()
    assert _rng_line(env.np_random) != before


@pytest.mark.parametrize("cell", CELLS)
def test_problems_match_the_record(cell: str) -> None:
    _check(cell, SEEDS, "default")


@pytest.mark.slow
@pytest.mark.parametrize("cell", CELLS)
def test_more_problems_match_the_record(cell: str) -> None:
    _check(cell, SLOW_SEEDS, "slow")


def _write() -> Tuple[int, int]:
    data = {
        "seeds": [SEEDS.start, SEEDS.stop],
        "slow_seeds": [SLOW_SEEDS.start, SLOW_SEEDS.stop],
        "draws": DRAWS,
        "default": record(SEEDS),
        "slow": record(SLOW_SEEDS),
    }
    RECORD.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return len(data["default"]), len(data["slow"])  # type: ignore[arg-type]


if __name__ == "__main__":
    cells, slow_cells = _write()
    print(f"wrote {RECORD} ({cells} cells, {slow_cells} slow cells)", file=sys.stderr)
