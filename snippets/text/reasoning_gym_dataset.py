"""The environments as reasoning-gym datasets (`pip install "mathy_envs[reasoning-gym]"`)."""

import reasoning_gym

import mathy_envs.text.reasoning_gym  # noqa: F401  (registers the mathy_* datasets)

data = reasoning_gym.create_dataset("mathy_poly_simplify", seed=42, size=100)
entry = data[3]
print(entry["question"])
print("--- reference answer ---")
print(entry["answer"])
print("--- scores ---")
final = entry["answer"].splitlines()[-1]
slip = final.replace("+", "-", 1)  # a sign error in the last line
one_rewrite = reasoning_gym.create_dataset("mathy_poly_simplify", seed=42, size=100, steps_per_line=1)
for name, answer in [("the reference", entry["answer"]), ("the final line alone", final), ("a slip", slip)]:
    default = data.score_answer(answer, entry)
    strict = one_rewrite.score_answer(answer, one_rewrite[3])
    print(f"{name:<22} {default:.2f} (steps_per_line=None)  {strict:.2f} (steps_per_line=1)")
