"""The Gymnasium masks leave out moves back to an expression the episode has seen."""

import gymnasium

import mathy_envs.gym  # noqa: F401  (registers the mathy-* ids)

for mask_revisits in (True, False):
    env = gymnasium.make(
        "mathy-poly-easy-v0", env_problem="4x + 2y + 3x", mask_revisits=mask_revisits
    )
    mathy = env.unwrapped.mathy
    swap = 1 * mathy.max_seq_len + 3  # commutative swap at the first "+"
    env.reset()
    obs, reward, terminated, truncated, info = env.step(swap)
    state = env.unwrapped.state
    print(f"mask_revisits={mask_revisits}: after the swap, {state.agent.problem}")
    for (rule, node), result in sorted(mathy.move_results(state).items()):
        offered = info["action_mask"][rule * mathy.max_seq_len + node]
        name = mathy.rules[rule].name
        print(f"  {'offered' if offered else 'left out':<8}  {name} at {node} -> {result}")
    # A move left out is still valid: an unmasked agent may take it.
    obs, reward, terminated, truncated, info = env.step(swap)
    print(f"  swapping back anyway: valid {bool(info['valid'])}, reward {reward}")
