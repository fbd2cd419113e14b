"""Any `MathyEnv` as text, for training language models with rewards that check
every step.

- `prompt_text` / `text_moves` (`mathy_envs.text.prompts`): a state as a prompt:
  the goal in words, the expression, the moves left and the numbered valid moves
  with the expression each gives;
- `read_reply` (`mathy_envs.text.replies`): a model's reply as a `Verdict`, in
  "choose" mode (it names a move) or "rewrite" mode (it writes the next
  expression, accepted when it is what one valid move gives);
- `TextEpisode` (`mathy_envs.text.episode`): a multi-turn episode, `reset()` to
  a prompt and `step(reply)` to the next prompt, reward, end and verdict, with
  the env's own rewards and move budget;
- `score_derivation` / `derivation_reward` (`mathy_envs.text.derivations`): a
  whole solution, one expression per line, checked line by line at a grain
  (`steps_per_line`: one valid move a line, at most `k`, or any rewrite that
  keeps the exact value), with a verdict per line: the reward of single-turn RL
  (`score(problem, completion) -> float`) and process rewards;
- `read_math` (`mathy_envs.text.notation`): a line of math as people write it
  (`(10 + 5)z^2`, `x(x + 9)`, LaTeX), read with the standard precedence and
  written as the env's own text.

Adapters: `mathy_envs.text.reasoning_gym` (reasoning-gym datasets) and
`mathy_envs.text.verifiers` (a verifiers environment), each needing its package,
and `mathy_envs.text.grpo` (rows and a reward function for TRL's `GRPOTrainer`,
in plain Python). Nothing here needs a model, a network or a dependency beyond
the base install.
"""

from .derivations import (
    MAX_DERIVATION_LINES,
    DerivationScore,
    LineVerdict,
    derivation_lines,
    derivation_reward,
    score_derivation,
)
from .episode import TextEpisode, TextStep
from .notation import read_math
from .prompts import CHOOSE, MODES, REWRITE, TextMove, goal_text, prompt_text, text_moves
from .replies import (
    ACCEPTED,
    CHANGES_VALUE,
    MALFORMED,
    NOT_ONE_MOVE,
    TOO_LONG,
    UNCHANGED,
    UNKNOWN_MOVE,
    VERDICT_KINDS,
    Verdict,
    read_reply,
)

__all__ = (
    "ACCEPTED",
    "CHANGES_VALUE",
    "CHOOSE",
    "DerivationScore",
    "LineVerdict",
    "MALFORMED",
    "MAX_DERIVATION_LINES",
    "MODES",
    "NOT_ONE_MOVE",
    "REWRITE",
    "TOO_LONG",
    "TextEpisode",
    "TextMove",
    "TextStep",
    "UNCHANGED",
    "UNKNOWN_MOVE",
    "VERDICT_KINDS",
    "Verdict",
    "derivation_lines",
    "derivation_reward",
    "goal_text",
    "prompt_text",
    "read_math",
    "read_reply",
    "score_derivation",
    "text_moves",
)
