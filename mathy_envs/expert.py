"""Expert trajectories: the swarm planner's winning episodes as rows a learner can
train on (behavioural cloning, offline RL), and their Parquet files.

`expert_steps(env, count, seed)` draws `count` problems from any `MathyEnv` (a
built-in one or yours), solves each with the swarm planner, and replays every
solved problem with `get_next_state`: one `ExpertStep` per move, with the mask
the move was chosen from and the reward it got. A solution that returns to an
expression it has passed (the planner may take a move that leaves the text as it
is) is replayed with that loop cut out, when the shorter one still wins, so that
every move leads to a new expression. Problems the planner does not solve give
no rows. `write_parquet` writes the rows to `trajectories.parquet` in
a folder, one row a step, with the columns of `COLUMNS` (it needs `pyarrow`:
`pip install "mathy_envs[data]"`); `pandas.read_parquet` and
`datasets.load_dataset("parquet", data_dir=...)` read it as it is.
`mathy-envs dataset` does both from the command line.

The problems are those of `env.np_random` seeded with `seed` (`expert_steps`
reseeds it, as `env.seed(seed)` does; problems are drawn until one fits
`max_seq_len`, as a Gymnasium reset does), and problem `i` is solved with the
planner's seed `i`: the same arguments give the same rows.
"""

import dataclasses
import json
import os
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

import numpy as np
import numpy.typing as npt

from ._engine import canonical_text
from .env import MathyEnv
from .limits import quote, type_name
from ._support.settings import check_seed
from .state import MathyEnvState
from .swarm import SwarmConfig, swarm_solve
from .time_step import is_terminal_transition
from .types import MathyEnvProblemArgs

MAX_PROBLEMS = 10_000_000
"""The most problems one call solves."""

FILE_NAME = "trajectories.parquet"
"""The file `write_parquet` writes in its folder."""

COLUMNS: Tuple[Tuple[str, str, str], ...] = (
    ("problem_id", "int32", "the problem's index among those drawn, from 0"),
    ("problem", "string", "the problem text"),
    ("step", "int32", "the step's index in its trajectory, from 0"),
    ("expression", "string", "the expression the move is taken in"),
    ("rule", "string", "the name of the move's rule"),
    ("rule_index", "int32", "the rule's index in the env's rules"),
    ("node", "int32", "the node's index (in-order, the mask's column)"),
    ("action", "int64", "the flat action: rule_index * max_seq_len + node"),
    (
        "mask",
        "list<int8>",
        "the actions offered in `expression`, flat (rules * max_seq_len, 0/1): the "
        "valid ones, less the moves back to more visited expressions unless "
        "mask_revisits=False",
    ),
    ("reward", "float64", "the reward of the move"),
    ("done", "bool", "the move ended the episode (a win: the trajectory's last step)"),
    ("moves_remaining", "int32", "the moves left before the move"),
    ("max_moves", "int32", "the episode's move budget"),
)
"""The columns of an expert dataset: `(name, Arrow type, meaning)`, in order."""


class ExpertStep(NamedTuple):
    """One move of a solved problem (the fields are the columns of `COLUMNS`)."""

    problem_id: int
    problem: str
    step: int
    expression: str
    rule: str
    rule_index: int
    node: int
    action: int
    mask: npt.NDArray[np.int8]
    reward: float
    done: bool
    moves_remaining: int
    max_moves: int


class ExpertData(NamedTuple):
    """What `expert_steps` made."""

    steps: List[ExpertStep]
    """Every move of every solved problem, problem by problem, in order."""
    problems: int
    """How many problems were drawn."""
    solved: int
    """How many of them gave a trajectory: the planner solved them with at least
    one move (a problem that is already solved gives no rows)."""


