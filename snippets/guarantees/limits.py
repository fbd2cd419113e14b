"""Text outside the supported range is refused at once, with the limit named."""

from mathy_envs import MathyEnvState
from mathy_envs.limits import MAX_CONSTANT

for text in [f"{MAX_CONSTANT}x + 2x", f"{MAX_CONSTANT + 1}x + 2x", "1/0 + x", "(" * 100 + "x)"]:
    try:
        MathyEnvState(problem=text)
        print(f"accepted: {text}")
    except ValueError as error:
        print(f"refused:  {error}")
