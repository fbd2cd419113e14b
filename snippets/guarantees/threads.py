"""Each thread with its own env gets exactly the episodes of a single-threaded run."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mathy_envs import envs
from mathy_envs.env import sample_valid_action


def episode(seed: int) -> str:
    env = envs.PolySimplify(seed=seed)
    rng = np.random.default_rng(seed)
    state, _ = env.get_initial_state(print_problem=False)
    for _ in range(10):
        action = sample_valid_action(env.valid_moves_array(state), rng)
        if action is None:
            break
        state, _, _ = env.get_next_state(state, action)
    return state.agent.problem


with ThreadPoolExecutor(max_workers=4) as pool:
    threaded = list(pool.map(episode, range(8)))
print(threaded == [episode(seed) for seed in range(8)])