def expert_steps(
    env: MathyEnv,
    count: int,
    seed: int = 0,
    params: Optional[MathyEnvProblemArgs] = None,
    config: Optional[SwarmConfig] = None,
    progress: Optional[Callable[[int], None]] = None,
    mask_revisits: bool = True,
) -> ExpertData:
    """Draw `count` problems of `params` (easy when None) from `env` seeded with
    `seed`, solve them with the swarm planner and return the moves of the solved
    ones.

    Arguments:
        env: the environment (its rules, rewards and generator)
        count: the number of problems, at least 1
        seed: the seed of the problems (an int >= 0)
        params: the problem arguments (difficulty)
        config: the planner's settings (`SwarmConfig()` when None); its `seed`
            is replaced by the problem's index
        progress: called with the number of problems done after each one
        mask_revisits: each row's mask is the one `MathyGymEnv` offers by default
            (`MathyEnv.least_visited_moves_array`); False: the valid moves
            (`valid_moves_array`)

    Raises `ValueError` for a bad argument.
    """
    if not isinstance(env, MathyEnv):
        raise ValueError(f"env must be a MathyEnv, got {type_name(env)} {quote(env, 60)}")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not (
        1 <= count <= MAX_PROBLEMS
    ):
        raise ValueError(f"count must be an int in [1, {MAX_PROBLEMS}], got {quote(count)}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {quote(seed)}")
    check_seed("seed", int(seed))
    if params is not None and not isinstance(params, MathyEnvProblemArgs):
        raise ValueError(f"params must be MathyEnvProblemArgs or None, got {type_name(params)}")
    if config is not None and not isinstance(config, SwarmConfig):
        raise ValueError(f"config must be a SwarmConfig or None, got {type_name(config)}")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None, got {type_name(progress)}")
    if not isinstance(mask_revisits, (bool, np.bool_)):
        raise ValueError(f"mask_revisits must be a bool, got {quote(mask_revisits, 40)}")
    settings = SwarmConfig() if config is None else config
    settings.check()
    env.seed(int(seed))
    starts = [env.fitting_initial_state(params)[0] for _ in range(int(count))]
    steps: List[ExpertStep] = []
    solved = 0
    for index, start in enumerate(starts):
        planned = swarm_solve(start, dataclasses.replace(settings, seed=index), env)
        if planned.solved and planned.actions:
            actions = without_loops(env, start, planned.actions)
            steps.extend(_replay(env, index, start, actions, bool(mask_revisits)))
            solved += 1
        if progress is not None:
            progress(index + 1)
    return ExpertData(steps, int(count), solved)


def without_loops(
    env: MathyEnv, start: MathyEnvState, actions: List[Tuple[int, int]]
) -> List[Tuple[int, int]]:
    """`actions` (a winning episode from `start`, such as the swarm planner's
    `SwarmResult.actions`) less every stretch that returns to an expression
    passed before (a move that leaves the text as it is, a swap and its undo),
    when the shorter episode still ends in a win (it may not where the goal
    reads the history); else `actions`."""
    kept: List[Tuple[int, int]] = []
    # The start in its canonical form, as a move back to it prints it.
    texts = [canonical_text(start.agent.problem, env.parser)]
    state = start
    for action in actions:
        state, _, _ = env.get_next_state(state, action)
        text = state.agent.problem
        if text in texts:
            # Back to where the episode was after `texts.index(text)` moves.
            del kept[texts.index(text) :]
            del texts[texts.index(text) + 1 :]
        else:
            kept.append(action)
            texts.append(text)
    if len(kept) == len(actions):
        return actions
    state = start
    for position, action in enumerate(kept):
        state, step, _ = env.get_next_state(state, action)
        if is_terminal_transition(step):
            return kept if position == len(kept) - 1 and step.reward > 0 else actions
    return actions


