"""Time the action masks of the costliest expression shapes we know of.

A mask checks every candidate action of an expression that is not a small
polynomial: it applies the rule to a copy, prints and parses the result, and
compares its exact value with the expression's. This script builds texts of each
costly shape near the node limit and prints the time of their first (uncached)
mask, so a change to the check can be compared with the documented bound
(about a second at the node limit).

    python tools/worst_masks.py [--repeat 3]
"""

import argparse
import statistics
import time
from typing import Callable, Dict, List

from mathy_envs import envs
from mathy_envs.limits import MAX_NODES


def power_chain(levels: int, terms: int) -> str:
    """`x^x^...^x^0.5 + y + y + ...`: a power chain under a fractional exponent."""
    return "^".join(["x"] * levels) + "^0.5" + " + y" * terms


def root_sum(terms: int) -> str:
    """A long sum of fractional powers of sums."""
    return " + ".join(f"({i % 7 + 1}x + {i % 5 + 1})^0.5" for i in range(terms))


def quotient_powers(terms: int) -> str:
    """Quotients under fractional powers, each printed with dropped parentheses."""
    return " + ".join(f"(x / (y * {i % 9 + 2}))^1.5" for i in range(terms))


def decimal_sum(terms: int) -> str:
    """Decimals read two ways (as written and as binary floats)."""
    return " + ".join(f"{(i % 9 + 1) / 10}x^{i % 3 + 2}" for i in range(terms))


def factorial_sum(terms: int) -> str:
    return " + ".join(f"{i % 6}! * x^{i % 4 + 1}" for i in range(terms))


def nested_products(depth: int) -> str:
    text = "x"
    for i in range(depth):
        text = f"({text} * {i % 3 + 2}y)^0.5"
    return text + " + x"


def chain_last(levels: int, terms: int) -> str:
    """A sum of `y` that ends in a power chain under a fractional exponent."""
    return " + ".join(["y"] * terms) + " + " + "^".join(["x"] * levels) + "^0.5"


def chain_exponent(levels: int, terms: int) -> str:
    """A power chain in the exponent of a variable."""
    return "x^(" + "^".join(["x"] * levels) + "^0.5)" + " + y" * terms


def factorial_product(factors: int, terms: int) -> str:
    """A product of large factorials (exact values of thousands of digits)."""
    return " * ".join(["1000!"] * factors) + " + x" * terms


def large_decimals(terms: int) -> str:
    """Coefficients near MAX_CONSTANT, which mathy_core factors by trial division."""
    return " + ".join(f"{999999999 - i}.5x" for i in range(terms))


SHAPES: Dict[str, Callable[[], str]] = {
    "power chain 40 + 80 y": lambda: power_chain(40, 80),
    "power chain 60 + 60 y": lambda: power_chain(60, 60),
    "power chain 80 + 40 y": lambda: power_chain(80, 40),
    "power chain 120 + 6 y": lambda: power_chain(120, 6),
    "87 y + chain 40": lambda: chain_last(40, 87),
    "x^(chain 40) + 86 y": lambda: chain_exponent(40, 86),
    "roots of sums x 30": lambda: root_sum(30),
    "quotients under powers x 28": lambda: quotient_powers(28),
    "decimal sum x 42": lambda: decimal_sum(42),
    "factorial sum x 36": lambda: factorial_sum(36),
    "nested roots x 40": lambda: nested_products(40),
    "60 x 1000! + 38 x": lambda: factorial_product(60, 38),
    "large decimals x 64": lambda: large_decimals(64),
}


def mask_seconds(text: str, repeat: int) -> List[float]:
    times = []
    for _ in range(repeat):
        env = envs.PolySimplify(max_seq_len=MAX_NODES)  # a fresh env: no cached mask
        state = env.state_from_text(text)
        start = time.perf_counter()
        env.valid_moves_array(state)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'shape':32} {'nodes':>5} {'valid':>5} {'median s':>9} {'max s':>7}")
    for name, build in SHAPES.items():
        text = build()
        env = envs.PolySimplify(max_seq_len=MAX_NODES)
        try:
            state = env.state_from_text(text)
        except ValueError as error:
            print(f"{name:32} refused: {error}"[:120])
            continue
        valid = int(env.valid_moves_array(state).sum())
        times = mask_seconds(text, args.repeat)
        print(
            f"{name:32} {env.node_count(text):5d} {valid:5d} "
            f"{statistics.median(times):9.3f} {max(times):7.3f}"
        )


if __name__ == "__main__":
    main()
