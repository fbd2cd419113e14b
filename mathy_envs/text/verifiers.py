"""The text episodes as a verifiers (v1) environment, played turn by turn.

`pip install "mathy_envs[verifiers]"`. Three plugin classes, exported by
`__all__` as verifiers' loader wants them (one of each kind):

- `MathyTaskset` (config `MathyTasksetConfig`): `size` generated problems of
  one built-in env. Task `i` is drawn from `(seed, i)`, so it is the same
  problem on every call and machine whatever `size` is; its prompt is the first
  prompt of a `TextEpisode` on it. Config fields: `env` (the task name of
  `ENV_TASKS`, default "poly"; verifiers' own `task` field, the per-task
  config, keeps its name), `difficulty` ("easy", "normal" or "hard"), `seed`,
  `size`, `mode` ("rewrite" or "choose") and `steps_per_line` (in "rewrite"
  mode, a reply may write what at most that many valid moves give, each move
  taken with its own reward; 1 by default, `mathy_envs.text.reach`);
- `MathyTextEnv` (config `MathyTextEnvConfig`, one agent: `player`): plays the
  episode. The model answers the first prompt; each reply goes to
  `TextEpisode.step`, and the next turn's message is the verdict on one line
  (`accepted: ...`, `malformed: ...`) then the next prompt, until the episode
  ends or the exchange is cut (`--env.player.max-turns`, a timeout, an error);
- `MathyChatHarness`: the player's default program, an in-process chat loop
  that sends the conversation to the rollout's interception endpoint, one model
  call per turn (verifiers' `null` harness would install a script with `uv`).

Rewards on each trace: `step0`, `step1`, ... the env's own reward for each
reply (a refused reply is an invalid move), each of weight 1.0, and `won`
(1.0 or 0.0) of weight 0.0. So `trace.reward` is the episode's undiscounted
return, exactly what the same moves earn in the gym env (the win's reward is
already in the last step's), and `won` is reported without being counted
twice. Metrics: `steps` (replies judged) and `accepted` (replies accepted).

Loading. verifiers resolves a taskset id to a module `verifiers.v1.tasksets.<id>`
or a top-level module `<id>`, and a dotted id such as
"mathy_envs.text.verifiers" does not resolve (`importlib.util.find_spec`
raises on the missing `verifiers.v1.tasksets.mathy_envs`). Importing this
module therefore registers it under the top-level name `TASKSET_ID`
("mathy_text") in `sys.modules`, and `load_environment(**taskset_config)`
does both steps:

    import asyncio
    import verifiers.v1 as vf
    from mathy_envs.text.verifiers import TASKSET_ID, load_environment

    env = load_environment(env="poly", difficulty="easy", seed=0, size=10)
    # the same, by id (after the import above):
    # env = vf.load_environment(vf.resolve_env_config(
    #     {"taskset": {"id": TASKSET_ID, "env": "poly", "size": 10}}))
    ctx = vf.ModelContext(
        model="Qwen/Qwen2.5-7B-Instruct",
        client=vf.EvalClientConfig(base_url="http://localhost:8000/v1",
                                   api_key_var="OPENAI_API_KEY"),
    )

    async def main() -> None:
        async with env.serving():
            for task in env.taskset:
                trace = (await env.run_episode(task, ctx)).traces[0]
                print(task.data.problem, trace.rewards["won"].score, trace.reward)

    asyncio.run(main())

A process that has not imported this module (`vf eval mathy_text`, an env
server) needs an importable `mathy_text` module: a file `mathy_text.py` on its
path holding `from mathy_envs.text.verifiers import *` and
`from mathy_envs.text.verifiers import __all__`.
"""

import asyncio
import json
import sys
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np
import verifiers.v1 as vf
from pydantic import ValidationInfo, field_validator
from verifiers.v1.dialects.chat import message_to_wire
from verifiers.v1.errors import MODEL_TRANSPORT_ERROR_EXIT_CODE
from verifiers.v1.runtimes import ProgramResult, SubprocessConfig

from ..envs import ENV_TASKS
from ..limits import quote
from ..types import MathyEnvDifficulty, MathyEnvProblemArgs
from .episode import TextEpisode
from .prompts import MODES, REWRITE
from .reach import MAX_STEPS_PER_LINE
from .replies import Verdict

