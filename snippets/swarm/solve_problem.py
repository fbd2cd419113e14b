"""Solve a problem with the swarm planner: no model, no training."""

from mathy_envs import envs
from mathy_envs.swarm import SwarmConfig, swarm_solve

env = envs.PolySimplify()
problem = "4x + 2y + 3x + 7y"
solution = swarm_solve(problem, SwarmConfig(n_walkers=64, seed=0), env=env)

print(f"{'start':<34} {problem}")
for (rule, node), state in zip(solution.actions, solution.states):
    step = f"{env.rules[rule].name} at node {node}"
    print(f"{step:<34} {state.agent.problem}")
print(f"solved={solution.solved} reward={solution.reward:+.2f} iterations={solution.iterations}")
assert solution.solved
