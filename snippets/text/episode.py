"""A multi-turn text episode: each reply is judged, and a move is taken only when
the reply is exactly one valid rewrite."""

from mathy_envs.envs import PolySimplify
from mathy_envs.text import TextEpisode

episode = TextEpisode(PolySimplify(), mode="rewrite")
print(episode.reset(problem="4x + 2y + 3x"))
print()
replies = [
    "Combine 4x and 3x: 7x + 2y",  # prose, not an expression
    "2y + 7x",  # the right answer, but three moves at once
    "2y + 4x + 3x",
    "2y + (4 + 3) * x",
    "Adding the constants gives\nAnswer: 2y + 7x",
]
for reply in replies:
    step = episode.step(reply)
    print(f"{step.verdict.kind:<13} {step.reward:+.2f}  {step.verdict.reason}")
print(f"won: {step.won}, moves left: {episode.state.agent.moves_remaining}")
