"""A swarm solution is a plain list of actions: replaying it reproduces the states."""

from mathy_envs import MathyEnvDifficulty, MathyEnvProblemArgs, envs
from mathy_envs.swarm import SwarmConfig, swarm_solve
from mathy_envs.time_step import is_terminal_transition

env = envs.BinomialDistribute(seed=5)
start, problem = env.get_initial_state(MathyEnvProblemArgs(MathyEnvDifficulty.normal))
solution = swarm_solve(start, SwarmConfig(seed=1), env=env)
assert solution.solved, f"no solution for {problem.text}"

state = start
for action, expected in zip(solution.actions, solution.states):
    state, time_step, _ = env.get_next_state(state, action)
    assert state.agent.problem == expected.agent.problem
assert is_terminal_transition(time_step) and time_step.reward > 0
print(f"{problem.text}  ->  {state.agent.problem}  in {len(solution.actions)} moves")
