"""Composition at construction: another reward scheme and another problem
generator, given to a built-in environment's constructor."""

from mathy_envs import MathyEnvDifficulty, MathyEnvProblemArgs, envs
from mathy_envs.envs.complex_simplify import complex_simplify_problem
from mathy_envs.rewards import EnvRewards, RewardScheme


class NoRuleBonus(RewardScheme):
    """The default scheme without check 5: every rule costs a plain time step."""

    def rule_used(self, env, state, features):  # type: ignore[no-untyped-def]
        return None


# PolySimplify's goal (simplify), ComplexSimplify's problems, no rule bonus
env = envs.PolySimplify(
    reward_scheme=NoRuleBonus(), generator=complex_simplify_problem, seed=3
)
state, problem = env.get_initial_state(MathyEnvProblemArgs(MathyEnvDifficulty.normal))
print("problem:", problem.text)
rules, nodes = env.valid_moves_array(state).nonzero()
action = (int(rules[0]), int(nodes[0]))  # the first valid move
state, step, _ = env.get_next_state(state, action)
print(
    f"{env.rules[action[0]].name} -> {state.agent.problem}, reward {step.reward:+.2f}"
)
assert step.reward == EnvRewards.TIMESTEP  # a helpful rule, but no bonus here

# every env function `<file>_problem(rng, params)` is a generator of its own
print(complex_simplify_problem(env.np_random, MathyEnvProblemArgs()).text)
