"""The `mathy-envs` command line (for now: a short demo of one environment)."""

import argparse
import sys
from typing import List, Optional

from .envs import PolySimplify
from .state import ObservationType


def demo(seed: int) -> None:
    """Generate a PolySimplify problem and show its tree, observations and moves."""
    env = PolySimplify(seed=seed)
    state, problem = env.get_initial_state()
    print(f"problem     : {problem.text}  (complexity {problem.complexity})")
    print(f"namespace   : {problem.type}")
    print(f"max moves   : {state.max_moves}")
    parsed = env.parse(state.agent.problem)
    print("tree (in-order, the order actions count nodes):")
    for index, node in enumerate(parsed.nodes):
        depth = int(parsed.layout.depth[index])
        print(f"  {index:3} {'  ' * depth}{type(node).__name__}: {node}")
    print("observations (max_seq_len 128):")
    for obs_type in ObservationType:
        obs = env.state_to_observation(state, obs_type=obs_type)
        if isinstance(obs, tuple):
            shapes = ", ".join(
                f"{name}{tuple(value.shape)}"
                for name, value in obs.to_dict().items()  # type: ignore[union-attr]
                if hasattr(value, "shape")
            )
        else:
            shapes = f"array{tuple(obs.shape)}"
        print(f"  {obs_type.value:16} {shapes}")
    moves = env.valid_moves_array(state)
    print("valid moves:")
    for rule_index, node_index in list(zip(*moves.nonzero()))[:8]:
        rule = env.rules[int(rule_index)]
        node = parsed.nodes[int(node_index)]
        print(f"  ({int(rule_index)}, {int(node_index):3}) {rule.name:22} at {node}")
    print(f"({int(moves.sum())} valid actions out of {env.action_size})")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="mathy-envs",
        description="Reinforcement learning environments for step-by-step algebra.",
    )
    parser.add_argument("--seed", type=int, default=0, help="problem seed (default 0)")
    args = parser.parse_args(argv)
    demo(args.seed)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
