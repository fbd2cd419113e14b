// mathy_core's term predicates on the native tree: `is_simplified` (util.py's
// has_like_terms, get_terms, get_term, is_simple_term, get_sub_terms and
// is_preferred_term_form), step for step.
//
// mathy_core's traversals visit a node two nodes hold (the `y` of `xy^2`) twice,
// and so do these, through `in_order`. Where mathy_core would raise (an assertion
// in get_sub_terms, get_side on a parent that does not hold the node) or a
// constant is not a finite number, the answer is UNKNOWN and the caller asks
// mathy_core itself.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "expression.hpp"

namespace mathy_native {

namespace {

bool add_or_sub(const std::vector<Node>& nodes, int node) {
    return node != NO_NODE && (nodes[node].kind == ADD || nodes[node].kind == SUBTRACT);
}

// get_term's key in has_like_terms: the sorted variable names, and the exponent
// (a Python number compares equal to another of equal value, an int to a float).
struct TermKey {
    std::string variables;
    bool has_exponent = false;
    double exponent = 0.0;
    bool operator<(const TermKey& other) const {
        if (variables != other.variables) return variables < other.variables;
        if (has_exponent != other.has_exponent) return has_exponent < other.has_exponent;
        return has_exponent && exponent < other.exponent;
    }
};

}  // namespace

std::vector<int> Tree::in_order(int from) const {
    std::vector<int> order;
    order.reserve(nodes.size());
    // An explicit stack: (node, whether its left subtree was visited).
    std::vector<std::pair<int, bool>> stack;
    stack.reserve(32);
    if (from != NO_NODE) stack.push_back({from, false});
    while (!stack.empty()) {
        auto [index, left_done] = stack.back();
        stack.pop_back();
        const Node& n = nodes[index];
        if (!left_done) {
            stack.push_back({index, true});
            if (n.left != NO_NODE) stack.push_back({n.left, false});
            continue;
        }
        order.push_back(index);
        if (n.right != NO_NODE) stack.push_back({n.right, false});
    }
    return order;
}

std::vector<int> Tree::in_order() const { return in_order(root); }

bool Tree::holds(int from, Kind kind) const {
    for (int index : in_order(from))
        if (nodes[index].kind == kind) return true;
    return false;
}

// get_terms(root): the non-sum children of every add or subtract node, after the
// root if it is a product; the root alone if that finds nothing.
std::vector<int> Tree::terms() const {
    std::vector<int> found;
    if (is(root, MULTIPLY)) found.push_back(root);
    for (int index : in_order(root)) {
        if (!add_or_sub(nodes, index)) continue;
        const Node& n = nodes[index];
        if (n.left != NO_NODE && !add_or_sub(nodes, n.left)) found.push_back(n.left);
        if (n.right != NO_NODE && !add_or_sub(nodes, n.right)) found.push_back(n.right);
    }
    if (found.empty()) found.push_back(root);
    return found;
}

// get_term(node) as has_like_terms reads it: TERM with `key` set, NOT_A_TERM
// (mathy_core's False).
Tree::Answer Tree::term_key(int node, std::string& variables, bool& has_exponent,
                            double& exponent) const {
    const Node& n = nodes[node];
    variables.clear();
    has_exponent = false;
    const bool loose = n.parent == NO_NODE || add_or_sub(nodes, n.parent);
    if ((n.kind == CONSTANT || n.kind == VARIABLE) && loose) {
        if (n.kind == VARIABLE) variables.push_back(n.name);
        return YES;
    }
    if (!add_or_sub(nodes, node) && (holds(node, ADD) || holds(node, SUBTRACT))) return NO;
    if (n.left != NO_NODE && holds(n.left, ADD)) {
        if (n.right != NO_NODE &&
            (nodes[n.right].left != NO_NODE || nodes[n.right].right != NO_NODE))
            return NO;
    }
    if (n.right != NO_NODE && holds(n.right, ADD)) return NO;
    const std::vector<int> subtree = in_order(node);
    int powers = 0, power = NO_NODE, coefficients = 0;
    for (int index : subtree) {
        const Node& m = nodes[index];
        if (m.kind == POWER) {
            if (++powers == 1) power = index;
        } else if (m.kind == VARIABLE) {
            variables.push_back(m.name);
        } else if (m.kind == CONSTANT) {
            // filter_coefficients: kept unless held by a binary node other than a
            // product (its own parent, or the term's, is always kept).
            const int above = m.parent;
            if (above == NO_NODE || above == n.parent || !nodes[above].binary() ||
                nodes[above].kind == MULTIPLY)
                ++coefficients;
        }
    }
    if (powers > 0) {
        if (powers != 1) return NO;
        const int base_exponent = nodes[power].right;
        if (!is(base_exponent, CONSTANT)) return NO;
        has_exponent = true;
        exponent = nodes[base_exponent].number();
    }
    std::sort(variables.begin(), variables.end());
    if (variables.empty() && coefficients == 0 && !has_exponent) return NO;
    return YES;
}

// is_simple_term(term), through get_sub_terms' walk of the term's in-order nodes.
Tree::Answer Tree::simple_term(int term) const {
    const std::vector<int> list = in_order(term);
    size_t next = 0;
    auto pop = [&]() { return next < list.size() ? list[next++] : NO_NODE; };
    auto kind_of = [&](int node) { return node == NO_NODE ? -1 : int(nodes[node].kind); };
    // get_sub_terms asserts the node after a coefficient or a variable is one of these.
    auto operator_after = [&](int node) {
        const int kind = kind_of(node);
        return kind == -1 || kind == MULTIPLY || kind == DIVIDE || kind == POWER;
    };
    std::vector<std::tuple<int, int, int>> sub_terms;  // coefficient, variable, exponent
    int current = pop();
    while (current != NO_NODE) {
        int coefficient = NO_NODE, variable = NO_NODE, exponent = NO_NODE;
        if (kind_of(current) == NEGATE) {
            current = pop();
            continue;
        }
        if (kind_of(current) == CONSTANT) {
            coefficient = current;
            current = pop();
            if (add_or_sub(nodes, current)) return NO;
            if (!operator_after(current)) return UNKNOWN;  // mathy_core's assertion
            if (kind_of(current) != POWER) current = pop();
        }
        if (kind_of(current) == VARIABLE) {
            variable = current;
            current = pop();
            if (add_or_sub(nodes, current)) return NO;
            if (!operator_after(current)) return UNKNOWN;
            if (kind_of(current) != POWER) current = pop();
        }
        if (kind_of(current) == POWER) {
            current = pop();
            exponent = current;
            current = pop();
        }
        if (coefficient == NO_NODE && exponent == NO_NODE && variable == NO_NODE) {
            if (kind_of(current) == MULTIPLY) {
                current = pop();
                continue;
            }
            return NO;
        }
        sub_terms.push_back({coefficient, variable, exponent});
    }
    // is_simple_term, once get_sub_terms has listed them all.
    std::set<std::string> seen;  // is_simple_term's keys, "coefficient" among them
    for (const auto& [coefficient, variable, exponent] : sub_terms) {
        if (coefficient != NO_NODE) {
            if (!seen.insert("coefficient").second) return NO;
        }
        if (variable != NO_NODE || exponent != NO_NODE) {
            // "{}{}".format(variable, exponent): str of each node, or "None".
            std::string key = variable == NO_NODE ? "None" : std::string(1, nodes[variable].name);
            if (exponent == NO_NODE) {
                key += "None";
            } else if (nodes[exponent].kind == VARIABLE) {
                key += nodes[exponent].name;
            } else if (nodes[exponent].kind == CONSTANT) {
                key += constant_text(nodes[exponent]);
            } else {
                return UNKNOWN;  // a subtree's printed text: left to mathy_core
            }
            if (!seen.insert(key).second) return NO;
        }
    }
    return YES;
}

// is_preferred_term_form(term).
Tree::Answer Tree::preferred_term(int term) const {
    const Answer simple = simple_term(term);
    if (simple != YES) return simple;
    int counts[256] = {0};
    for (int index : in_order(term)) {
        const Node& var = nodes[index];
        if (var.kind != VARIABLE) continue;
        ++counts[static_cast<unsigned char>(var.name)];
        int held = index;
        if (is(var.parent, POWER)) held = var.parent;
        const int above = nodes[held].parent;
        if (above == NO_NODE) continue;
        bool left_side;
        if (nodes[above].left == held) left_side = true;  // get_side asks left first
        else if (nodes[above].right == held) left_side = false;
        else return UNKNOWN;  // get_side raises
        if (left_side && is(nodes[above].right, CONSTANT)) return NO;
    }
    for (int count : counts)
        if (count > 1) return NO;
    return YES;
}

Tree::Answer Tree::simplified() const {
    if (root == NO_NODE) return UNKNOWN;
    for (const Node& n : nodes)
        if (n.kind == CONSTANT && n.is_float && !std::isfinite(n.float_value)) return UNKNOWN;
    const std::vector<int> found = terms();
    // has_like_terms: two terms with one key, or two constants in sums.
    std::set<TermKey> seen;
    for (int node : found) {
        TermKey key;
        if (term_key(node, key.variables, key.has_exponent, key.exponent) != YES) continue;
        if (!seen.insert(key).second) return NO;
    }
    bool constant_term = false;
    for (int index : in_order(root)) {
        if (nodes[index].kind != CONSTANT || !add_or_sub(nodes, nodes[index].parent)) continue;
        if (constant_term) return NO;
        constant_term = true;
    }
    for (int node : found) {
        const Answer preferred = preferred_term(node);
        if (preferred != YES) return preferred;
    }
    return YES;
}

namespace {

// terms.py's `term_kind` of a term: get_term's sorted variables and exponent,
// or a kind of its own (the term's node).
}  // namespace

// terms.py's `sum_terms` of the root and the `term_kind` of each; UNKNOWN where
// an exponent is one a double does not compare as Python does.
Tree::Answer Tree::sum_term_kinds(std::vector<int>& found, std::vector<TermKindKey>& kinds) const {
    found.clear();
    kinds.clear();
    if (root == NO_NODE) return UNKNOWN;
    // sum_terms: the nodes reached from the root through add and subtract nodes
    // (with both children) only, left to right.
    std::vector<int> stack{root};
    while (!stack.empty()) {
        const int node = stack.back();
        stack.pop_back();
        const Node& n = nodes[node];
        if (add_or_sub(nodes, node) && n.left != NO_NODE && n.right != NO_NODE) {
            stack.push_back(n.right);
            stack.push_back(n.left);
        } else {
            found.push_back(node);
        }
    }
    // term_kind of each: get_term's sorted variables and exponent, of the term or
    // else of its factor that holds the variables (_without_constant_factors);
    // any other term is a kind of its own (its node).
    constexpr int64_t EXACT = int64_t(1) << 53;  // whole numbers a double holds
    for (const int term : found) {
        TermKindKey kind;
        int node = term;
        bool known = false;
        for (int attempt = 0; attempt < 2 && !known; ++attempt) {
            if (term_key(node, kind.variables, kind.has_exponent, kind.exponent) == YES) {
                if (kind.has_exponent) {
                    // The exponent node: compared as Python compares numbers, which
                    // a double does only up to 2^53.
                    const double value = kind.exponent;
                    if (!std::isfinite(value) || std::fabs(value) > static_cast<double>(EXACT))
                        return UNKNOWN;
                }
                known = true;
                break;
            }
            if (attempt == 1) break;
            // _without_constant_factors(term).
            while (nodes[node].kind == MULTIPLY) {
                const int left = nodes[node].left, right = nodes[node].right;
                if (left == NO_NODE || right == NO_NODE) break;
                if (!holds(left, VARIABLE)) node = right;
                else if (!holds(right, VARIABLE)) node = left;
                else break;
            }
        }
        if (!known) kind.own = term;
        kinds.push_back(kind);
    }
    return YES;
}

Tree::Answer Tree::like_terms_grouped() const {
    std::vector<int> found;
    std::vector<TermKindKey> kinds;
    if (sum_term_kinds(found, kinds) == UNKNOWN) return UNKNOWN;
    std::vector<TermKindKey> finished;
    TermKindKey current;
    bool started = false;
    for (const TermKindKey& kind : kinds) {
        if (started && kind == current) continue;
        for (const TermKindKey& done : finished)
            if (done == kind) return NO;
        if (started) finished.push_back(current);
        current = kind;
        started = true;
    }
    return YES;
}

Tree::Answer Tree::like_term_positions(const std::vector<int>& order, std::vector<int>& likes,
                                       std::vector<int>& terms) const {
    likes.clear();
    terms.clear();
    if (order.empty()) return YES;  // no nodes: no terms
    std::vector<int> found;
    std::vector<TermKindKey> kinds;
    if (sum_term_kinds(found, kinds) == UNKNOWN) return UNKNOWN;
    // Each node's index in the in-order list: its last, as a dict of ids keeps it.
    std::vector<int> position(nodes.size(), -1);
    for (std::size_t i = 0; i < order.size(); ++i)
        position[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    for (std::size_t t = 0; t < found.size(); ++t) {
        const int at = position[static_cast<std::size_t>(found[t])];
        if (at < 0) continue;
        terms.push_back(at);
        int alike = 0;
        for (const TermKindKey& kind : kinds) alike += kind == kinds[t];
        if (alike > 1) likes.push_back(at);
    }
    std::sort(terms.begin(), terms.end());
    std::sort(likes.begin(), likes.end());
    return YES;
}

}  // namespace mathy_native
