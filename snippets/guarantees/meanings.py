"""Steps are judged by what their result means, not by how it prints."""

from mathy_envs import MathyEnv


class AnyText(MathyEnv):
    """A bare env that takes any text, equations included."""

    def get_env_namespace(self) -> str:
        return "docs.any_text"


env = AnyText()
for text in ["(1 / (x * y))^0.5 + 2", "4^0.5 + x", "x * x^0.5", "2x = 4"]:
    state = env.state_from_text(text)
    results = sorted(
        env.get_next_state(state, (rule, node))[0].agent.problem
        for rule, row in enumerate(env.get_valid_moves(state))
        for node, valid in enumerate(row)
        if valid
    )
    print(f"{text:22} -> {results}")
for text in ["(-1 - x^2)^0.5 + x", "x / 0^(0!)"]:
    try:
        env.state_from_text(text)
    except ValueError as error:
        print(f"{text:22} -> ValueError: {error}")
