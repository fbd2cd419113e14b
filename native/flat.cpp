// A parsed expression's batch rows (see flat.hpp).
#include "flat.hpp"

#include "checks.hpp"

#include <algorithm>

namespace mathy_native {

bool parse_text(const std::string& text, Parsed& out) {
    if (!out.tree.parse(text)) return false;
    out.order = out.tree.in_order();
    return true;
}

bool rewrite(const Parsed& self, int rule, int column, Tree& rewritten, std::string& text,
             int* top) {
    if (rule < 0 || rule >= CORE_RULE_COUNT || column < 0 ||
        static_cast<std::size_t>(column) >= self.order.size())
        return false;
    const int node = self.order[static_cast<std::size_t>(column)];
    if (!self.tree.can_apply(rule, node, false) && !self.tree.can_apply(rule, node, true))
        return false;
    rewritten = self.tree;  // the rules change the tree they apply to
    return rewritten.apply(rule, node, text, top);
}

std::optional<bool> write_flat(const Parsed& self, const FlatLimits& limits, Goal goal,
                               float* row, int8_t* mask, const std::string* text,
                               MoveResults* results) {
    if (results != nullptr) results->clear();
    const std::ptrdiff_t length = limits.length;
    const std::ptrdiff_t cells = CORE_RULE_COUNT * length;
    const Tree& tree = self.tree;
    const std::size_t count = self.order.size();
    if (static_cast<std::ptrdiff_t>(count) > length) return std::nullopt;
    const Tree::Admission a = tree.admission(self.order, limits.safe_constant);
    if (a.has_equation) return std::nullopt;
    const bool safe = a.safe && a.constants.empty() && !a.check_value &&
                      static_cast<int64_t>(count) + a.unary <= limits.safe_size;
    // The checked mask of an expression that is not safe, made before anything
    // is written.
    std::vector<int8_t> checked;
    if (!safe) {
        if (text == nullptr || limits.moves == nullptr) return std::nullopt;
        const MoveLimits& moves = *limits.moves;
        // Admitted as admission.py admits it (else the Python path says how not).
        if (admitted(tree, a, moves) != MOVE_KEEPS) return std::nullopt;
        checked.assign(static_cast<std::size_t>(cells), 0);
        if (!checked_mask(self, *text, limits.preferred, moves, checked.data(), length,
                          results)) {
            if (results != nullptr) results->clear();
            return std::nullopt;
        }
    }
    Tree::Answer verdict = Tree::NO;
    if (goal == GOAL_SIMPLIFIED) {
        verdict = tree.simplified();
    } else if (goal == GOAL_LIKE_TERMS_GROUPED) {
        verdict = tree.like_terms_grouped();
    }
    if (verdict == Tree::UNKNOWN) {
        if (results != nullptr) results->clear();
        return std::nullopt;
    }
    const Tree::Walk w = tree.walk();
    std::fill(row + 3, row + 3 + 2 * length + cells, 0.0f);
    std::fill(mask, mask + cells, int8_t{0});
    // NodeLayout.preordered(True): float32 type ids over float32(MAX_TYPE_ID), and
    // float32 values min-max scaled in float32 (all equal: zeros).
    const float top = static_cast<float>(limits.max_type_id);
    float low = 0.0f, high = 0.0f;
    for (std::size_t i = 0; i < count; ++i) {
        const float value = static_cast<float>(w.values_pre[i]);
        if (i == 0 || value < low) low = value;
        if (i == 0 || value > high) high = value;
    }
    const float span = high - low;
    for (std::size_t i = 0; i < count; ++i) {
        const auto at = static_cast<std::ptrdiff_t>(i);
        row[3 + at] = static_cast<float>(w.type_ids_pre[i]) / top;
        row[3 + length + at] =
            span > 0.0f ? (static_cast<float>(w.values_pre[i]) - low) / span : 0.0f;
    }
    // The goal "factor out applies" reads `can_apply_to`, before any check.
    bool factor_out_applies = false;
    for (int r = 0; r < CORE_RULE_COUNT; ++r)
        for (std::size_t c = 0; c < count; ++c) {
            const std::ptrdiff_t cell = r * length + static_cast<std::ptrdiff_t>(c);
            bool valid = false;
            if (safe) {
                valid = tree.can_apply(r, self.order[c], limits.preferred);
                if (valid && r == DISTRIBUTIVE_FACTOR_OUT) factor_out_applies = true;
            } else {
                valid = checked[static_cast<std::size_t>(cell)] != 0;
                if (r == DISTRIBUTIVE_FACTOR_OUT && !factor_out_applies &&
                    tree.can_apply(r, self.order[c], limits.preferred))
                    factor_out_applies = true;
            }
            if (valid) {
                mask[cell] = 1;
                row[3 + 2 * length + cell] = 1.0f;
            }
        }
    if (goal == GOAL_FACTOR_OUT_APPLIES) return factor_out_applies;
    return verdict == Tree::YES;
}

}  // namespace mathy_native
