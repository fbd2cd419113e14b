"""A few seeded PolyCombineInPlace problems at each difficulty."""

from mathy_envs import MathyEnvDifficulty, MathyEnvProblemArgs, envs

env = envs.PolyCombineInPlace(seed=7)
for difficulty in MathyEnvDifficulty:
    for _ in range(3):
        state, problem = env.get_initial_state(MathyEnvProblemArgs(difficulty))
        print(f"{difficulty.value:<6} {state.max_moves:>2} moves  {problem.text}")
