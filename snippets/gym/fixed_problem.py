"""Wrap any MathyEnv class with a fixed problem, and step it with flat actions."""

from mathy_envs import envs
from mathy_envs.gym import MathyGymEnv

# published_info=True: step infos also hold the change a move made.
env = MathyGymEnv(
    envs.PolySimplify, env_problem="4x + 2y + 2x", env_max_moves=12, published_info=True
)
obs, info = env.reset(seed=0)
L = env.mathy.max_seq_len

# (rule, node) pairs flatten to rule * max_seq_len + node.
for rule, node in [(1, 3), (3, 7), (0, 5)]:
    action = rule * L + node
    assert env.action_masks()[action], "the action is valid"
    obs, reward, terminated, truncated, info = env.step(action)
    print(f"{action:>4} = ({rule}, {node})  {info['change'].expression:<16} {reward:+.2f}")

assert terminated and info["win"]
print(f"won with {env.state.agent.moves_remaining} moves to spare")
