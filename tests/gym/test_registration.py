"""The `module:id` form of the ids: `gymnasium.make("mathy_envs.gym:<id>")` imports
`mathy_envs.gym` (which registers the ids) first, so it works in processes that
never imported it, where the bare id is unknown."""

import textwrap

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
    assert env.observation_space.contains(obs) and info["valid"] is True
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
