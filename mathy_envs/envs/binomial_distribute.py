"""BinomialDistribute: multiply out binomials and simplify the result.

Its generator, `binomial_distribute_problem` (built on `binomial_times_binomial`
and `binomial_times_monomial`, with their knobs, `BinomialStyle`), is above the
env."""

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np

from ..problems import (
    NativeFamily,
    GeneratedProblem,
    chance,
    rand_coefficient,
    rand_int,
    rand_variable,
    retry,
    term_text,
)
from .._engine import simplified_entry
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .generation import generator_difficulty
from .goal import SimplifyGoalEnv

NAMESPACE = "mathy.binomials.mulptiply"


@dataclass(frozen=True)
class BinomialStyle:
    """Knobs of the binomial families: how often a term gets a coefficient or a
    power, how often a binomial's second term is another variable, and whether
    variables come from the common `x, y, z`."""

    coefficient_probability: float = 0.0
    power_probability: float = 0.0
    second_variable_probability: float = 0.0
    common_variables: bool = True


STYLES: Dict[MathyEnvDifficulty, BinomialStyle] = {
    MathyEnvDifficulty.easy: BinomialStyle(),
    MathyEnvDifficulty.normal: BinomialStyle(coefficient_probability=0.5),
    MathyEnvDifficulty.hard: BinomialStyle(
        coefficient_probability=0.5,
        power_probability=0.5,
        second_variable_probability=0.3,
        common_variables=False,
    ),
}


def binomial_distribute_problem(
    rng: np.random.Generator, params: MathyEnvProblemArgs, *, namespace: str = NAMESPACE
) -> MathyEnvProblem:
    """A BinomialDistribute problem: `binomial_times_binomial` or
    `binomial_times_monomial`, each half the time, in `STYLES[params.difficulty]`."""
    style = STYLES[generator_difficulty(rng, params, namespace)]
    drawn = _NATIVE.draw(rng, *_native_knobs(style))
    if drawn is None:
        if chance(rng, 0.5):
            drawn = binomial_times_binomial(rng, style)
        else:
            drawn = binomial_times_monomial(rng, style)
    return MathyEnvProblem(drawn.text, drawn.complexity, namespace)


def _binomial_terms(
    rng: np.random.Generator, variable: str, style: BinomialStyle
) -> Tuple[str, str]:
    exponent = rand_int(rng, 2, 3) if chance(rng, style.power_probability) else None
    coefficient = (
        rand_coefficient(rng, 2) if chance(rng, style.coefficient_probability) else None
    )
    head = term_text(coefficient, variable, exponent)
    if chance(rng, style.second_variable_probability):
        other = rand_variable(rng)
        tail = term_text(rand_coefficient(rng, 2), other if other != variable else None)
    else:
        tail = str(rand_coefficient(rng))
    return head, tail


def binomial_times_binomial(
    rng: np.random.Generator, style: BinomialStyle = BinomialStyle()
) -> GeneratedProblem:
    """`(x + 2)(x + 3)`, with coefficients, powers and a second variable as often
    as `style` says. Complexity: 4 (the terms of the two factors)."""

    def build() -> GeneratedProblem:
        variable = rand_variable(rng, common=style.common_variables)
        a, b = _binomial_terms(rng, variable, style)
        c, d = _binomial_terms(rng, variable, style)
        return GeneratedProblem(f"({a} + {b})({c} + {d})", 4)

    return retry(build, simplified_entry, "binomial_times_binomial")


def binomial_times_monomial(
    rng: np.random.Generator, style: BinomialStyle = BinomialStyle()
) -> GeneratedProblem:
    """`(k + 2) * k`, with coefficients and powers as often as `style` says.
    Complexity: 3 (the terms of the two factors)."""

    def build() -> GeneratedProblem:
        variable = rand_variable(rng, common=style.common_variables)
        a, b = _binomial_terms(rng, variable, style)
        exponent = rand_int(rng, 2, 3) if chance(rng, style.power_probability) else None
        coefficient = (
            rand_coefficient(rng, 2) if chance(rng, style.coefficient_probability) else None
        )
        monomial = term_text(coefficient, variable, exponent)
        return GeneratedProblem(f"({a} + {b}) * {monomial}", 3)

    return retry(build, simplified_entry, "binomial_times_monomial")


def _native_knobs(style: BinomialStyle) -> Tuple[Optional[Tuple[int]], Tuple[float, ...]]:
    """A style's knobs as the native core reads them: no counts (Python draws)
    for a style that is not a plain `BinomialStyle`."""
    if type(style) is not BinomialStyle or type(style.common_variables) is not bool:
        return None, ()
    chances = (
        style.coefficient_probability,
        style.power_probability,
        style.second_variable_probability,
    )
    return (int(style.common_variables),), chances


_NATIVE = NativeFamily(
    "binomial_distribute", binomial_distribute_problem, _binomial_terms,
    binomial_times_binomial, binomial_times_monomial, _native_knobs
)
"""The native core's draws of this generator (`NativeFamily`)."""


class BinomialDistribute(SimplifyGoalEnv):
    """Distribute a product of binomials (or a binomial and a monomial) and
    simplify the result.

    ## Description
    The agent distributes the multiplication across the sums, multiplies the
    resulting terms and combines like terms. Example problems: `(x + 2)(x + 3)`
    and `(k + 2) * k`; hard problems add powers and coefficients, such as
    `(2x^2 + 3)(x + 4y)`.

    ## Action Space
    As for every `GoalEnv` (see its docstring): `(rule, node)` over the seven
    core rules.

    ## Observation Space
    As for every `GoalEnv` (see its docstring).

    ## Rewards
    The win signal on simplifying; `LOSE` (-1) on running out of moves or a fourth
    revisit; otherwise the `MathyEnv` step rewards.

    ## Starting State
    `binomial_distribute_problem` (in this file): `binomial_times_binomial`
    (complexity 4) or `binomial_times_monomial` (complexity 3), each half the
    time, with the knobs of `STYLES[difficulty]`. Easy uses one simple variable and constants; normal
    adds coefficients (`(2x + 3)(x + 5)`); hard adds powers, any variable and a
    second variable.

    ## Episode End
    Won when no like terms remain and every term is in preferred form; lost after
    `complexity * 4` moves or on a fourth revisit.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    namespace = NAMESPACE
    generator = staticmethod(binomial_distribute_problem)


__all__ = (
    "BinomialDistribute",
    "BinomialStyle",
    "NAMESPACE",
    "STYLES",
    "binomial_distribute_problem",
    "binomial_times_binomial",
    "binomial_times_monomial",
)
