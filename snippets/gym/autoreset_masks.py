"""The mask that comes with the step that ends an episode, in each autoreset mode."""

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)

# 4x + 2x is won in two moves, and the final expression, 6x, has no valid move.
FACTOR, SIMPLIFY = 3 * 128 + 3, 0 * 128 + 1  # rule * max_seq_len + node


def make_env() -> gymnasium.Env:
    return gymnasium.make("mathy-poly-easy-v0", env_problem="4x + 2x", env_max_moves=5)


def valid(masks: np.ndarray) -> str:
    return f"{int(masks[0].sum())} valid actions"


for mode in AutoresetMode:
    envs = SyncVectorEnv([make_env], autoreset_mode=mode)
    envs.reset(seed=0)
    envs.step(np.array([FACTOR]))
    obs, rewards, terminated, truncated, infos = envs.step(np.array([SIMPLIFY]))
    print(f"{mode.value:<9} winning step: {valid(infos['action_mask'])}", end="")
    if mode is AutoresetMode.NEXT_STEP:
        print()
        # The next step resets the environment and ignores its action.
        obs, rewards, terminated, truncated, infos = envs.step(np.array([0]))
        print(f"{'':<9} next step: reward {rewards[0]}, {valid(infos['action_mask'])}")
        assert rewards[0] == 0 and not (terminated[0] or truncated[0])
    elif mode is AutoresetMode.SAME_STEP:
        # The step returned the new episode; the finished one is in final_info.
        print(" (the new episode's)")
        final = infos["final_info"]["action_mask"]
        print(f"{'':<9} final_info: {valid(final)} (the finished episode's)")
    else:
        print()
        # Reset the finished environments yourself before the next step.
        obs, infos = envs.reset(options={"reset_mask": terminated | truncated})
        print(f"{'':<9} reset(options={{'reset_mask': ...}}): {valid(infos['action_mask'])}")
    envs.close()
