"""Solve 4x + 2y + 2x in PolySimplify, one (rule, node) action at a time.

The actions were found by a breadth-first search over the valid moves.
"""

from mathy_envs import envs
from mathy_envs.time_step import is_terminal_transition

env = envs.PolySimplify()
state = env.state_from_text("4x + 2y + 2x", max_moves=12)  # 3 terms x 4 moves
actions = [(1, 3), (3, 7), (0, 5)]  # (rule index, node index)

print(f"{'start':<34} {state.agent.problem}")
for rule_index, node_index in actions:
    rule = env.rules[rule_index]
    state, time_step, change = env.get_next_state(state, (rule_index, node_index))
    step = f"{rule.name} at node {node_index}"
    print(f"{step:<34} {state.agent.problem:<28} reward {time_step.reward:+.2f}")

assert is_terminal_transition(time_step), "the episode is over"
assert time_step.reward == env.get_win_signal(state), "and it is a win"
print(f"won in {len(actions)} of {state.max_moves} moves")
