"""Actions whose result would not have the expression's exact value are not valid."""

from mathy_envs import envs

env = envs.PolySimplify()
for text in ["2^10 + x", "3^40 + x", "0.5 + 0.25 + x", "0.1 + 0.2 + x"]:
    state = env.state_from_text(text)
    constants_row = env.get_valid_moves(state)[0]  # rule 0: constant arithmetic
    if any(constants_row):
        after, _, _ = env.get_next_state(state, (0, constants_row.index(1)))
        print(f"{text:16} -> {after.agent.problem}")
    else:
        print(f"{text:16} -> constant arithmetic is not a valid action")
