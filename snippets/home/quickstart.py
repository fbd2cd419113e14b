"""Generate a problem, look at it the way an agent does, and take one action."""

from mathy_envs import envs
from mathy_envs.state import MathyGraphObservation, ObservationType

env = envs.PolySimplify(seed=0)
state, problem = env.get_initial_state()
print(f"problem: {problem.text}  (complexity {problem.complexity})")
print(f"move budget: {state.max_moves}")

# Valid actions: a num_rules x num_nodes 0/1 matrix, nodes counted left to right.
mask = env.get_valid_moves(state)
print(f"valid actions: {sum(map(sum, mask))} of {env.action_size}")

# What a graph neural network would see.
obs = state.to_observation(move_mask=mask, obs_type=ObservationType.GRAPH)
assert isinstance(obs, MathyGraphObservation)
print(f"graph observation: {obs.num_nodes} nodes, node features {obs.node_features.shape}")

# Take one random valid (rule, node) action.
action = env.random_action(env.parser.parse(state.agent.problem))
next_state, time_step, change = env.get_next_state(state, action)
rule = env.rules[action[0]]
print(f"{rule.name} at node {action[1]}: {next_state.agent.problem}")
print(f"reward: {time_step.reward:+.2f}")
