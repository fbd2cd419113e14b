// The checked moves of an expression that is not safe (see checks.hpp): masks.py's
// `keeps_value` through the native core, step for step as `_native_keeps_value`
// takes it, every verdict it leaves to the Python path being MOVE_UNKNOWN here.
#include "checks.hpp"

#include <algorithm>

namespace mathy_native {

namespace {

constexpr int VARIABLE_SLOTS = 52;  // `a`-`z` then `A`-`Z`
constexpr int64_t MAX_ROOTS = int64_t(1) << 45;  // values.py's MAX_DEGREE

// Whether `text` holds a run of at least `length` characters of digits and
// points (limits.py's `_LONG_NUMBER`, past which `_check_digits` reads it).
bool has_long_number(const std::string& text, int64_t length) {
    int64_t run = 0;
    for (const char c : text) {
        run = ((c >= '0' && c <= '9') || c == '.') ? run + 1 : 0;
        if (run >= length) return true;
    }
    return false;
}

// limits.py's `_check_nesting`: whether brackets nest deeper than `limit`.
bool nests_deeper(const std::string& text, int64_t limit) {
    int64_t opening = 0;
    for (const char c : text) opening += (c == '(' || c == '[');
    if (opening <= limit) return false;
    int64_t depth = 0;
    for (const char c : text) {
        if (c == '(' || c == '[') {
            if (++depth > limit) return true;
        } else if (c == ')' || c == ']') {
            --depth;
        }
    }
    return false;
}

}  // namespace

bool variable_powers(const Tree& tree) {
    for (const Node& n : tree.nodes) {
        if (n.kind != POWER || n.left == NO_NODE) continue;
        const bool whole = n.right != NO_NODE && tree.nodes[n.right].kind == CONSTANT &&
                           !tree.nodes[n.right].is_float;
        if (tree.nodes[n.left].kind == VARIABLE && !whole) return true;
    }
    return false;
}

MoveVerdict admitted(const Tree& tree, const Tree::Admission& a, const MoveLimits& limits) {
    for (const int index : a.constants) {
        const Node& n = tree.nodes[static_cast<std::size_t>(index)];
        if (n.is_float) return MOVE_UNKNOWN;
        if (n.int_value < -limits.max_constant || n.int_value > limits.max_constant)
            return MOVE_BREAKS;
    }
    if (a.check_value) {
        // `defined_natively`: every variable 1, of degree ROOT_DENOMINATORS.
        const std::vector<uint64_t> ones(VARIABLE_SLOTS, 1);
        uint64_t value = 0;
        if (!tree.point_value(tree.root, ones.data(), limits.root_denominators, value))
            return MOVE_UNKNOWN;  // check_defined's verdict is the Python path's
    }
    return MOVE_KEEPS;
}

bool move_limits(const std::vector<int64_t>& values, MoveLimits& out, std::string& why) {
    if (values.size() != MOVE_LIMIT_COUNT) {
        why = "move limits must hold " + std::to_string(MOVE_LIMIT_COUNT) + " values, got " +
              std::to_string(values.size());
        return false;
    }
    for (const int64_t value : values)
        if (value < 1) {
            why = "move limits must be at least 1, got " + std::to_string(value);
            return false;
        }
    MoveLimits made;
    made.safe_constant = values[0];
    made.max_constant = values[1];
    made.max_nodes = values[2];
    made.max_depth = values[3];
    made.max_text_length = values[4];
    made.max_nesting = values[5];
    made.long_number = values[6];
    made.root_denominators = values[7];
    made.points = values[8];
    if (made.root_denominators > MAX_ROOTS) {
        why = "root_denominators must be at most 2**45, got " +
              std::to_string(made.root_denominators);
        return false;
    }
    if (made.points > MAX_POINTS) {
        why = "points must be at most " + std::to_string(MAX_POINTS) + ", got " +
              std::to_string(made.points);
        return false;
    }
    out = made;
    return true;
}

MoveChecker::MoveChecker(const Parsed& before, const std::string& text, const MoveLimits& limits)
    : before_(before), limits_(limits) {
    // masks.py's `_value_check`: every variable is `t^roots`.
    roots_ = variable_powers(before.tree) ? limits.root_denominators : 1;
    // values.py's `_variable_points` of the variables of `before`: point p's
    // evaluator is seeded with "<text>\0<p>" and reads decimals.
    points_.assign(static_cast<std::size_t>(limits.points),
                   std::vector<uint64_t>(VARIABLE_SLOTS, 0));
    std::string seen;
    for (const Node& n : before.tree.nodes)
        if (n.kind == VARIABLE && seen.find(n.name) == std::string::npos) seen.push_back(n.name);
    for (int64_t point = 0; point < limits.points; ++point)
        for (const char name : seen) {
            const int slot = variable_slot(name);
            if (slot < 0) continue;  // no such variable is parsed
            std::string key = text;
            key += '\0';
            key += std::to_string(point);
            key += '\0';
            key += "decimal";
            key += '\0';
            key += "var:";
            key += name;
            points_[static_cast<std::size_t>(point)][static_cast<std::size_t>(slot)] =
                field_power(key_hash(key), roots_);
        }
    prefix_ = text;
    prefix_ += '\0';
    prefix_ += "symbolic";
    prefix_ += '\0';
    prefix_ += "decimal";
    prefix_ += '\0';
}

bool values_at(const Tree& tree, int top, const std::vector<std::vector<uint64_t>>& points,
               int64_t roots, std::vector<uint64_t>& out) {
    out.clear();
    if (top == NO_NODE) return false;
    for (const auto& point : points) {
        uint64_t value = 0;
        if (!tree.point_value(top, point.data(), roots, value)) return false;
        out.push_back(value);
    }
    return true;
}

const std::optional<std::vector<uint64_t>>& MoveChecker::expected() {
    if (!expected_made_) {
        std::vector<uint64_t> values;
        if (values_at(before_.tree, before_.tree.root, points_, roots_, values))
            expected_ = std::move(values);
        expected_made_ = true;
    }
    return expected_;
}

MoveVerdict admissible_text(const std::string& text, const MoveLimits& limits, Parsed& after) {
    // limits.py's check_text (a ValueError there: the move is invalid).
    if (static_cast<int64_t>(text.size()) > limits.max_text_length) return MOVE_BREAKS;
    if (nests_deeper(text, limits.max_nesting)) return MOVE_BREAKS;
    if (has_long_number(text, limits.long_number)) return MOVE_UNKNOWN;  // _check_digits
    // The parse: where this core refuses, mathy_core may raise or not.
    if (!parse_text(text, after)) return MOVE_UNKNOWN;
    // admission.py's `admit`: the size, the constants, a value that must exist.
    const int64_t count = static_cast<int64_t>(after.order.size());
    if (count > limits.max_nodes) return MOVE_BREAKS;
    // The levels of a tree are at most its nodes.
    if (count > limits.max_depth && after.tree.walk().levels > limits.max_depth)
        return MOVE_BREAKS;
    return admitted(after.tree, after.tree.admission(after.order, limits.safe_constant), limits);
}

MoveVerdict MoveChecker::admissible(const std::string& text, Parsed& after) const {
    return admissible_text(text, limits_, after);
}

MoveVerdict MoveChecker::check(int rule, int column, MoveResult* kept) {
    const MoveVerdict verdict = check_move(rule, column);
    if (verdict == MOVE_KEEPS && kept != nullptr) {
        kept->text = std::move(text_made_);
        kept->parse = std::move(parse_made_);
    }
    return verdict;
}

MoveVerdict MoveChecker::check_move(int rule, int column) {
    Tree& rewritten = rewritten_;
    std::string& text = text_made_;
    int top = NO_NODE;
    if (!rewrite(before_, rule, column, rewritten, text, &top)) return MOVE_UNKNOWN;
    Parsed& after = parse_made_;
    const MoveVerdict admitted = admissible(text, after);
    if (admitted != MOVE_KEEPS) return admitted;
    std::vector<uint64_t>& got = got_;
    if (rewritten.same(top, after.tree, after.tree.root)) {
        // ValueCheck.native_keeps_value.
        const auto& wanted = expected();
        if (!wanted || !values_at(after.tree, after.tree.root, points_, roots_, got))
            return MOVE_UNKNOWN;
        return got == *wanted ? MOVE_KEEPS : MOVE_BREAKS;
    }
    // The text reads back as another tree (ValueCheck.native_keeps_rewrite): the
    // same expression as the rule's own tree, and both with the value.
    const auto& wanted = expected();
    if (!wanted) return MOVE_UNKNOWN;
    std::vector<uint64_t>& own = own_;
    const bool own_reached = values_at(rewritten, top, points_, roots_, own);
    uint64_t own_symbol = 0, symbol = 0;
    if (!rewritten.symbolic_value(top, prefix_, own_symbol, &hashes_) ||
        !after.tree.symbolic_value(after.tree.root, prefix_, symbol, &hashes_))
        return MOVE_UNKNOWN;
    if (own_symbol != symbol) return MOVE_BREAKS;
    if (!values_at(after.tree, after.tree.root, points_, roots_, got) || !own_reached)
        return MOVE_UNKNOWN;
    return got == *wanted && own == *wanted ? MOVE_KEEPS : MOVE_BREAKS;
}

bool checked_mask(const Parsed& self, const std::string& text, bool preferred,
                  const MoveLimits& limits, int8_t* mask, std::ptrdiff_t width,
                  MoveResults* results) {
    const std::ptrdiff_t columns =
        std::min(static_cast<std::ptrdiff_t>(self.order.size()), width);
    if (results != nullptr) results->clear();
    MoveResult kept;
    MoveChecker checker(self, text, limits);
    for (int rule = 0; rule < CORE_RULE_COUNT; ++rule)
        for (std::ptrdiff_t column = 0; column < columns; ++column) {
            int8_t& cell = mask[rule * width + column];
            cell = 0;
            if (!self.tree.can_apply(rule, self.order[static_cast<std::size_t>(column)],
                                     preferred))
                continue;
            const MoveVerdict verdict =
                checker.check(rule, static_cast<int>(column), results ? &kept : nullptr);
            if (verdict == MOVE_UNKNOWN) return false;
            cell = verdict == MOVE_KEEPS ? 1 : 0;
            if (results != nullptr && verdict == MOVE_KEEPS) {
                kept.cell = rule * width + column;
                results->push_back(std::move(kept));
                kept = MoveResult();
            }
        }
    return true;
}

}  // namespace mathy_native
