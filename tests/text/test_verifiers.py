"""The verifiers (v1) adapter, with verifiers installed (and aiohttp, which it
brings): episodes played offline against a scripted model behind a fake
OpenAI-compatible server on 127.0.0.1, reproducible tasksets, config errors."""

import asyncio
import time
from typing import Any, Callable, Dict, List, Sequence

import pytest

vf = pytest.importorskip("verifiers.v1")
web = pytest.importorskip("aiohttp.web")

import mathy_envs.text.verifiers as adapter  # noqa: E402
from mathy_envs.envs import ENV_TASKS  # noqa: E402
from mathy_envs.expert import without_loops  # noqa: E402
from mathy_envs.swarm import SwarmConfig, swarm_solve  # noqa: E402
from mathy_envs.text import TextEpisode  # noqa: E402
from mathy_envs.types import EnvRewards  # noqa: E402

KEY_VAR = "MATHY_TEST_FAKE_KEY"
Policy = Callable[[List[Dict[str, Any]]], str]


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VAR, "not-a-key")


async def _serve_and_play(env: Any, policy: Policy, tasks: Sequence[Any]) -> List[Any]:
    """Each task's episode, the model being `policy` (messages -> reply) served
    as an OpenAI-compatible /v1/chat/completions on 127.0.0.1."""

    async def chat(request: Any) -> Any:
        body = await request.json()
        return web.json_response(
            {
                "id": "cmpl-test",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": policy(body["messages"])},
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        ctx = vf.ModelContext(
            model="scripted",
            client=vf.EvalClientConfig(base_url=f"http://127.0.0.1:{port}/v1", api_key_var=KEY_VAR),
        )
        async with env.serving():
            return [await env.run_episode(task, ctx) for task in tasks]
    finally:
        await runner.cleanup()


def _play(env: Any, policy: Policy) -> List[Any]:
    return asyncio.run(_serve_and_play(env, policy, list(env.taskset)))


def _step_scores(trace: Any) -> List[float]:
    steps = int(trace.metrics["steps"])
    assert set(trace.rewards) == {f"step{i}" for i in range(steps)} | {"won"}
    return [trace.rewards[f"step{i}"].score for i in range(steps)]


def _user_texts(trace: Any) -> List[str]:
    return [str(m.content) for m in trace.messages if m.role == "user"]


@pytest.mark.parametrize("task_name, mode", [("poly", "rewrite"), ("complex", "choose")])
def test_the_planners_solution_wins_with_the_envs_own_rewards(task_name: str, mode: str) -> None:
    env = adapter.load_environment(env=task_name, seed=5, size=3, mode=mode)
    assert isinstance(env, adapter.MathyTextEnv)
    mathy = ENV_TASKS[task_name]()
    replies: Dict[str, List[str]] = {}  # first prompt -> the replies, in order
    expected: Dict[str, List[float]] = {}
    for index, task in enumerate(env.taskset):
        state = mathy.state_from_text(task.data.problem, task.data.max_moves)
        planned = swarm_solve(state, SwarmConfig(seed=index), mathy)
        if not planned.solved:
            continue
        lines, rewards = [], []
        for rule, node in without_loops(mathy, state, planned.actions):
            if mode == "choose":
                lines.append(f"Answer: {mathy.rules[rule].name} at node {node}")
            state, time_step, _ = mathy.get_next_state(state, (rule, node))
            if mode == "rewrite":
                lines.append(f"Next: {state.agent.problem}")
            rewards.append(float(time_step.reward))
        replies[task.data.prompt] = lines
        expected[task.data.prompt] = rewards
    assert replies, "the planner solved none of the problems"

    def player(messages: List[Dict[str, Any]]) -> str:
        script = replies.get(messages[0]["content"], [])
        turn = sum(1 for m in messages if m["role"] == "assistant")
        return script[turn] if turn < len(script) else "I don't know"

    episodes = _play(env, player)
    assert len(episodes) == 3
    for episode in episodes:
        assert episode.ok and not episode.errors
        (trace,) = episode.traces
        prompt = episode.task.data.prompt
        if prompt not in expected:
            continue
        assert trace.rewards["won"].score == 1.0
        assert trace.rewards["won"].weight == adapter.WON_WEIGHT == 0.0
        assert _step_scores(trace) == expected[prompt]
        assert trace.reward == pytest.approx(sum(expected[prompt]))
        assert trace.metrics["accepted"] == trace.metrics["steps"] == len(expected[prompt])
        users = _user_texts(trace)
        assert users[0] == prompt and len(users) == len(expected[prompt])
        assert all(text.startswith("accepted: ") for text in users[1:])


def test_a_reply_may_make_up_to_steps_per_line_moves() -> None:
    env = adapter.load_environment(env="poly", seed=5, size=3, steps_per_line=3)
    mathy = ENV_TASKS["poly"]()
    replies: Dict[str, List[str]] = {}
    totals: Dict[str, float] = {}
    for index, task in enumerate(env.taskset):
        assert task.data.steps_per_line == 3 and "at most 3 valid moves" in task.data.prompt
        state = mathy.state_from_text(task.data.problem, task.data.max_moves)
        planned = swarm_solve(state, SwarmConfig(seed=index), mathy)
        if not planned.solved:
            continue
        lines = []
        for rule, node in without_loops(mathy, state, planned.actions):
            state, _, _ = mathy.get_next_state(state, (rule, node))
            lines.append(state.agent.problem)
        # Every third expression and the last: three moves per reply at most.
        picks = lines[2::3]
        if not picks or picks[-1] != lines[-1]:
            picks.append(lines[-1])
        replies[task.data.prompt] = [f"Next: {line}" for line in picks]
        # The return of the same replies in a TextEpisode (the moves it finds
        # for a reply are the fewest, not always the planner's).
        episode = TextEpisode(ENV_TASKS["poly"](), steps_per_line=3)
        episode.reset(problem=task.data.problem, max_moves=task.data.max_moves)
        steps = [episode.step(reply) for reply in replies[task.data.prompt]]
        assert steps[-1].won and all(step.verdict.accepted for step in steps)
        totals[task.data.prompt] = sum(step.reward for step in steps)
    assert replies

    def player(messages: List[Dict[str, Any]]) -> str:
        script = replies.get(messages[0]["content"], [])
        turn = sum(1 for m in messages if m["role"] == "assistant")
        return script[turn] if turn < len(script) else "I don't know"

    for episode in _play(env, player):
        assert episode.ok and not episode.errors
        (trace,) = episode.traces
        prompt = episode.task.data.prompt
        if prompt not in totals:
            continue
        assert trace.rewards["won"].score == 1.0
        assert trace.reward == pytest.approx(totals[prompt])
        assert trace.metrics["accepted"] == trace.metrics["steps"] == len(replies[prompt])


def test_a_junk_player_is_refused_every_move_and_never_wins() -> None:
    env = adapter.load_environment(seed=1, size=2)
    episodes = _play(env, lambda messages: "I don't know")
    for episode in episodes:
        (trace,) = episode.traces
        scores = _step_scores(trace)
        assert trace.rewards["won"].score == 0.0
        assert trace.metrics["accepted"] == 0
        assert len(scores) == episode.task.data.max_moves  # the budget runs out
        assert scores[:-1] == [EnvRewards.INVALID_MOVE] * (len(scores) - 1)
        assert scores[-1] in (EnvRewards.INVALID_MOVE, EnvRewards.LOSE)
        assert trace.reward == pytest.approx(sum(scores))
        assert all(text.startswith("malformed: ") for text in _user_texts(trace)[1:])


def test_a_turn_limit_ends_the_episode_early() -> None:
    config = vf.resolve_env_config(
        {"taskset": {"id": adapter.TASKSET_ID, "size": 1}, "player": {"max_turns": 3}}
    )
    assert isinstance(config, adapter.MathyTextEnvConfig)
    env = vf.load_environment(config)
    assert isinstance(env, adapter.MathyTextEnv)
    (episode,) = _play(env, lambda messages: "x")
    (trace,) = episode.traces
    assert trace.metrics["steps"] == 3 and trace.rewards["won"].score == 0.0


def _problems(**config: Any) -> List[Any]:
    taskset = adapter.MathyTaskset(adapter.MathyTasksetConfig(**config))
    return [(t.data.problem, t.data.max_moves, t.data.prompt, t.data.id) for t in taskset]


def test_the_taskset_is_reproducible() -> None:
    first = _problems(env="poly", difficulty="normal", seed=3, size=5)
    assert first == _problems(env="poly", difficulty="normal", seed=3, size=5)
    assert first[:2] == _problems(env="poly", difficulty="normal", seed=3, size=2)
    assert first != _problems(env="poly", difficulty="normal", seed=4, size=5)
    assert len({problem for problem, *_ in first}) > 1
    for problem, max_moves, prompt, _ in first:
        episode = TextEpisode(ENV_TASKS["poly"]())
        assert prompt == episode.reset(problem=problem, max_moves=max_moves)
    (task,) = adapter.load_environment(env="binomial", mode="choose", size=1).taskset
    assert isinstance(task, adapter.MathyTask) and isinstance(task.data, adapter.MathyTaskData)
    assert (task.data.env, task.data.difficulty, task.data.mode) == ("binomial", "easy", "choose")


@pytest.mark.parametrize(
    "config, message",
    [
        ({"env": "nope"}, "env must be one of"),
        ({"difficulty": "extreme"}, "difficulty must be one of"),
        ({"mode": "guess"}, "mode must be one of"),
        ({"seed": -1}, "seed must be an int"),
        ({"seed": True}, "seed must be an int"),
        ({"size": 0}, "size must be an int"),
        ({"steps_per_line": 0}, "steps_per_line must be an int"),
        ({"steps_per_line": 9}, "steps_per_line must be an int"),
        ({"steps_per_line": True}, "steps_per_line must be an int"),
        ({"size": "x" * 5000}, "size"),
        ({"env": "p" * 5000}, "env must be one of"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_bad_config_values_raise_value_errors(config: Dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        adapter.load_environment(**config)
    assert len(str(caught.value)) < 2000  # long values are quoted short
    with pytest.raises(ValueError, match=message):
        adapter.MathyTasksetConfig(**config)
