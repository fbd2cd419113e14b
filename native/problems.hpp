// The built-in envs' problem generators (mathy_envs/problems.py's primitives
// and each env file's `<env>_problem`), drawing what they draw from a numpy bit
// generator (draws.hpp) and making the same texts, for the same seeds. Each
// family's knobs (term counts per difficulty, probabilities, operators) and
// problems.py's constants are handed in by the library, read where Python
// reads them, at each call. Nothing here touches a Python object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checks.hpp"
#include "draws.hpp"

namespace mathy_native {

// The families, in the order of `PROBLEM_FAMILY_NAMES` (the names the library
// asks for them by).
enum ProblemFamily : int {
    POLY_SIMPLIFY,        // poly_simplify.py: counts (low, high), chances (noise, shuffle,
                          // parenthesize), ops
    COMPLEX_SIMPLIFY,     // complex_simplify.py: counts (low, high)
    BINOMIAL_DISTRIBUTE,  // binomial_distribute.py: counts (common variables), chances
                          // (coefficient, power, second variable)
    HAYSTACK_LIKE_TERMS,  // poly_haystack_like_terms.py: counts (low, high)
    GROUP_LIKE_TERMS,     // poly_group_like_terms.py: counts (low, high)
    COMMUTE_LIKE_TERMS,   // poly_commute_like_terms.py: counts (low, high, max noise)
    SIMPLIFY_BLOCKERS,    // poly_simplify_blockers.py: counts (low, high)
    COMBINE_IN_PLACE,     // poly_combine_in_place.py: counts (low, high), chances
                          // (parenthesize)
    PROBLEM_FAMILY_COUNT,
};

constexpr const char* PROBLEM_FAMILY_NAMES[] = {
    "poly_simplify",      "complex_simplify",   "binomial_distribute", "haystack_like_terms",
    "group_like_terms",   "commute_like_terms", "simplify_blockers",   "combine_in_place",
};
static_assert(sizeof(PROBLEM_FAMILY_NAMES) / sizeof(PROBLEM_FAMILY_NAMES[0]) ==
                  PROBLEM_FAMILY_COUNT,
              "one name per family");

// problems.py's constants.
struct ProblemConstants {
    std::string variables;         // VARIABLES
    std::string common_variables;  // COMMON_VARIABLES
    int64_t max_coefficient = 0;   // MAX_COEFFICIENT
    int64_t max_exponent = 0;      // MAX_EXPONENT
    int64_t max_attempts = 0;      // MAX_ATTEMPTS
    int64_t max_nodes = 0;         // MAX_NODES
};

// A family's knobs.
struct ProblemKnobs {
    std::vector<int64_t> counts;
    std::vector<double> chances;
    std::vector<std::string> ops;
};

struct DrawnProblem {
    std::string text;
    int64_t complexity = 0;
};

// The terms a generated problem has at most, and the longest operator: past
// them the library's Python generator draws (and refuses what it must).
constexpr int64_t MAX_DRAWN_TERMS = 256;
constexpr std::size_t MAX_OP_LENGTH = 16;

// The problem family `family`'s generator draws from `draws` with `difficulty`'s
// knobs; false where the Python generator must draw it instead: a knob or a
// constant out of this core's range, a draw numpy would refuse, an error the
// generator raises, a text or a verdict this core leaves to the Python path
// (the caller then puts the bit generator back as it was before the call).
bool draw_problem(int family, const ProblemKnobs& knobs, const ProblemConstants& constants,
                  const MoveLimits& limits, Draws& draws, DrawnProblem& out);

}  // namespace mathy_native
