"""What every problem generator promises, checked over all of them: a generator
is a plain function of a `numpy.random.Generator` and its knobs, the same seed
gives the same problems (in every process), only the given generator is drawn
from, and impossible knobs raise.

The generators live beside their envs (`mathy_envs/envs/<env>.py`); each one's
own family tests are in `tests/envs/test_<env>.py`, the shared primitives'
in `tests/test_problems.py`.

Each registered env's generator, `<file>_problem(rng, params)` in its own file, is
found from `ENV_TASKS` and checked below: the env's `problem_fn` draws exactly what
it draws, and it can be any env's `generator=`.
"""

import json
import random
import sys
from typing import Callable, Dict, List, Tuple

import numpy as np
import pytest
from helpers import REPO, run_python

from mathy_envs.envs import ENV_TASKS
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
from mathy_envs.problems import GeneratedProblem
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs

HARD = STYLES[MathyEnvDifficulty.hard]


Generator = Callable[[np.random.Generator], GeneratedProblem]

# every generator with fixed knobs
GENERATORS: Dict[str, Generator] = {
    "simplify_terms": lambda rng: simplify_terms(rng, 6),
    "simplify_terms-ops": lambda rng: simplify_terms(rng, 5, ops=("+", "-")),
    "commute_blockers": lambda rng: commute_blockers(rng, 3),
    "combine_in_place": lambda rng: combine_in_place(rng, 10),
    "commute_like_terms": lambda rng: commute_like_terms(rng, 3),
    "group_like_terms": lambda rng: group_like_terms(rng, 8),
    "haystack_like_terms": lambda rng: haystack_like_terms(rng, 6),
    "complex_product": lambda rng: complex_product(rng, 4),
    "binomial_times_binomial": lambda rng: binomial_times_binomial(rng),
    "binomial_times_binomial-hard": lambda rng: binomial_times_binomial(rng, HARD),
    "binomial_times_monomial": lambda rng: binomial_times_monomial(rng),
    "binomial_times_monomial-hard": lambda rng: binomial_times_monomial(rng, HARD),
}


def sequence(name: str, seed: int, count: int = 15) -> List[Tuple[str, int]]:
    rng = np.random.default_rng(seed)
    return [tuple(GENERATORS[name](rng)) for _ in range(count)]  # type: ignore[misc]


# -- plain seeded functions ------------------------------------------------------------


@pytest.mark.parametrize("name", list(GENERATORS))
def test_same_seed_same_problems(name: str) -> None:
    first = sequence(name, 5)
    assert sequence(name, 5) == first
    assert sequence(name, 6) != first
    assert len(set(first)) > 1  # the generator advances
    problem = GENERATORS[name](np.random.default_rng(5))
    assert isinstance(problem, GeneratedProblem)
    text, complexity = problem
    assert isinstance(text, str) and isinstance(complexity, int)
    assert (text, complexity) == first[0]


@pytest.mark.parametrize("name", list(GENERATORS))
def test_only_the_given_generator_is_used(name: str) -> None:
    expected = sequence(name, 9)
    random.seed(1)
    np.random.seed(1)
    before = (random.getstate(), np.random.get_state())
    # interleave another generator's draws and reseed the global ones on the way
    rng, other = np.random.default_rng(9), np.random.default_rng(10)
    got = []
    for index in range(len(expected)):
        GENERATORS[name](other)
        got.append(tuple(GENERATORS[name](rng)))
        if index == 7:
            after = (random.getstate(), np.random.get_state())
            assert after[0] == before[0]
            assert all(np.array_equal(a, b) for a, b in zip(before[1], after[1]))
            random.seed(2)
            np.random.seed(2)
    assert got == expected


REPRO_CODE = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
from envs.test_generators import GENERATORS
print(json.dumps({{
    name: [list(make(rng)) for rng in [np.random.default_rng(3)] for _ in range(10)]
    for name, make in GENERATORS.items()
}}))
"""


def repro() -> Dict[str, List[List[object]]]:
    return {
        name: [list(make(rng)) for rng in [np.random.default_rng(3)] for _ in range(10)]
        for name, make in GENERATORS.items()
    }


@pytest.mark.parametrize("hash_seed", ["0", "1", "31337"])
def test_same_seed_same_problems_in_every_process(hash_seed: str) -> None:
    code = REPRO_CODE.format(tests=str(REPO / "tests"))
    result = run_python("-c", code, hash_seed=hash_seed, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == repro()


@pytest.mark.parametrize(
    "make",
    [
        lambda rng: simplify_terms(rng, 1),  # no room for a like pair
        lambda rng: simplify_terms(rng, 4, ops=()),
        lambda rng: commute_like_terms(rng, 0),  # an adjacent pair factors at once
        lambda rng: group_like_terms(rng, 2),  # two terms are always grouped
        lambda rng: haystack_like_terms(rng, 1),  # no room for a like pair
        lambda rng: complex_product(rng, 1),  # one factor is already simple
    ],
)
def test_impossible_knobs_raise(make: Generator) -> None:
    with pytest.raises(ValueError):
        make(np.random.default_rng(0))


# -- every registered env's generator: `<file>_problem(rng, params)` ------------------


def problem_generator(task: str) -> Callable[..., MathyEnvProblem]:
    """The plain generator function of a registered env: `<file>_problem` in the
    env's own file (`mathy_envs/envs/<file>.py`)."""
    env_class = ENV_TASKS[task]
    module = sys.modules[env_class.__module__]
    name = f"{env_class.__module__.rsplit('.', 1)[-1]}_problem"
    generator = getattr(module, name, None)
    if generator is None:
        pytest.fail(
            f"{env_class.__name__} (task {task!r}) has no generator function: define "
            f"{name}(rng, params) in {module.__file__} and have problem_fn call it "
            "with self.np_random"
        )
    assert callable(generator)
    return generator  # type: ignore[no-any-return]


