"""The reasoning-gym datasets, with reasoning-gym installed (CI's language-model
lane installs it): created by name, reproducible, scored by the derivation
scorer."""

import pytest

reasoning_gym = pytest.importorskip("reasoning_gym")

import mathy_envs.text.reasoning_gym as adapter  # noqa: E402
from mathy_envs.envs import ENV_TASKS, ComplexSimplify, PolySimplify  # noqa: E402


@pytest.mark.parametrize("name", sorted(adapter.DATASET_NAMES))
def test_every_env_is_a_dataset_whose_answers_score_one(name: str) -> None:
    data = reasoning_gym.create_dataset(name, seed=42, size=4)
    assert len(data) == 4
    env_class = ENV_TASKS[adapter.DATASET_NAMES[name]]
    for index, entry in enumerate(data):
        assert set(entry) >= {"question", "answer", "metadata"}
        metadata = entry["metadata"]
        assert metadata["source_dataset"] == name and metadata["source_index"] == index
        assert metadata["env"] == env_class.__name__
        assert metadata["problem"] in entry["question"]
        # "auto": free rewrites for the simplify tasks, three checked moves a
        # line where free rewrites could plant terms of their own.
        assert metadata["steps_per_line"] == (None if env_class.free_derivations else 3)
        assert entry["answer"].splitlines()[0] == metadata["problem"]
        if metadata["reference_solved"]:
            assert data.score_answer(entry["answer"], entry) == 1.0
            # One valid move a line: the reference scores at every grain.
            for grain in (1, 2):
                graded = dict(entry, metadata=dict(metadata, steps_per_line=grain))
                assert data.score_answer(entry["answer"], graded) == 1.0
        assert data.score_answer(None, entry) == 0.0
        assert data.score_answer("I give up", entry) == 0.0


def test_the_same_seed_gives_the_same_entries() -> None:
    first = reasoning_gym.create_dataset("mathy_poly_simplify", seed=7, size=5, difficulty="normal")
    again = reasoning_gym.create_dataset("mathy_poly_simplify", seed=7, size=5, difficulty="normal")
    other = reasoning_gym.create_dataset("mathy_poly_simplify", seed=8, size=5, difficulty="normal")
    assert list(first) == list(again) and list(first) != list(other)
    assert first[3] == again[3]


def test_an_unfinished_derivation_or_the_final_line_alone_scores_zero() -> None:
    data = reasoning_gym.create_dataset("mathy_poly_simplify", seed=1, size=3, steps_per_line=1)
    entry = next(e for e in data if len(e["answer"].splitlines()) >= 3)
    assert "exactly one rewrite" in entry["question"] and entry["metadata"]["steps_per_line"] == 1
    lines = entry["answer"].splitlines()
    assert data.score_answer("\n".join(lines[:-1]), entry) == 0.0
    assert data.score_answer(lines[-1], entry) == 0.0
    assert data.score_answer("\n".join(lines[1:]), entry) == 1.0  # the problem not restated


def test_by_default_a_line_may_make_any_number_of_rewrites() -> None:
    data = reasoning_gym.create_dataset("mathy_poly_simplify", seed=1, size=3)
    entry = next(e for e in data if len(e["answer"].splitlines()) >= 3)
    assert "any number of rewrites" in entry["question"]
    lines = entry["answer"].splitlines()
    assert data.score_answer("\n".join(lines[:-1]), entry) == 0.0  # not at the goal
    assert data.score_answer(lines[-1], entry) == 1.0  # the goal, written at once
    assert data.score_answer(f"<answer>\n{lines[0]} = {lines[-1]}\n</answer>", entry) == 1.0
    with pytest.raises(ValueError, match="steps_per_line must be"):
        reasoning_gym.create_dataset("mathy_poly_simplify", steps_per_line=9)


def test_bad_configs_and_names() -> None:
    with pytest.raises(ValueError, match="difficulty must be one of"):
        reasoning_gym.create_dataset("mathy_poly_simplify", difficulty="extreme")
    with pytest.raises(TypeError):
        reasoning_gym.create_dataset("mathy_poly_simplify", colour="blue")
    with pytest.raises(ValueError, match="already named"):
        adapter.register("mathy_poly_simplify", ComplexSimplify)
    with pytest.raises(IndexError):
        reasoning_gym.create_dataset("mathy_poly_simplify", size=2)[2]


def test_a_users_env_registers_under_its_own_name() -> None:
    class Mine(PolySimplify):
        """Simplify my polynomials."""

    adapter.register("my_poly", Mine)
    adapter.register("my_poly", Mine)  # the same again: nothing to do
    entry = reasoning_gym.create_dataset("my_poly", seed=0, size=1)[0]
    assert entry["metadata"]["env"] == "Mine"
    assert entry["question"].startswith("Task: Simplify my polynomials.")
