"""Solve (x + 2)(x + 3) in BinomialDistribute, one (rule, node) action at a time.

The actions were found by a breadth-first search over the valid moves.
"""

from mathy_envs import envs
from mathy_envs.time_step import is_terminal_transition

env = envs.BinomialDistribute()
state = env.state_from_text("(x + 2)(x + 3)", max_moves=16)  # complexity 4 x 4 moves
actions = [  # (rule index, node index)
    (2, 3), (2, 3), (2, 9), (0, 13),
    (3, 7), (0, 5), (5, 1), (0, 3),
]

print(f"{'start':<34} {state.agent.problem}")
for rule_index, node_index in actions:
    rule = env.rules[rule_index]
    state, time_step, change = env.get_next_state(state, (rule_index, node_index))
    step = f"{rule.name} at node {node_index}"
    print(f"{step:<34} {state.agent.problem:<28} reward {time_step.reward:+.2f}")

assert is_terminal_transition(time_step), "the episode is over"
assert time_step.reward == env.get_win_signal(state), "and it is a win"
print(f"won in {len(actions)} of {state.max_moves} moves")
