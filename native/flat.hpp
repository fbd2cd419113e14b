// A parsed expression's batch rows: the flat observation (past its head), the
// valid-move mask, the goal verdict and the offered moves (masks.py's
// `more_visited`), written into plain buffers. Shared by the per-expression
// bindings (`Expression.write_flat`, `step_flat`, `offer`) and the batch
// kernel (`batch.cpp`), which calls them with the GIL released: nothing here
// touches a Python object.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expression.hpp"

namespace mathy_native {

struct Parsed {
    Tree tree;
    std::vector<int> order;  // in-order node indices: action index -> node
};

// A valid move's result as the checks of an expression that is not safe made
// it (checks.hpp), kept for the expression's next uses (its offered moves, the
// step that takes it): its cell (`rule * width + node`), its printed text and
// the parse of that text.
struct MoveResult {
    std::ptrdiff_t cell = 0;
    std::string text;
    Parsed parse;
};
// The kept results of one expression's valid moves, by increasing cell.
using MoveResults = std::vector<MoveResult>;

// The kept result of `cell`, or null.
template <class Results>
auto find_move(Results& results, std::ptrdiff_t cell) -> decltype(&results.front()) {
    const auto found = std::lower_bound(
        results.begin(), results.end(), cell,
        [](const MoveResult& result, std::ptrdiff_t wanted) { return result.cell < wanted; });
    return found != results.end() && found->cell == cell ? &*found : nullptr;
}

// The goals the batch kernel tells of a new expression, in the order of
// `GOAL_NAMES` (mathy_envs._engine.kernel's NATIVE_GOALS checks the names).
enum Goal : int {
    GOAL_SIMPLIFIED,            // mathy_core's is_simplified
    GOAL_FACTOR_OUT_APPLIES,    // a valid cell in factor out's mask row
    GOAL_LIKE_TERMS_GROUPED,    // terms.py's like_terms_grouped
    GOAL_ACTED_AT_LIKE_TERM,    // the move's node is a term with a like term (the step tells)
    GOAL_COUNT,
};
constexpr const char* GOAL_NAMES[] = {"simplified", "factor out applies", "like terms grouped",
                                      "acted at a like term"};
static_assert(sizeof(GOAL_NAMES) / sizeof(GOAL_NAMES[0]) == GOAL_COUNT, "one name per goal");

// Parse `text` (its UTF-8) as mathy_core would, with its in-order nodes; false
// where mathy_core would raise or the text is outside what this core reproduces.
bool parse_text(const std::string& text, Parsed& out);

// mathy_core's apply_to of core rule `rule` at in-order node `column`, on a copy
// of the tree (`rewritten`), and its printed text; false where the move does
// not apply or the native core leaves it to mathy_core.
bool rewrite(const Parsed& self, int rule, int column, Tree& rewritten, std::string& text,
             int* top);

struct MoveLimits;  // checks.hpp

// The limits of a batch's rows: admission.py's safe constant and size, the
// layout's largest type id, the nodes of a row (L), commutative swap's
// setting, and the library's limits for the checked moves of an expression
// that is not safe (none: such an expression is left to the Python path).
struct FlatLimits {
    bool preferred = false;
    int64_t safe_constant = 0;
    int safe_size = 0;
    int max_type_id = 1;
    std::ptrdiff_t length = 1;
    const MoveLimits* moves = nullptr;
};

// The rows of an expression whose every part the native core answers: its
// flat observation from index 3 on written into `row` (3 + 2L + R*L floats:
// node types, then node values, in pre-order and normalized as
// NodeLayout.preordered(True) makes them, then the mask as 0.0/1.0) and its
// mask into `mask` (R*L bytes, row-major (rule, node), zero padded). The mask
// of an expression that is not safe (admission.py) is checked move by move
// (checks.hpp), with `text`, the expression's text, and `limits.moves`.
// Returns the goal's verdict of the expression (false for a goal the step
// tells from the move, GOAL_ACTED_AT_LIKE_TERM), or nothing, having written
// nothing, where the library's Python path must take over: an equation, a
// float constant or a value check out of the native core's reach in an
// expression that is not safe (or no `text` or `limits.moves` for one), more
// nodes than L, or a verdict left to the Python path.
// With `results`, the results of the valid moves the checks made are kept
// there (cleared first).
std::optional<bool> write_flat(const Parsed& self, const FlatLimits& limits, Goal goal,
                               float* row, int8_t* mask, const std::string* text = nullptr,
                               MoveResults* results = nullptr);

// masks.py's `more_visited`: the valid moves of `self` (the nonzero cells of
// `valid`, `rows` rules of `width` cells, `step` bytes apart; only the cells of
// the expression's nodes are moves) whose result was visited more often than
// another move's, as cell indexes into `dropped` (cleared first), the visits of
// a text being `visits(text)`; false where a rewrite is left to mathy_core.
// With `results` (their cells being `rule * width + node`), the texts kept
// there are read instead of made again.
template <class Visits>
bool more_visited(const Parsed& self, const char* valid, std::ptrdiff_t step, std::ptrdiff_t rows,
                  std::ptrdiff_t width, const Visits& visits, std::vector<std::ptrdiff_t>& dropped,
                  const MoveResults* results = nullptr) {
    dropped.clear();
    std::vector<std::pair<std::ptrdiff_t, long>> moves;
    const std::ptrdiff_t columns =
        std::min(static_cast<std::ptrdiff_t>(self.order.size()), width);
    Tree rewritten;  // one tree and one text, reused by every move's rewrite
    std::string text;
    for (std::ptrdiff_t rule = 0; rule < rows; ++rule) {
        for (std::ptrdiff_t column = 0; column < columns; ++column) {
            const std::ptrdiff_t cell = rule * width + column;
            if (!valid[cell * step]) continue;
            const MoveResult* kept = results == nullptr ? nullptr : find_move(*results, cell);
            if (kept != nullptr) {
                moves.emplace_back(cell, visits(std::string_view(kept->text)));
                continue;
            }
            if (!rewrite(self, static_cast<int>(rule), static_cast<int>(column), rewritten, text,
                         nullptr))
                return false;  // left to mathy_core: the caller decides
            moves.emplace_back(cell, visits(std::string_view(text)));
        }
    }
    if (moves.empty()) return true;
    long least = moves.front().second;
    for (const auto& move : moves) least = std::min(least, move.second);
    for (const auto& move : moves)
        if (move.second > least) dropped.push_back(move.first);
    return true;
}

}  // namespace mathy_native
