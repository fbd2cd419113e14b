"""`mathy_envs.expert`: the swarm planner's solutions as expert rows, and their
Parquet files (also through `mathy-envs dataset`).

Every row is checked against an independent replay of its trajectory with
`get_next_state` on a second env: expression, mask, reward, end and action
index; a trajectory ends in a win; the same arguments give the same rows.
"""

import io
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

from mathy_envs import MathyEnvProblem, MathyEnvProblemArgs
from mathy_envs.cli import main
from mathy_envs.envs import ENV_TASKS, PolySimplify
from mathy_envs.expert import COLUMNS, FILE_NAME, ExpertData, expert_steps, write_parquet
from mathy_envs.swarm import SwarmConfig
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import MathyEnvDifficulty

pq = pytest.importorskip("pyarrow.parquet")


def _by_problem(data: ExpertData) -> Dict[int, List[Any]]:
    grouped: Dict[int, List[Any]] = defaultdict(list)
    for row in data.steps:
        grouped[row.problem_id].append(row)
    return grouped


@pytest.mark.parametrize("mask_revisits", [True, False])
@pytest.mark.parametrize("task", ["poly", "complex", "binomial", "poly-commute"])
def test_every_row_is_a_move_of_a_won_episode(task: str, mask_revisits: bool) -> None:
    env, reference = ENV_TASKS[task](), ENV_TASKS[task]()
    data = expert_steps(env, 6, seed=2, mask_revisits=mask_revisits)
    assert data.problems == 6 and 1 <= data.solved <= 6
    grouped = _by_problem(data)
    assert len(grouped) == data.solved
    length = reference.max_seq_len
    for problem_id, rows in grouped.items():
        assert 0 <= problem_id < 6
        assert [row.step for row in rows] == list(range(len(rows)))
        state = reference.state_from_text(rows[0].problem, rows[0].max_moves)
        for row in rows:
            assert row.expression == state.agent.problem
            assert row.moves_remaining == state.agent.moves_remaining
            moves = (
                reference.least_visited_moves_array(state)
                if mask_revisits
                else reference.valid_moves_array(state)
            )
            expected = np.zeros((len(reference.rules), length), np.int8)
            expected[:, : moves.shape[1]] = moves
            assert row.mask.dtype == np.int8
            assert row.mask.tobytes() == expected.reshape(-1).tobytes()
            assert row.action == row.rule_index * length + row.node
            assert row.mask[row.action] == 1
            assert row.rule == reference.rules[row.rule_index].name
            state, step, _ = reference.get_next_state(state, (row.rule_index, row.node))
            assert row.reward == float(step.reward)
            assert row.done == is_terminal_transition(step)
        assert rows[-1].done and rows[-1].reward > 0  # a win
        assert not any(row.done for row in rows[:-1])


@pytest.mark.parametrize("task", ["complex", "binomial"])
def test_trajectories_never_return_to_an_expression(task: str) -> None:
    # The planner's solutions of these problems take moves that leave the text
    # as it is (commuting `3 + 3`); the rows have those loops cut out.
    env = ENV_TASKS[task]()
    planned = 0
    for rows in _by_problem(expert_steps(env, 6, seed=2)).values():
        state = env.state_from_text(rows[0].problem, rows[0].max_moves)
        seen = [state.agent.problem]
        for row in rows:
            state, _, _ = env.get_next_state(state, (row.rule_index, row.node))
            assert state.agent.problem not in seen
            seen.append(state.agent.problem)
        planned += len(rows)
    assert planned > 0


def test_the_same_arguments_give_the_same_rows() -> None:
    def rows(seed: int) -> List[Any]:
        data = expert_steps(PolySimplify(), 5, seed=seed)
        return [row._replace(mask=row.mask.tobytes()) for row in data.steps]

    assert rows(7) == rows(7)
    assert rows(7) != rows(8)