TASKSET_ID = "mathy_text"
"""The taskset id this module answers to (its alias in `sys.modules`)."""
STEP_WEIGHT = 1.0
"""The weight of each step's reward: `trace.reward` is the episode's return."""
WON_WEIGHT = 0.0
"""The weight of `won`: reported, not added to the return a second time."""
REQUEST_TIMEOUT = 900.0
"""Seconds `MathyChatHarness` waits for one model reply."""
MAX_SIZE = 10_000_000
"""The most tasks a taskset holds."""

_DIFFICULTIES = tuple(d.value for d in MathyEnvDifficulty)


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int in [{low}, {high}], got {quote(value)}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an int in [{low}, {high}], got {quote(value)}")
    return int(value)


def _check_choice(name: str, value: object, choices: Tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {quote(value)}")
    return value


class MathyTaskData(vf.TaskData):  # type: ignore[misc]
    """One problem: what a trace records of its task."""

    problem: str
    """The starting expression."""
    max_moves: int
    """The move budget."""
    env: str = "poly"
    """The task name of the env (`ENV_TASKS`)."""
    difficulty: str = "easy"
    mode: str = REWRITE
    """"rewrite" or "choose": how replies are read."""
    steps_per_line: int = 1
    """The valid moves one reply may make at most ("rewrite" mode)."""


class MathyTask(vf.Task[MathyTaskData, vf.State, vf.TaskConfig]):  # type: ignore[misc]
    """A mathy problem; `MathyTextEnv.run` scores it step by step."""


class MathyTasksetConfig(vf.TasksetConfig):  # type: ignore[misc]
    """`--env.taskset.*`: which problems, and how replies are read."""

    env: str = "poly"
    """The task name of a built-in env (`mathy_envs.envs.ENV_TASKS`)."""
    difficulty: str = "easy"
    """"easy", "normal" or "hard"."""
    seed: int = 0
    size: int = 100
    mode: str = REWRITE
    """"rewrite" (a reply writes the next expression) or "choose" (it names a move)."""
    steps_per_line: int = 1
    """In "rewrite" mode, the valid moves one reply may make at most (1 to
    `MAX_STEPS_PER_LINE`)."""

    @field_validator("seed", "size", "steps_per_line", mode="before")  # type: ignore[untyped-decorator]
    @classmethod
    def _no_bools(cls, value: object, info: ValidationInfo) -> object:
        if isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{info.field_name} must be an int, got {quote(value)}")
        return value

    @field_validator("env", "difficulty", "mode")  # type: ignore[untyped-decorator]
    @classmethod
    def _check_choices(cls, value: str, info: ValidationInfo) -> str:
        name = str(info.field_name)
        choices = {"env": tuple(ENV_TASKS), "difficulty": _DIFFICULTIES, "mode": tuple(MODES)}
        return _check_choice(name, value, choices[name])

    @field_validator("seed", "size", "steps_per_line")  # type: ignore[untyped-decorator]
    @classmethod
    def _check_ints(cls, value: int, info: ValidationInfo) -> int:
        name = str(info.field_name)
        low, high = {
            "seed": (0, 2**63 - 1),
            "size": (1, MAX_SIZE),
            "steps_per_line": (1, MAX_STEPS_PER_LINE),
        }[name]
        return _check_int(name, value, low, high)


class MathyTaskset(vf.Taskset[MathyTask, MathyTasksetConfig]):  # type: ignore[misc]
    """`config.size` problems of the env `config.env`, task `i` drawn from
    `(config.seed, i)`."""

    def load(self) -> Iterator[MathyTask]:
        config: MathyTasksetConfig = self.config
        env = ENV_TASKS[config.env]()
        params = MathyEnvProblemArgs(MathyEnvDifficulty(config.difficulty))
        episode = TextEpisode(
            env, mode=config.mode, params=params, steps_per_line=config.steps_per_line
        )
        for index in range(config.size):
            env.np_random = np.random.default_rng([config.seed, index])
            state, _ = env.fitting_initial_state(params)
            problem, max_moves = state.agent.problem, int(state.max_moves)
            data = MathyTaskData(
                id=f"{config.env}/{config.difficulty}/{config.seed}/{index}",
                name=f"mathy-{config.env}-{config.difficulty}",
                prompt=episode.reset(problem=problem, max_moves=max_moves),
                problem=problem,
                max_moves=max_moves,
                env=config.env,
                difficulty=config.difficulty,
                mode=config.mode,
                steps_per_line=config.steps_per_line,
            )
            yield MathyTask(data, config.task)


class MathyTextEnvConfig(vf.EnvConfig):  # type: ignore[misc]
    """`--env.*`: the seed taskset and the one agent, `player` (run in-process
    by `MathyChatHarness` unless `--env.player.harness.id` pins another)."""

    player: vf.AgentConfig = vf.AgentConfig(runtime=SubprocessConfig())


class MathyTextEnv(vf.Env[MathyTextEnvConfig]):  # type: ignore[misc]
    """One `TextEpisode` per task, played by the agent `player`, rewarded step by step."""

    async def run(self, task: Any, agents: Any) -> None:
        data = task.data
        env_class = ENV_TASKS[_check_choice("env", getattr(data, "env", None), tuple(ENV_TASKS))]
        mode = _check_choice("mode", getattr(data, "mode", None), tuple(MODES))
        grain = _check_int("steps_per_line", getattr(data, "steps_per_line", 1), 1, MAX_STEPS_PER_LINE)
        episode = TextEpisode(env_class(), mode=mode, steps_per_line=grain)
        episode.reset(problem=data.problem, max_moves=data.max_moves)
        async with agents.player.interaction(task) as interaction:
            trace = interaction.trace
            steps = accepted = 0
            won = False
            segment = await interaction.turn()  # the task's prompt opens the exchange
            while not segment.terminated:
                step = episode.step(segment.last_reply)
                trace.record_reward(f"step{steps}", step.reward, STEP_WEIGHT)
                steps += 1
                accepted += int(step.verdict.accepted)
                if step.done:
                    won = step.won
                    break
                segment = await interaction.turn(turn_message(step.verdict, step.prompt))
            trace.record_reward("won", 1.0 if won else 0.0, WON_WEIGHT)
            trace.record_metrics({"steps": float(steps), "accepted": float(accepted)})


def turn_message(verdict: Verdict, prompt: str) -> str:
    """The message after a reply: the verdict on one line (`accepted: ...`,
    `malformed: ...`), a blank line and the next prompt."""
    return f"{verdict.kind}: {verdict.reason}\n\n{prompt}"


class MathyChatHarness(vf.Harness[vf.HarnessConfig]):  # type: ignore[misc]
    """A chat loop run in-process: each segment sends the conversation so far
    to the rollout's interception endpoint (which records it and forwards it to
    the model with the run's sampling) and takes one reply. No tools, no code."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: Dict[str, str],
        data: Any,
        tool_interception_url: Optional[str] = None,
    ) -> Any:
        system, prompt = self.resolve_prompt(data)
        messages: List[Dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages.extend(message_to_wire(message) for message in prompt or [])
        body = json.dumps({"model": ctx.model, "messages": messages}).encode()
        url = f"{endpoint.rstrip('/')}/chat/completions"
        return await asyncio.to_thread(_post_chat, url, secret, body)


def _post_chat(url: str, secret: str, body: bytes) -> Any:
    """POST a chat completion request; its outcome as a `ProgramResult`."""
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            return ProgramResult(0, response.read().decode("utf-8", "replace"), "")
    except urllib.error.HTTPError as error:
        detail = error.read().decode("utf-8", "replace")[-2000:]
        return ProgramResult(1, "", f"HTTP {error.code} from the model endpoint: {detail}")
    except OSError as error:  # URLError, timeouts, refused connections
        detail = f"{type(error).__name__}: {error}"
        return ProgramResult(MODEL_TRANSPORT_ERROR_EXIT_CODE, "", detail)


def load_environment(**taskset: Any) -> MathyTextEnv:
    """The env of the taskset config `taskset` (`MathyTasksetConfig` fields:
    env, difficulty, seed, size, mode, steps_per_line), loaded by verifiers under
    `TASKSET_ID`.
    `ValueError` for an unknown field or a bad value."""
    owner = sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])
    if getattr(owner, "MathyTaskset", None) is not MathyTaskset:
        raise ValueError(f"the module name {TASKSET_ID!r} is taken by {quote(owner, 100)}")
    config = vf.resolve_env_config({"taskset": {**taskset, "id": TASKSET_ID}})
    env: MathyTextEnv = vf.load_environment(config)
    return env


# verifiers' loader imports a taskset id as a top-level module and takes no
# dotted id: this module answers to TASKSET_ID (unless a module of that name,
# such as a shim re-exporting this one, is there first).
sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])

__all__ = (
    "MathyChatHarness",
    "MathyTask",
    "MathyTaskData",
    "MathyTaskset",
    "MathyTasksetConfig",
    "MathyTextEnv",
    "MathyTextEnvConfig",
    "STEP_WEIGHT",
    "TASKSET_ID",
    "WON_WEIGHT",
    "load_environment",
    "turn_message",
)
