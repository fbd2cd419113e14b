"""The `module:id` form of the ids: `gymnasium.make("mathy_envs.gym:<id>")` imports
`mathy_envs.gym` (which registers the ids) first, so it works in processes that
never imported it, where the bare id is unknown."""

import textwrap
from typing import Any, List, Tuple

import pytest

from helpers import run_python

MAKE_IN_A_FRESH_INTERPRETER = textwrap.dedent(
    """
    import sys

    import gymnasium
    import numpy as np

    def mathy_modules():
        return sorted(m for m in sys.modules if m.split(".")[0] == "mathy_envs")

    assert mathy_modules() == [], mathy_modules()
    try:
        gymnasium.make("mathy-poly-easy-v0")
    except gymnasium.error.NameNotFound:
        print("bare id: not registered")
    assert mathy_modules() == [], mathy_modules()

    env = gymnasium.make("mathy_envs.gym:mathy-poly-easy-v0")
    assert "mathy_envs.gym" in sys.modules
    obs, info = env.reset(seed=0)
    action = int(np.flatnonzero(info["action_mask"])[0])
    obs, reward, terminated, truncated, info = env.step(action)
    assert env.observation_space.contains(obs) and bool(info["valid"]) is True
    print("module:id: stepped")
    """
)


def test_module_id_form_works_in_a_fresh_interpreter() -> None:
    result = run_python("-c", MAKE_IN_A_FRESH_INTERPRETER)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["bare id: not registered", "module:id: stepped"]


SPAWNED_WORKERS = textwrap.dedent(
    """
    import functools

    import gymnasium
    import numpy as np

    import mathy_envs.gym  # registered here, in the parent, only

    def run(env_id):
        envs = gymnasium.vector.AsyncVectorEnv(
            [functools.partial(gymnasium.make, env_id)] * 2, context="spawn"
        )
        try:
            obs, infos = envs.reset(seed=0)
            actions = mathy_envs.gym.sample_valid_actions(
                infos["action_mask"], np.random.default_rng(0)
            )
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            assert infos["valid"].all()
        finally:
            envs.close(terminate=True)

    if __name__ == "__main__":
        try:
            run("mathy-poly-easy-v0")
        except Exception as error:
            print(f"bare id: {type(error).__name__}")
        run("mathy_envs.gym:mathy-poly-easy-v0")
        print("module:id: stepped")
    """
)


@pytest.mark.slow
def test_module_id_form_works_in_spawned_vector_workers() -> None:
    """Spawned workers of a parent with no main file to re-import (here `-c`;
    likewise Ray workers) never ran the parent's `import mathy_envs.gym`."""
    result = run_python("-c", SPAWNED_WORKERS)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("\n")
    # With the bare id the workers fail to make their env (the parent then sees
    # them gone); with the module:id form they play.
    assert lines[0].startswith("bare id: ") and lines[1] == "module:id: stepped", result.stdout
    assert "NameNotFound: Environment `mathy-poly-easy` doesn't exist" in result.stderr


# -- bad input: a ValueError, and the registry as it was ---------------------------