def test_problems_are_those_of_the_seeded_generator() -> None:
    env, reference = PolySimplify(), PolySimplify()
    data = expert_steps(env, 4, seed=11, params=MathyEnvProblemArgs(MathyEnvDifficulty.normal))
    reference.seed(11)
    drawn = [
        reference.fitting_initial_state(MathyEnvProblemArgs(MathyEnvDifficulty.normal))[0]
        for _ in range(4)
    ]
    for problem_id, rows in _by_problem(data).items():
        assert rows[0].problem == drawn[problem_id].agent.problem
        assert rows[0].max_moves == drawn[problem_id].max_moves


def test_a_users_env_and_unsolved_problems() -> None:
    """Any MathyEnv works; a planner that gives up at once solves nothing and
    the data has no rows (the counts say so)."""

    def pairs(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        a, b = (int(n) for n in rng.integers(2, 9, size=2))
        return MathyEnvProblem(f"{a}x + {b}x", 2, "mathy.example.pairs")

    env = PolySimplify(generator=pairs)
    solved = expert_steps(env, 3, seed=0)
    assert solved.solved == 3 and all(row.problem.endswith("x") for row in solved.steps)
    nothing = expert_steps(env, 3, seed=0, config=SwarmConfig(max_steps=1))
    assert (nothing.problems, nothing.solved, nothing.steps) == (3, 0, [])


def test_progress_counts_the_problems() -> None:
    seen: List[int] = []
    expert_steps(PolySimplify(), 3, seed=0, progress=seen.append)
    assert seen == [1, 2, 3]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"env": "poly"}, "env must be a MathyEnv"),
        ({"count": 0}, "count must be an int"),
        ({"count": True}, "count must be an int"),
        ({"seed": -1}, "seed must be an int >= 0"),
        ({"seed": 1.5}, "seed must be an int >= 0"),
        ({"params": "easy"}, "params must be"),
        ({"config": {}}, "config must be a SwarmConfig"),
        ({"progress": 3}, "progress must be callable"),
        ({"mask_revisits": "yes"}, "mask_revisits must be a bool"),
    ],
)
def test_bad_arguments_are_value_errors(kwargs: Dict[str, Any], message: str) -> None:
    arguments: Dict[str, Any] = {"env": PolySimplify(), "count": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        expert_steps(**arguments)


def test_parquet_holds_the_rows_with_the_documented_schema(tmp_path: Path) -> None:
    data = expert_steps(PolySimplify(), 5, seed=3)
    path = write_parquet(data, str(tmp_path / "out"), {"env": "poly"})
    assert path == str(tmp_path / "out" / FILE_NAME)
    table = pq.read_table(path)
    assert table.column_names == [name for name, _, _ in COLUMNS]
    # Arrow's own names of the documented types.
    arrow_names = {"float64": "double", "list<int8>": "list<element: int8>"}
    assert [str(field.type) for field in table.schema] == [
        arrow_names.get(kind, kind) for _, kind, _ in COLUMNS
    ]
    for field, (_, _, meaning) in zip(table.schema, COLUMNS):
        assert field.metadata[b"description"].decode() == meaning
    meta = json.loads(table.schema.metadata[b"mathy_envs"])
    assert meta == {"env": "poly", "problems": 5, "solved": data.solved}
    read = table.to_pylist()
    assert len(read) == len(data.steps)
    for row, step in zip(read, data.steps):
        assert row["mask"] == step.mask.tolist()
        assert {k: v for k, v in row.items() if k != "mask"} == {
            k: v for k, v in step._asdict().items() if k != "mask"
        }


def test_parquet_of_no_rows_and_bad_arguments(tmp_path: Path) -> None:
    empty = ExpertData([], 2, 0)
    assert pq.read_table(write_parquet(empty, str(tmp_path))).num_rows == 0
    with pytest.raises(ValueError, match="data must be ExpertData"):
        write_parquet([], str(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="folder must be a path"):
        write_parquet(empty, "")
    with pytest.raises(ValueError, match="metadata must be JSON values"):
        write_parquet(empty, str(tmp_path), {"x": object()})


def test_without_pyarrow_the_error_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"mathy_envs\[data\]"):
        write_parquet(ExpertData([], 1, 0), str(tmp_path))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["dataset", "poly", "-n", "1", "--out", str(tmp_path)], io.StringIO()) == 2
    assert "pyarrow" in err.getvalue()