TASKS = list(ENV_TASKS)
DIFFICULTIES = list(MathyEnvDifficulty)


@pytest.mark.parametrize("task", TASKS)
def test_every_env_has_a_plain_generator_in_its_file(task: str) -> None:
    generator = problem_generator(task)
    module = sys.modules[ENV_TASKS[task].__module__]
    assert generator.__module__ == module.__name__
    assert generator.__name__ in module.__all__


@pytest.mark.parametrize("difficulty", DIFFICULTIES, ids=lambda d: d.value)
@pytest.mark.parametrize("task", TASKS)
def test_problem_fn_draws_what_the_generator_draws(
    task: str, difficulty: MathyEnvDifficulty
) -> None:
    """The class's problem_fn is the generator called with `np_random`: the same
    problems, in the same order, from the same seed."""
    generator = problem_generator(task)
    params = MathyEnvProblemArgs(difficulty)
    env = ENV_TASKS[task](seed=17)
    from_env = [env.problem_fn(params) for _ in range(6)]
    rng = np.random.default_rng(17)
    from_function = [generator(rng, params) for _ in range(6)]
    assert from_function == from_env
    assert len({problem.text for problem in from_env}) > 1
    for problem in from_env:
        assert isinstance(problem, MathyEnvProblem)
        assert problem.type == env.get_env_namespace()


@pytest.mark.parametrize("task", TASKS)
def test_a_generator_draws_from_its_rng_only(task: str) -> None:
    generator = problem_generator(task)
    params = MathyEnvProblemArgs(MathyEnvDifficulty.normal)
    fresh = np.random.default_rng(4)
    expected = [generator(fresh, params) for _ in range(5)]
    random.seed(1)
    np.random.seed(1)
    before = (random.getstate(), np.random.get_state())
    rng, other = np.random.default_rng(4), np.random.default_rng(5)
    got = []
    for _ in range(5):
        generator(other, params)
        got.append(generator(rng, params))
    after = (random.getstate(), np.random.get_state())
    assert after[0] == before[0]
    assert all(np.array_equal(a, b) for a, b in zip(before[1], after[1]))
    assert got == expected


@pytest.mark.parametrize(
    "rng, params, namespace, message",
    [
        (None, MathyEnvProblemArgs(), "ns", "draws from a numpy.random.Generator"),
        (7, MathyEnvProblemArgs(), "ns", "got int 7"),
        (np.random.RandomState(0), MathyEnvProblemArgs(), "ns", "got RandomState"),
        ("np", MathyEnvProblemArgs(), "ns", "got str 'np'"),
        (np.random.default_rng(0), "easy", "ns", "params must be MathyEnvProblemArgs, got str 'easy'"),
        (np.random.default_rng(0), None, "ns", "params must be MathyEnvProblemArgs, got NoneType"),
        (np.random.default_rng(0), MathyEnvProblemArgs(), 5, "namespace must be a str"),
    ],
)
@pytest.mark.parametrize("task", TASKS)
def test_bad_generator_arguments_are_value_errors(
    task: str, rng: object, params: object, namespace: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        problem_generator(task)(rng, params, namespace=namespace)


@pytest.mark.parametrize("task", TASKS)
def test_every_env_class_takes_a_generator_at_construction(task: str) -> None:
    """A `generator=` replaces the class's problem_fn, drawing from `np_random`;
    any env's generator function is one."""
    env_class = ENV_TASKS[task]
    drawn: List[np.random.Generator] = []

    def fixed(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        drawn.append(rng)
        return MathyEnvProblem("4x + 2y + 2x", 3, "mathy.test.fixed")

    env = env_class(generator=fixed, seed=2)
    state, problem = env.get_initial_state(print_problem=False)
    assert problem == MathyEnvProblem("4x + 2y + 2x", 3, "mathy.test.fixed")
    assert state.agent.problem == "4x + 2y + 2x"
    assert drawn == [env.np_random]
    # another env's generator function: its problems, drawn from this env's seed
    other_task = TASKS[(TASKS.index(task) + 1) % len(TASKS)]
    borrowed = env_class(generator=problem_generator(other_task), seed=8)
    reference = ENV_TASKS[other_task](seed=8)
    for _ in range(3):
        assert (
            borrowed.get_initial_state(print_problem=False)[1]
            == reference.get_initial_state(print_problem=False)[1]
        )
    # the class and other instances keep their own problems
    assert env_class(seed=2).get_initial_state(print_problem=False)[1] != problem
