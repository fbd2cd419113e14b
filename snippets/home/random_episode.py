"""Play a whole episode with random valid actions, then replay its history."""

from mathy_envs import envs
from mathy_envs.time_step import is_terminal_transition

env = envs.PolySimplify(seed=3)
state, problem = env.get_initial_state()
total = 0.0
while True:
    action = env.random_action(env.parser.parse(state.agent.problem))
    state, time_step, _ = env.get_next_state(state, action)
    total += time_step.reward
    if is_terminal_transition(time_step):
        break

env.print_history(state)
outcome = "won" if time_step.reward > 0 else "lost"
print(f"{outcome} after {len(state.agent.history) - 1} moves, total reward {total:+.2f}")