def test_the_dataset_command_writes_what_the_api_writes(tmp_path: Path) -> None:
    out = io.StringIO()
    code = main(
        ["dataset", "poly", "-d", "normal", "-n", "4", "--seed", "5", "--out", str(tmp_path)],
        out,
    )
    assert code == 0, out.getvalue()
    table = pq.read_table(tmp_path / FILE_NAME)
    data = expert_steps(PolySimplify(), 4, seed=5, params=MathyEnvProblemArgs(MathyEnvDifficulty.normal))
    assert table.num_rows == len(data.steps)
    assert table.column("expression").to_pylist() == [row.expression for row in data.steps]
    meta = json.loads(table.schema.metadata[b"mathy_envs"])
    assert meta["env"] == "poly" and meta["difficulty"] == "normal" and meta["seed"] == 5
    assert meta["rules"] == [rule.name for rule in PolySimplify().rules]
    assert f"{len(data.steps)} steps of {data.solved} solved problems (4 drawn)" in out.getvalue()


@pytest.mark.parametrize(
    "argv",
    [
        ["dataset", "poly", "-n", "0", "--out", "x"],
        ["dataset", "poly", "--seed", "-1", "--out", "x"],
        ["dataset", "nope", "--out", "x"],
        ["dataset", "poly", "-d", "impossible", "--out", "x"],
    ],
)
def test_the_dataset_command_refuses_bad_input(
    argv: List[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv, io.StringIO()) == 2
    assert capsys.readouterr().err.startswith("mathy-envs: error:")


def test_pandas_and_datasets_read_the_file_as_it_is(tmp_path: Path) -> None:
    """What users load it with (CI's examples lane has both installed)."""
    pandas = pytest.importorskip("pandas")
    datasets = pytest.importorskip("datasets")
    data = expert_steps(PolySimplify(), 4, seed=1)
    write_parquet(data, str(tmp_path))
    frame = pandas.read_parquet(tmp_path / FILE_NAME)
    assert list(frame.columns) == [name for name, _, _ in COLUMNS]
    assert frame["expression"].tolist() == [row.expression for row in data.steps]
    assert [list(mask) for mask in frame["mask"]] == [row.mask.tolist() for row in data.steps]
    loaded = datasets.load_dataset("parquet", data_dir=str(tmp_path))["train"]
    assert loaded.num_rows == len(data.steps)
    assert loaded["action"] == [row.action for row in data.steps]
    assert loaded[0]["mask"] == data.steps[0].mask.tolist()


def test_a_problem_solved_at_the_start_gives_no_trajectory() -> None:
    def done(rng: np.random.Generator, params: MathyEnvProblemArgs) -> MathyEnvProblem:
        return MathyEnvProblem("4x", 5, "mathy.polynomials.simplify")

    data = expert_steps(PolySimplify(generator=done), 2, seed=0)
    assert (data.problems, data.solved, data.steps) == (2, 0, [])


def test_a_folder_that_cant_be_written_is_refused_before_solving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    with pytest.raises(ValueError, match="can't write into the folder"):
        write_parquet(ExpertData([], 1, 0), str(a_file))
    with pytest.raises(ValueError, match="metadata can't have the keys"):
        write_parquet(ExpertData([], 1, 0), str(tmp_path), {"solved": 3})
    solved: List[Any] = []
    monkeypatch.setattr("mathy_envs.cli.expert_steps", lambda *a, **k: solved.append(a))
    assert main(["dataset", "poly", "-n", "2", "--out", str(a_file)], io.StringIO()) == 2
    assert "can't write into the folder" in capsys.readouterr().err
    assert solved == []  # refused before any problem was solved
