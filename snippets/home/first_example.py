from mathy_envs import envs
from mathy_envs.swarm import swarm_solve

env = envs.PolySimplify(seed=0)
state, problem = env.get_initial_state()
print("problem:", problem.text)
mask = env.valid_moves_array(state)
print("valid actions:", int(mask.sum()), "of", mask.size)
solution = swarm_solve(problem.text, env=env)
print("solved:", solution.solved, "in", len(solution.actions), "moves ->", solution.states[-1].agent.problem)
