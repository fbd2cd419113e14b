"""Expression trees drawn as text: one node a line, each with its in-order
index (the node number that moves and masks use)."""

from typing import Dict, List

from mathy_core import MathExpression

from ..env import MathyEnv


def tree_lines(env: MathyEnv, text: str) -> List[str]:
    """The tree of `text` as the env's parser reads it, top down: operators by
    their symbol, leaves by their text, each with its node index in brackets.

        + [5]
        ├── * [1]
        │   ├── 4 [0]
        │   └── x [2]
        ...
    """
    parsed = env.parse(text)
    index: Dict[int, int] = {id(node): i for i, node in enumerate(parsed.layout.nodes)}
    lines: List[str] = []

    def draw(node: MathExpression, lead: str, branch: str, last: bool) -> None:
        children = [child for child in node.get_children() if child is not None]
        label = str(getattr(node, "name", "")) if children else str(node)
        lines.append(f"{lead}{branch}{label} [{index.get(id(node), '?')}]")
        inner = lead + ("" if not branch else ("    " if last else "│   "))
        for position, child in enumerate(children):
            final = position == len(children) - 1
            draw(child, inner, "└── " if final else "├── ", final)

    draw(parsed.tree, "", "", True)
    return lines


__all__ = ("tree_lines",)
