"""Play a whole episode with random valid actions, then replay its history."""

from mathy_envs import envs
from mathy_envs.episodes import random_episode

env = envs.PolySimplify(seed=3)
state, problem = env.get_initial_state()
episode = random_episode(env, state, env.np_random)

env.print_history(episode.state)
outcome = "won" if episode.won else "lost"
print(f"{outcome} after {episode.steps} moves, total reward {episode.reward:+.2f}")
