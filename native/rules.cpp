// `can_apply_to` of mathy_core's seven core rules on the native arena, each a
// transcription of the rule's `get_type` (or `can_apply_to`) in mathy_core.
#include "expression.hpp"

namespace mathy_native {

// mathy_core's `get_term_ex`.
bool Tree::term(int index, Term& out) const {
    out = Term{};
    if (index == NO_NODE) return false;
    const Node& n = nodes[index];
    if (n.kind == NEGATE) {
        const int child = n.right;
        if (is(child, VARIABLE)) {
            out.has_coefficient = true;
            out.coefficient = -1;
            out.variable = nodes[child].name;
            return true;
        }
        if (is(child, POWER) && is(nodes[child].left, VARIABLE) &&
            is(nodes[child].right, CONSTANT)) {
            out.has_coefficient = true;
            out.coefficient = -1;
            out.variable = nodes[nodes[child].left].name;
            out.has_exponent = true;
            out.exponent_node = nodes[child].right;
            out.exponent = nodes[nodes[child].right].number();
            return true;
        }
    }
    if (n.kind == CONSTANT && !is(n.parent, POWER)) {
        out.has_coefficient = true;
        out.coefficient_node = index;
        out.coefficient = n.number();
        return true;
    }
    if (n.kind == VARIABLE && !is(n.parent, POWER)) {
        out.variable = n.name;
        return true;
    }
    if (n.kind == MULTIPLY && is(n.left, CONSTANT)) {
        if (is(n.right, VARIABLE)) {
            out.has_coefficient = true;
            out.coefficient_node = n.left;
            out.coefficient = nodes[n.left].number();
            out.variable = nodes[n.right].name;
            return true;
        }
        if (is(n.right, POWER)) {
            const Node& power = nodes[n.right];
            if (is(power.left, VARIABLE) && is(power.right, CONSTANT)) {
                out.has_coefficient = true;
                out.coefficient_node = n.left;
                out.coefficient = nodes[n.left].number();
                out.variable = nodes[power.left].name;
                out.has_exponent = true;
                out.exponent_node = power.right;
                out.exponent = nodes[power.right].number();
                return true;
            }
        }
    }
    if (n.kind == POWER && is(n.left, VARIABLE) && is(n.right, CONSTANT)) {
        out.variable = nodes[n.left].name;
        out.has_exponent = true;
        out.exponent_node = n.right;
        out.exponent = nodes[n.right].number();
        return true;
    }
    return false;
}

bool Tree::constants_simplify(int index) const {
    const Node& n = nodes[index];
    if (n.kind == NEGATE) {
        const int child = n.right;
        if (is_binary(child) && is(left_of(child), CONSTANT) && is(right_of(child), CONSTANT))
            return true;
    }
    if (n.binary() && is(n.left, CONSTANT) && is(n.right, CONSTANT)) return true;
    if (n.kind == MULTIPLY && is(n.left, MULTIPLY) && is(left_of(n.left), CONSTANT) &&
        is(right_of(n.left), VARIABLE) && is(n.right, CONSTANT))
        return true;
    if (n.binary() && is(n.left, CONSTANT) && is_binary(n.right) &&
        is_binary(left_of(n.right)) && is(left_of(left_of(n.right)), CONSTANT)) {
        if ((n.kind == ADD && is(n.right, ADD) && is(left_of(n.right), ADD)) ||
            (n.kind == MULTIPLY && is(n.right, MULTIPLY) && is(left_of(n.right), MULTIPLY)))
            return true;
    }
    if (n.binary() && is(n.left, CONSTANT) && is_binary(n.right) &&
        is(left_of(n.right), CONSTANT)) {
        if ((n.kind == ADD && is(n.right, ADD)) || (n.kind == MULTIPLY && is(n.right, MULTIPLY)))
            return true;
    }
    if (n.kind == MULTIPLY && is(n.left, MULTIPLY) && is(left_of(n.left), CONSTANT) &&
        is(n.right, MULTIPLY) && is(left_of(n.right), CONSTANT))
        return true;
    if (n.kind == MULTIPLY && is(n.left, MULTIPLY) && is(left_of(n.left), CONSTANT) &&
        is(n.right, MULTIPLY) && is(left_of(n.right), MULTIPLY) &&
        is(left_of(left_of(n.right)), CONSTANT))
        return true;
    if (n.kind == MULTIPLY && is(n.left, MULTIPLY) && is(right_of(n.left), MULTIPLY) &&
        is(left_of(right_of(n.left)), CONSTANT) && is(n.right, MULTIPLY) &&
        is(left_of(n.right), CONSTANT))
        return true;
    return false;
}

bool Tree::commutative_swap(int index, bool preferred) const {
    const Node& n = nodes[index];
    if (n.kind == ADD || n.kind == EQUAL) return true;
    if (n.kind != MULTIPLY) return false;
    if (!preferred) {
        auto sibling_is_multiply = [&]() {
            const int parent = n.parent;
            if (!is(parent, MULTIPLY)) return false;
            int sibling = NO_NODE;
            if (nodes[parent].left == index) {
                sibling = nodes[parent].right;
            } else if (nodes[parent].right == index) {
                sibling = nodes[parent].left;
            }
            return is(sibling, MULTIPLY);
        };
        if (is(n.left, CONSTANT) && is(n.right, VARIABLE)) return sibling_is_multiply();
        if (is(n.right, POWER) && is(left_of(n.right), VARIABLE) &&
            is(right_of(n.right), CONSTANT))
            return sibling_is_multiply();
    }
    return true;
}

bool Tree::distributive_multiply(int index) const {
    const Node& n = nodes[index];
    if (n.kind != MULTIPLY) return false;
    return (n.right != NO_NODE && is(n.left, ADD)) || (n.left != NO_NODE && is(n.right, ADD));
}

// DistributiveFactorOutRule(constants=False).can_apply_to. Its factoring of the two
// coefficients only matters through `best`, the smallest common factor (a term
// has a variable here, so mathy_core takes the minimum): 1 divides both unless a
// coefficient is 0, and a common factor below 1 exists only when both
// coefficients are the same number between 0 and 1 (a float's own key).
int Tree::factor_type(int index, Term& left, Term& right) const {
    const Node& n = nodes[index];
    if (n.kind != ADD) return F_NONE;
    bool has_left = term(n.left, left);
    bool has_right = term(n.right, right);
    if (!has_left && !has_right) {
        if (is(n.right, ADD)) has_right = term(left_of(n.right), right);
        if (!has_right || !right.variable) return F_NONE;
        if (is(n.left, ADD)) has_left = term(right_of(n.left), left);
        if (!has_left || !left.variable) return F_NONE;
        return F_CHAINED_BOTH;
    }
    if (has_left && has_right) return F_SIMPLE;
    if (has_left) {
        if (is(n.right, ADD)) has_right = term(left_of(n.right), right);
        if (has_right) return right.variable ? F_CHAINED_RIGHT : F_NONE;
        if (is(n.right, ADD) && is(left_of(n.right), ADD))
            has_right = term(left_of(left_of(n.right)), right);
        if (!has_right || !right.variable) return F_NONE;
        return F_CHAINED_RIGHT_LEFT;
    }
    if (is(n.left, ADD)) has_left = term(right_of(n.left), left);
    if (has_left) return left.variable ? F_CHAINED_LEFT : F_NONE;
    if (is(n.left, ADD) && is(right_of(n.left), ADD))
        has_left = term(right_of(right_of(n.left)), left);
    if (!has_left || !left.variable) return F_NONE;
    return F_CHAINED_LEFT_RIGHT;
}

// DistributiveFactorOutRule(constants=False).can_apply_to. Its factoring of the two
// coefficients only matters through `best`, the smallest common factor (a term
// has a variable here, so mathy_core takes the minimum): 1 divides both unless a
// coefficient is 0, and a common factor below 1 exists only when both
// coefficients are the same number between 0 and 1 (a float's own key).
bool Tree::factor_out(int index) const {
    Term left, right;
    if (factor_type(index, left, right) == F_NONE) return false;
    if (!left.variable && !right.variable) return false;  // constants=False
    const double left_coefficient = left.has_coefficient ? left.coefficient : 1.0;
    const double right_coefficient = right.has_coefficient ? right.coefficient : 1.0;
    auto no_factors = [](double value) { return value == 0.0 || std::isnan(value); };
    if (no_factors(left_coefficient) || no_factors(right_coefficient)) return false;
    const bool best_is_one = !(left_coefficient == right_coefficient &&
                               left_coefficient > 0.0 && left_coefficient < 1.0);
    return common_variable(left, right) != 0 || !best_is_one;
}

char Tree::common_variable(const Term& left, const Term& right) const {
    const bool exponents_match =
        left.has_exponent && right.has_exponent && left.exponent == right.exponent;
    const bool both_match =
        !((truthy(left.has_exponent, left.exponent) || truthy(right.has_exponent, right.exponent)) &&
          !exponents_match);
    return (left.variable && left.variable == right.variable && both_match) ? left.variable : 0;
}

Node Tree::coefficient_constant(const Term& term) const {
    if (term.has_coefficient && term.coefficient_node != NO_NODE) return nodes[term.coefficient_node];
    Node value{CONSTANT};
    value.int_value = term.has_coefficient ? -1 : 1;
    return value;
}

bool Tree::associative_swap(int index) const {
    const Node& n = nodes[index];
    return (is(n.parent, ADD) && n.kind == ADD) || (is(n.parent, MULTIPLY) && n.kind == MULTIPLY);
}

bool Tree::variable_multiply(int index) const {
    const Node& n = nodes[index];
    if (n.kind != MULTIPLY) return false;
    Term left, right;
    const bool has_left = term(n.left, left);
    bool has_right = term(n.right, right);
    if (is(n.left, MULTIPLY) && is(n.right, MULTIPLY)) {
        Term chain_left;
        if (term(right_of(n.left), chain_left) && has_right &&
            chain_left.variable == right.variable)
            return true;
    }
    if (!has_left || !left.variable) return false;
    if (!has_right && is(n.right, MULTIPLY)) has_right = term(left_of(n.right), right);
    if (!has_right || !right.variable) return false;
    return left.variable == right.variable;
}

bool Tree::restate_subtraction(int index) const {
    const Node& n = nodes[index];
    if (n.kind == SUBTRACT &&
        (n.parent == NO_NODE || is(n.parent, EQUAL) || is(n.parent, ADD)))
        return true;  // every arrangement of a subtraction there has a type
    if (n.kind != ADD) return false;
    if (is(n.right, CONSTANT)) return nodes[n.right].number() < 0.0;
    if (is(n.right, MULTIPLY) && is(left_of(n.right), CONSTANT) &&
        (is(right_of(n.right), VARIABLE) || is(right_of(n.right), POWER)))
        return nodes[left_of(n.right)].number() < 0.0;
    return false;
}

bool Tree::can_apply(int rule, int node, bool preferred_commute) const {
    switch (rule) {
        case CONSTANTS_SIMPLIFY: return constants_simplify(node);
        case COMMUTATIVE_SWAP: return commutative_swap(node, preferred_commute);
        case DISTRIBUTIVE_MULTIPLY: return distributive_multiply(node);
        case DISTRIBUTIVE_FACTOR_OUT: return factor_out(node);
        case ASSOCIATIVE_SWAP: return associative_swap(node);
        case VARIABLE_MULTIPLY: return variable_multiply(node);
        case RESTATE_SUBTRACTION: return restate_subtraction(node);
        default: return false;
    }
}

}  // namespace mathy_native
