"""TorchRL: a registered mathy id as a `GymEnv`, with masked random actions.

Needs `pip install mathy_envs[gym] torchrl`. The step infos hold only arrays and
0-d bool arrays, so `auto_register_info_dict()` reads them into the tensordict:
`action_mask` (int8 0/1, one entry per flat action), `valid`, `oversize` and
`win`. `ActionMask` then restricts the action spec to the valid actions.
"""

import torch
from torchrl.envs import GymEnv, TransformedEnv
from torchrl.envs.transforms import ActionMask

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)

env = GymEnv("mathy-poly-easy-v0")
env.auto_register_info_dict()  # action_mask, valid, oversize, win
env = TransformedEnv(env, ActionMask())
env.set_seed(3)
torch.manual_seed(3)

for episode in range(3):
    rollout = env.rollout(100, break_when_any_done=True)  # random valid actions
    chosen = rollout["action"].argmax(-1)  # one-hot actions
    valid = rollout["action_mask"].gather(-1, chosen.unsqueeze(-1)).bool().all()
    last = rollout[-1]["next"]
    print(
        f"episode {episode}: {rollout.shape[0]} steps, every action valid: {bool(valid)}, "
        f"won: {bool(last['win'])}, last reward {last['reward'].item():+.2f}"
    )
print("observation", tuple(rollout["observation"].shape[1:]), rollout["action_mask"].dtype)