def _replay(
    env: MathyEnv,
    problem_id: int,
    start: Any,
    actions: List[Tuple[int, int]],
    mask_revisits: bool,
) -> List[ExpertStep]:
    """The moves of a solved problem, replayed with `get_next_state`."""
    rows: List[ExpertStep] = []
    length = env.max_seq_len
    state = start
    for step, (rule_index, node) in enumerate(actions):
        mask = env.flat_moves(
            env.least_visited_moves_array(state)
            if mask_revisits
            else env.valid_moves_array(state)
        )
        after, time_step, _ = env.get_next_state(state, (rule_index, node))
        rows.append(
            ExpertStep(
                problem_id=problem_id,
                problem=start.agent.problem,
                step=step,
                expression=state.agent.problem,
                rule=env.rules[rule_index].name,
                rule_index=int(rule_index),
                node=int(node),
                action=int(rule_index) * length + int(node),
                mask=mask,
                reward=float(time_step.reward),
                done=is_terminal_transition(time_step),
                moves_remaining=state.agent.moves_remaining,
                max_moves=state.max_moves,
            )
        )
        state = after
    return rows


def write_parquet(
    data: ExpertData, folder: str, metadata: Optional[Dict[str, Any]] = None
) -> str:
    """Write `data.steps` to `folder/trajectories.parquet` (the folder is made
    when missing; an existing file is replaced) and return the file's path.

    The file's schema has the columns of `COLUMNS`, each with its meaning, and
    the key `mathy_envs` holds `metadata` (JSON) with the counts `problems` and
    `solved` added (`metadata` can't have those keys). Needs `pyarrow`.
    Raises `ValueError` for a bad argument or a folder that can't be made.
    """
    if not isinstance(data, ExpertData):
        raise ValueError(f"data must be ExpertData, got {type_name(data)}")
    if metadata is not None and not isinstance(metadata, dict):
        raise ValueError(f"metadata must be a dict or None, got {type_name(metadata)}")
    taken = sorted({"problems", "solved"} & set(metadata or {}))
    if taken:
        raise ValueError(f"metadata can't have the keys {taken}: they hold the counts")
    check_folder(folder)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            'writing Parquet needs pyarrow: pip install "mathy_envs[data]"'
        ) from None
    info = {**(metadata or {}), "problems": data.problems, "solved": data.solved}
    try:
        meta = json.dumps(info, sort_keys=True)
    except (TypeError, ValueError):
        raise ValueError(f"metadata must be JSON values, got {quote(metadata, 80)}") from None
    types = {
        "int32": pa.int32(),
        "int64": pa.int64(),
        "string": pa.string(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "list<int8>": pa.list_(pa.int8()),
    }
    fields = [
        pa.field(name, types[kind], nullable=False, metadata={"description": meaning})
        for name, kind, meaning in COLUMNS
    ]
    schema = pa.schema(fields, metadata={"mathy_envs": meta})
    columns: Dict[str, Any] = {name: [] for name, _, _ in COLUMNS}
    for row in data.steps:
        for name, value in zip(ExpertStep._fields, row):
            columns[name].append(value)
    columns["mask"] = [mask.tolist() for mask in columns["mask"]]
    table = pa.Table.from_pydict(columns, schema=schema)
    path = os.path.join(folder, FILE_NAME)
    pq.write_table(table, path)
    return path


def check_folder(folder: Any) -> None:
    """Make `folder` (a path) when missing, or raise a `ValueError` saying why it
    can't hold the file: `mathy-envs dataset` checks it before solving."""
    if not isinstance(folder, str) or not folder:
        raise ValueError(f"folder must be a path, got {quote(folder)}")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise ValueError(
            f"can't write into the folder {quote(folder, 120)}: {error.strerror}"
        ) from None
    if not os.access(folder, os.W_OK):
        raise ValueError(f"can't write into the folder {quote(folder, 120)}: not writable")


__all__ = (
    "COLUMNS",
    "ExpertData",
    "ExpertStep",
    "FILE_NAME",
    "check_folder",
    "expert_steps",
    "without_loops",
    "write_parquet",
)