class _UnreadableTasks(dict):  # type: ignore[type-arg]
    def items(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("these tasks can't be read")


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _bad_tasks() -> List[Tuple[str, Any, str]]:
    from mathy_envs import MathyEnv
    from mathy_envs.envs import PolySimplify
    from mathy_envs.envs.goal import GoalEnv, SimplifyGoalEnv

    class NoProblems(SimplifyGoalEnv):
        """A task whose problems would come from a generator= it is not given."""

        def get_env_namespace(self) -> str:
            return "zz.no.problems"

    good = {"zz-registration-good": PolySimplify}
    return [
        ("a list", [PolySimplify], "tasks must be a mapping"),
        ("a str", "poly", "tasks must be a mapping"),
        ("an int", 5, "tasks must be a mapping"),
        ("an unreadable mapping", _UnreadableTasks(a=PolySimplify), "can't be read"),
        ("an int name", {**good, 5: PolySimplify}, "a task name must be a str"),
        ("a None name", {**good, None: PolySimplify}, "a task name must be a str"),
        ("an empty name", {**good, "": PolySimplify}, "task name '' must be"),
        ("a name with a space", {**good, "a b": PolySimplify}, "task name 'a b' must be"),
        ("a name with a slash", {**good, "a/b": PolySimplify}, "task name 'a/b' must be"),
        ("a name with a colon", {**good, "a:b": PolySimplify}, "task name 'a:b' must be"),
        ("a name with a newline", {**good, "a\nb": PolySimplify}, "must be 1 to 64"),
        ("a long name", {**good, "a" * 5000: PolySimplify}, "(5000 characters) must be"),
        ("a non-ASCII name", {**good, "é": PolySimplify}, "ASCII letters"),
        ("an env instance", {**good, "zz-inst": PolySimplify()}, "expected a MathyEnv subclass"),
        ("a class of no env", {**good, "zz-dict": dict}, "expected a MathyEnv subclass, got <class 'dict'>"),
        ("an object without repr", {**good, "zz-br": _BadRepr()}, "got <_BadRepr object>"),
        ("a name without repr", {**good, _BadRepr(): PolySimplify}, "got _BadRepr <_BadRepr object>"),
        # Classes whose every reset fails with NotImplementedError.
        ("the base MathyEnv", {**good, "zz-base": MathyEnv}, "does not define get_env_namespace or problem_fn"),
        ("the base GoalEnv", {**good, "zz-goal": GoalEnv}, "does not define get_env_namespace or problem_fn"),
        ("a class without problem_fn", {**good, "zz-np": NoProblems}, "does not define problem_fn ("),
    ]


@pytest.mark.parametrize("name", [name for name, _, _ in _bad_tasks()])
def test_bad_tasks_are_value_errors_and_register_nothing(name: str) -> None:
    import gymnasium

    from mathy_envs.gym import register_envs

    _, tasks, message = next(case for case in _bad_tasks() if case[0] == name)
    before = dict(gymnasium.registry)
    with pytest.raises(ValueError) as info:
        register_envs(tasks)
    assert message in str(info.value)
    assert len(str(info.value)) < 400
    assert gymnasium.registry == before  # nothing registered, nothing replaced


def test_an_id_gymnasium_refuses_registers_none_of_the_others() -> None:
    """gymnasium refuses `mathy-zz-late-normal-v0` when `mathy-zz-late-normal`
    (no version) is registered: the ids registered before it in the same call
    are taken back, and a replaced stale spec is put back."""
    import gymnasium

    from mathy_envs.envs import PolySimplify
    from mathy_envs.gym import register_envs
    from mathy_envs.gym.registration import ENTRY_POINT

    stale_class = type("PolySimplify", (PolySimplify,), {"__module__": PolySimplify.__module__})
    stale_class.__qualname__ = PolySimplify.__qualname__
    gymnasium.register(id="mathy-zz-late-normal", entry_point=ENTRY_POINT)
    gymnasium.register(
        id="mathy-zz-early-easy-v0", entry_point=ENTRY_POINT, kwargs={"env_class": stale_class}
    )
    stale = gymnasium.registry["mathy-zz-early-easy-v0"]
    try:
        before = dict(gymnasium.registry)
        with pytest.raises(ValueError, match="gymnasium refused to register 'mathy-zz-late-normal-v0'"):
            register_envs({"zz-early": PolySimplify, "zz-late": PolySimplify})
        assert gymnasium.registry == before
        assert gymnasium.registry["mathy-zz-early-easy-v0"] is stale
    finally:
        for env_id in list(gymnasium.registry):
            if env_id.startswith("mathy-zz-"):
                del gymnasium.registry[env_id]


def test_good_task_names_still_register() -> None:
    import gymnasium

    from mathy_envs.envs import PolySimplify
    from mathy_envs.gym import register_envs

    names = ["zz-a", "zz.b_2", "ZZ-3-v1", "9zz"]
    try:
        ids = register_envs({name: PolySimplify for name in names})
        assert ids == [f"mathy-{n}-{d}-v0" for n in names for d in ("easy", "normal", "hard")]
        assert all(env_id in gymnasium.registry for env_id in ids)
    finally:
        for name in names:
            for difficulty in ("easy", "normal", "hard"):
                gymnasium.registry.pop(f"mathy-{name}-{difficulty}-v0", None)


def _declared_env() -> Any:
    from mathy_envs.envs import PolySimplify
    from mathy_envs.envs.goal import SimplifyGoalEnv
    from mathy_envs.envs.poly_simplify import poly_simplify_problem

    class DeclaredTask(SimplifyGoalEnv):
        """A task that declares its namespace and generator, no methods."""

        namespace = "zz.declared"
        generator = staticmethod(poly_simplify_problem)

    assert PolySimplify.generator is poly_simplify_problem
    return DeclaredTask


def test_a_class_that_declares_namespace_and_generator_registers_and_plays() -> None:
    import gymnasium

    from mathy_envs.gym import register_envs

    declared = _declared_env()
    try:
        ids = register_envs({"zz-declared": declared})
        env = gymnasium.make(ids[0])
        env.reset(seed=1)
        assert env.unwrapped.mathy.get_env_namespace() == "zz.declared"  # type: ignore[attr-defined]
        env.close()
    finally:
        for difficulty in ("easy", "normal", "hard"):
            gymnasium.registry.pop(f"mathy-zz-declared-{difficulty}-v0", None)


def test_a_class_that_declares_only_a_namespace_is_refused_for_its_generator() -> None:
    from mathy_envs.envs.goal import SimplifyGoalEnv
    from mathy_envs.gym import register_envs

    class NamespaceOnly(SimplifyGoalEnv):
        namespace = "zz.namespace.only"

    with pytest.raises(ValueError, match=r"does not define problem_fn \(nor declare generator"):
        register_envs({"zz-namespace-only": NamespaceOnly})
