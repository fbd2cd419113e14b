// mathy_envs/_engine/admission.py's look at a freshly parsed text, on the native tree:
// which constants must be checked against the supported limits, whether the core
// rules are known to be exact on it, and whether its value must be checked.
#include "expression.hpp"

namespace mathy_native {

namespace {

// admission.py's `_simple_power`: `x^k` with a whole constant 2 <= k <= limit.
bool simple_power(const std::vector<Node>& nodes, int node, int64_t limit) {
    const Node& n = nodes[node];
    if (n.kind != POWER || n.left == NO_NODE || n.right == NO_NODE) return false;
    const Node& exponent = nodes[n.right];
    return nodes[n.left].kind == VARIABLE && exponent.kind == CONSTANT && !exponent.is_float &&
           exponent.int_value >= 2 && exponent.int_value <= limit;
}

// `_simple_term`: a constant, a variable or a simple power.
bool safe_term(const std::vector<Node>& nodes, int node, int64_t limit) {
    if (node == NO_NODE) return false;
    const Kind kind = nodes[node].kind;
    return kind == CONSTANT || kind == VARIABLE || simple_power(nodes, node, limit);
}

}  // namespace

Tree::Admission Tree::admission(const std::vector<int>& order, int64_t safe_constant) const {
    Admission out;
    for (int index : order) {
        const Node& n = nodes[index];
        switch (n.kind) {
            case ADD:
            case MULTIPLY:
            case VARIABLE:
                break;
            case CONSTANT:
                if (!n.is_float && n.int_value >= -safe_constant && n.int_value <= safe_constant)
                    break;
                out.constants.push_back(index);  // checked against the limits
                out.safe = false;
                break;
            case SUBTRACT: {
                const int right = n.right;
                if (!(safe_term(nodes, right, safe_constant) ||
                      (is(right, MULTIPLY) && safe_term(nodes, nodes[right].left, safe_constant))))
                    out.safe = false;
                break;
            }
            case NEGATE: {
                ++out.unary;
                const int child = n.right;  // the child of a parsed negation is on the right
                if (!(is(child, VARIABLE) ||
                      (is(child, POWER) && simple_power(nodes, child, safe_constant))))
                    out.safe = false;
                break;
            }
            default:
                if (n.kind == POWER && simple_power(nodes, index, safe_constant)) break;
                // Division, other powers, factorials, functions, equations.
                out.safe = false;
                out.check_value = true;
                if (n.kind == EQUAL) out.has_equation = true;
        }
    }
    return out;
}

}  // namespace mathy_native
