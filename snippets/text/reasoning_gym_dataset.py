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
for name, answer in [("the reference", entry["answer"]), ("the final line alone", final)]:
    print(f"{name:<22} {data.score_answer(answer, entry):.2f}")
