"""PolyCombineInPlace: combine the one adjacent like pair of a long sum.

Its generator, `poly_combine_in_place_problem` (built on `combine_in_place`, with
its check `combines_in_two_moves`), is above the env."""

import numpy as np
from mathy_core.rules import ConstantsSimplifyRule, DistributiveFactorOutRule

from .._engine import ParsedExpression, rewritten_entry, rule_nodes, simplified_entry
from ..problems import (
    NativeFamily,
    GeneratedProblem,
    defaults_of,
    join_terms,
    rand_int,
    rand_templates,
    rand_term,
    rand_unlike_terms,
    retry,
)
from ..types import MathyEnvDifficulty, MathyEnvProblem, MathyEnvProblemArgs
from .generation import generator_difficulty
from .goal import SimplifyGoalEnv

NAMESPACE = "mathy.polynomials.combine.in.place"

TERM_COUNTS = {
    MathyEnvDifficulty.easy: (6, 12),
    MathyEnvDifficulty.normal: (9, 16),
    MathyEnvDifficulty.hard: (16, 22),
}


def poly_combine_in_place_problem(
    rng: np.random.Generator, params: MathyEnvProblemArgs, *, namespace: str = NAMESPACE
) -> MathyEnvProblem:
    """A PolyCombineInPlace problem: `combine_in_place` with a term count drawn
    from `TERM_COUNTS[params.difficulty]`."""
    low, high = TERM_COUNTS[generator_difficulty(rng, params, namespace)]
    drawn = _NATIVE.draw(rng, (low, high), _PARENTHESIZE)
    if drawn is None:
        drawn = combine_in_place(rng, rand_int(rng, low, high))
    return MathyEnvProblem(drawn.text, drawn.complexity, namespace)


def combine_in_place(
    rng: np.random.Generator, num_terms: int, parenthesize_probability: float = 0.3
) -> GeneratedProblem:
    """A long sum of unlike terms holding exactly one adjacent like pair, which two
    moves (factor out, then add the coefficients) combine. A parenthesized run
    never separates the pair. Complexity: `num_terms`."""
    if num_terms < 3:
        raise ValueError(f"num_terms must be at least 3, got {num_terms}")

    def build() -> GeneratedProblem:
        like = rand_templates(rng, 1)
        terms, _ = rand_unlike_terms(rng, num_terms - 2, like, constant_probability=0.3)
        pair = " + ".join(rand_term(rng, like[0]) for _ in range(2))
        terms.insert(rand_int(rng, 0, len(terms)), pair)
        return GeneratedProblem(
            join_terms(rng, terms, ("+",), parenthesize_probability), num_terms
        )

    def rejects(parsed: ParsedExpression) -> bool:
        return simplified_entry(parsed) or not combines_in_two_moves(parsed)

    return retry(build, rejects, "combine_in_place")


def combines_in_two_moves(start: ParsedExpression) -> bool:
    """Factoring out some node, then simplifying constants at some node, leaves a
    simplified expression.

    The engine answers without trees where it can (`rule_nodes`,
    `rewritten_entry`, `simplified_entry`: mathy_core's answers)."""
    # Rules of their own per call: a module-level rule is state a user could change.
    factor_out, add_constants = DistributiveFactorOutRule(), ConstantsSimplifyRule()
    for index in rule_nodes(start, factor_out):
        factored = rewritten_entry(start, factor_out, index)
        for second in rule_nodes(factored, add_constants):
            if simplified_entry(rewritten_entry(factored, add_constants, second)):
                return True
    return False


_NATIVE = NativeFamily(
    "combine_in_place", poly_combine_in_place_problem, combine_in_place, combines_in_two_moves,
    rule_nodes, rewritten_entry,
)
"""The native core's draws of this generator (`NativeFamily`)."""
_PARENTHESIZE = defaults_of(combine_in_place, "parenthesize_probability")


class PolyCombineInPlace(SimplifyGoalEnv):
    """Combine the single pair of adjacent like terms hidden in a long sum, in two
    moves.

    ## Description
    A long sum of unlike terms holds exactly one adjacent like pair. The agent must
    find it, factor it out and add the coefficients, without moving anything else.
    Example problems: `3a + 4x + 2x + 5b + 7c + y^2` and
    `9k + (2q^3 + 7 + 3z) + 3z + 4g + 8b + 11m`.

    ## Action Space
    As for every `GoalEnv` (see its docstring): `(rule, node)` over the seven
    core rules.

    ## Observation Space
    As for every `GoalEnv` (see its docstring).

    ## Rewards
    The win signal on simplifying; `LOSE` (-1) when the two moves run out;
    otherwise the `MathyEnv` step rewards.

    ## Starting State
    `poly_combine_in_place_problem` (in this file): 6-12 terms (easy), 9-16
    (normal) or 16-22 (hard), sometimes with a run of them parenthesized, that
    two moves (factor out, then add the coefficients) simplify. Complexity is the
    number of terms.

    ## Episode End
    Won when no like terms remain and every term is in preferred form; lost after
    2 moves.

    ## Arguments
    Every `MathyEnv` keyword (`max_seq_len`, `invalid_action_response`, `seed`, ...).
    """

    namespace = NAMESPACE
    generator = staticmethod(poly_combine_in_place_problem)

    def max_moves_fn(
        self, problem: MathyEnvProblem, config: MathyEnvProblemArgs
    ) -> int:
        return 2


__all__ = (
    "NAMESPACE",
    "PolyCombineInPlace",
    "TERM_COUNTS",
    "combine_in_place",
    "combines_in_two_moves",
    "poly_combine_in_place_problem",
)
