// The checked moves of an expression that is not safe (mathy_envs/_engine/masks.py's
// `remove_unsound` through the native core): each core rule's result must be an
// admissible text (limits.py's checks and admission.py's) with the exact value
// of the expression (values.py's `ValueCheck`, at the points values.py derives
// from the expression's text). Shared by the per-expression bindings
// (`Expression.checked_mask`) and the batch rows (flat.cpp), which run it with
// the GIL released: nothing here touches a Python object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flat.hpp"

namespace mathy_native {

// The library's limits the checks read, handed in by the library (they are
// defined once, in Python: mathy_envs.limits and mathy_envs._engine.values).
struct MoveLimits {
    int64_t safe_constant = 0;       // admission.SAFE_CONSTANT
    int64_t max_constant = 0;        // limits.MAX_CONSTANT
    int64_t max_nodes = 0;           // limits.MAX_NODES
    int64_t max_depth = 0;           // limits.MAX_DEPTH
    int64_t max_text_length = 0;     // limits.MAX_TEXT_LENGTH
    int64_t max_nesting = 0;         // limits.MAX_NESTING
    int64_t long_number = 0;         // limits.MAX_CONSTANT_DIGITS + 1
    int64_t root_denominators = 0;   // values.ROOT_DENOMINATORS
    int64_t points = 0;              // values.POINTS
};
constexpr std::size_t MOVE_LIMIT_COUNT = 9;
constexpr int64_t MAX_POINTS = 16;

// The limits from their values in the order of `MoveLimits`' fields; false
// (with the reason in `why`) where one is out of the range this core reads.
bool move_limits(const std::vector<int64_t>& values, MoveLimits& out, std::string& why);

// One check of a move's result.
enum MoveVerdict : int8_t {
    MOVE_BREAKS = 0,   // not a valid action: out of the limits, or another value
    MOVE_KEEPS = 1,    // an admissible text with the expression's value
    MOVE_UNKNOWN = 2,  // out of the native core's reach: the Python path decides
};

// admission.py's look at a parsed text past its safety (`a` its admission):
// its constants within the limits (MOVE_BREAKS past them; a float's limits
// are the Python path's), and, where its value must be checked, one the
// native evaluator reaches (`defined_natively`; MOVE_UNKNOWN otherwise).
MoveVerdict admitted(const Tree& tree, const Tree::Admission& a, const MoveLimits& limits);

// parse_cache.py's parse of a text: check_text's limits, the parse and
// admission.py's checks. MOVE_KEEPS: the text is admitted; MOVE_BREAKS: the
// library refuses it (a ValueError); MOVE_UNKNOWN: the Python path decides.
MoveVerdict admissible_text(const std::string& text, const MoveLimits& limits, Parsed& after);

// values.py's values of the subtree under `top` at each point (52 values each,
// each variable of degree `roots`) into `out`; false where the native evaluator
// leaves the tree to values.py.
bool values_at(const Tree& tree, int top, const std::vector<std::vector<uint64_t>>& points,
               int64_t roots, std::vector<uint64_t>& out);

// `variable_powers`: a power of a variable whose exponent is not an integer
// constant (values.py's `root_denominators` is then ROOT_DENOMINATORS).
bool variable_powers(const Tree& tree);

// The checks of the moves of one expression, `before` parsed from `text`
// (the seed of values.py's points), computed once and reused per move.
class MoveChecker {
  public:
    MoveChecker(const Parsed& before, const std::string& text, const MoveLimits& limits);

    // Whether core rule `rule` at in-order node `column` (a move the rule's
    // `can_apply_to` accepts) gives an admissible text with the value; with
    // `kept`, the text and parse of a move that does are moved there.
    MoveVerdict check(int rule, int column, MoveResult* kept = nullptr);

  private:
    MoveVerdict check_move(int rule, int column);
    // parse_cache's parse of a move's printed text: check_text, the parse and
    // admission.py's checks against the limits.
    MoveVerdict admissible(const std::string& text, Parsed& after) const;
    // The expression's own values at the points, computed on first use.
    const std::optional<std::vector<uint64_t>>& expected();

    const Parsed& before_;
    const MoveLimits& limits_;
    int64_t roots_ = 1;
    std::vector<std::vector<uint64_t>> points_;  // 52 values per point
    bool expected_made_ = false;
    std::optional<std::vector<uint64_t>> expected_;
    std::string prefix_;  // same_expression's hash keys
    KeyHashes hashes_;    // of those keys
    // The last move's rewritten tree, text and parse (reused from move to move).
    Tree rewritten_;
    std::string text_made_;
    Parsed parse_made_;
    std::vector<uint64_t> got_, own_;  // the values of the move's trees
};

// `remove_unsound` of the core rules' moves that `can_apply_to` accepts
// (`preferred` commutative swap's setting) on `self`, parsed from `text`:
// writes 1 for a valid move and 0 elsewhere into `mask` (`CORE_RULE_COUNT`
// rows of `width` bytes, the cells past the expression's nodes untouched) and
// returns true; false, `mask` then unusable, where a move's check is out of
// the native core's reach. With `results`, the valid moves' results are kept
// there (cleared first; their cells being `rule * width + node`).
bool checked_mask(const Parsed& self, const std::string& text, bool preferred,
                  const MoveLimits& limits, int8_t* mask, std::ptrdiff_t width,
                  MoveResults* results = nullptr);

}  // namespace mathy_native
