// `apply_to` of mathy_core's seven core rules on the native arena, each a
// transcription of the rule's `apply_to` in mathy_core, link for link: printing
// reads the parent links (a node's parentheses depend on its parent), so every
// set_left / set_right / direct assignment of mathy_core is made here too, and
// the text is printed from the root that the result's parent links lead to.
#include <climits>

#include "expression.hpp"

namespace mathy_native {

int Tree::make(Node node) {
    node.left = node.right = node.parent = NO_NODE;
    nodes.push_back(node);
    return static_cast<int>(nodes.size()) - 1;
}

void Tree::set_left(int parent, int child) {
    nodes[parent].left = child;
    if (child != NO_NODE) nodes[child].parent = parent;
}

void Tree::set_right(int parent, int child) {
    nodes[parent].right = child;
    if (child != NO_NODE) nodes[child].parent = parent;
}

void Tree::set_side(int parent, int child, bool right_side) {
    if (right_side) {
        set_right(parent, child);
    } else {
        set_left(parent, child);
    }
}

int Tree::make_binary(Kind kind, int left, int right) {
    const int made = make(Node{kind});
    set_left(made, left);
    set_right(made, right);
    return made;
}

int Tree::make_constant(const Node& like) {
    Node constant{CONSTANT};
    constant.is_float = like.is_float;
    constant.int_value = like.int_value;
    constant.float_value = like.float_value;
    return make(constant);
}

int Tree::make_int(int64_t value) {
    Node constant{CONSTANT};
    constant.int_value = value;
    return make(constant);
}

int Tree::make_variable(char name) {
    Node variable{VARIABLE};
    variable.name = name;
    return make(variable);
}

// BinaryTreeNode.clone: a new node of the same kind (and value or name) whose
// children are clones; the clone has no parent.
int Tree::clone(int index) {
    const Node source = nodes[index];
    Node copy{source.kind};
    copy.is_float = source.is_float;
    copy.int_value = source.int_value;
    copy.float_value = source.float_value;
    copy.name = source.name;
    const int made = make(copy);
    if (source.left != NO_NODE) set_left(made, clone(source.left));
    if (source.right != NO_NODE) set_right(made, clone(source.right));
    return made;
}

int Tree::root_of(int index) const {
    // Bounded: a rotation of a node mathy_core shares could link a loop.
    for (size_t steps = 0; nodes[index].parent != NO_NODE && steps <= nodes.size(); ++steps)
        index = nodes[index].parent;
    return index;
}

// Whether mathy_core prints the tree under `index` without raising: every binary
// node has both children, every unary node its child, and it is at most
// MAX_TREE_DEPTH levels deep (deeper, mathy_core's recursion may give out).
bool Tree::printable(int index, int depth) const {
    if (index == NO_NODE || depth > MAX_PRINT_DEPTH) return false;
    const Node& n = nodes[index];
    if (n.binary()) return printable(n.left, depth + 1) && printable(n.right, depth + 1);
    if (n.unary()) return printable(n.right, depth + 1);
    return true;
}

namespace {

// Python's arithmetic on two constants (int op int stays an int; a float makes a
// float). False where this core stops: an int result outside int64.
bool arithmetic(Kind kind, const Node& a, const Node& b, Node& out) {
    out = Node{CONSTANT};
    if (!a.is_float && !b.is_float) {
        long long result = 0;
        bool overflow = false;
        switch (kind) {
            case ADD: overflow = __builtin_add_overflow(a.int_value, b.int_value, &result); break;
            case SUBTRACT: overflow = __builtin_sub_overflow(a.int_value, b.int_value, &result); break;
            case MULTIPLY: overflow = __builtin_mul_overflow(a.int_value, b.int_value, &result); break;
            default: return false;
        }
        if (overflow) return false;
        out.int_value = result;
        return true;
    }
    const double x = a.number(), y = b.number();
    out.is_float = true;
    switch (kind) {
        case ADD: out.float_value = x + y; return true;
        case SUBTRACT: out.float_value = x - y; return true;
        case MULTIPLY: out.float_value = x * y; return true;
        default: return false;  // division, powers, equations: left to mathy_core
    }
}

// `value *= -1` (and `-value`) of a constant.
bool negate_constant(Node& constant) {
    if (constant.is_float) {
        constant.float_value = -constant.float_value;
        return true;
    }
    if (constant.int_value == INT64_MIN) return false;
    constant.int_value = -constant.int_value;
    return true;
}

}  // namespace

bool Tree::apply_constants_simplify(int index, int& result) {
    const Node n = nodes[index];
    Node value;
    // The arrangements of get_type, in its order.
    if (n.kind == NEGATE) {
        const int child = n.right;
        if (is_binary(child) && is(left_of(child), CONSTANT) && is(right_of(child), CONSTANT)) {
            if (!arithmetic(nodes[child].kind, nodes[left_of(child)], nodes[right_of(child)], value))
                return false;
            if (!negate_constant(value)) return false;
            result = make_constant(value);
            return true;
        }
    }
    if (n.binary() && is(n.left, CONSTANT) && is(n.right, CONSTANT)) {
        if (!arithmetic(n.kind, nodes[n.left], nodes[n.right], value)) return false;
        result = make_constant(value);
        return true;
    }
    if (n.kind == MULTIPLY && is(n.left, MULTIPLY) && is(left_of(n.left), CONSTANT) &&
        is(right_of(n.left), VARIABLE) && is(n.right, CONSTANT)) {
        if (!arithmetic(MULTIPLY, nodes[left_of(n.left)], nodes[n.right], value)) return false;
        const int constant = make_constant(value);
        result = make_binary(MULTIPLY, constant, right_of(n.left));
        return true;
    }
    if (n.binary() && is(n.left, CONSTANT) && is_binary(n.right) &&
        is_binary(left_of(n.right)) && is(left_of(left_of(n.right)), CONSTANT) &&
        ((n.kind == ADD && is(n.right, ADD) && is(left_of(n.right), ADD)) ||
         (n.kind == MULTIPLY && is(n.right, MULTIPLY) && is(left_of(n.right), MULTIPLY)))) {
        // chained right deep
        if (!arithmetic(n.kind, nodes[n.left], nodes[left_of(left_of(n.right))], value))
            return false;
        const int constant = make_constant(value);
        const int inner = make_binary(n.kind, constant, right_of(left_of(n.right)));
        result = make_binary(n.kind, inner, right_of(n.right));
        return true;
    }
    if (n.binary() && is(n.left, CONSTANT) && is_binary(n.right) &&
        is(left_of(n.right), CONSTANT) &&
        ((n.kind == ADD && is(n.right, ADD)) || (n.kind == MULTIPLY && is(n.right, MULTIPLY)))) {
        // chained right
        if (!arithmetic(n.kind, nodes[n.left], nodes[left_of(n.right)], value)) return false;
        const int constant = make_constant(value);
        result = make_binary(n.kind, constant, right_of(n.right));
        return true;
    }
    if (n.kind == MULTIPLY && is(n.left, MULTIPLY) && is(left_of(n.left), CONSTANT) &&
        is(n.right, MULTIPLY) && is(left_of(n.right), CONSTANT)) {
        // chained right left
        if (!arithmetic(MULTIPLY, nodes[left_of(n.left)], nodes[left_of(n.right)], value))
            return false;
        const int constant = make_constant(value);
        const int inner = make_binary(MULTIPLY, constant, right_of(n.left));
        result = make_binary(MULTIPLY, inner, right_of(n.right));
        return true;
    }
    if (n.kind == MULTIPLY && is(n.left, MULTIPLY) && is(left_of(n.left), CONSTANT) &&
        is(n.right, MULTIPLY) && is(left_of(n.right), MULTIPLY) &&
        is(left_of(left_of(n.right)), CONSTANT)) {
        // chained right left left
        if (!arithmetic(MULTIPLY, nodes[left_of(n.left)], nodes[left_of(left_of(n.right))], value))
            return false;
        const int constant = make_constant(value);
        const int inner = make_binary(MULTIPLY, constant, right_of(n.left));
        const int rest = make_binary(MULTIPLY, right_of(left_of(n.right)), right_of(n.right));
        result = make_binary(MULTIPLY, inner, rest);
        return true;
    }
    if (n.kind == MULTIPLY && is(n.left, MULTIPLY) && is(right_of(n.left), MULTIPLY) &&
        is(left_of(right_of(n.left)), CONSTANT) && is(n.right, MULTIPLY) &&
        is(left_of(n.right), CONSTANT)) {
        // chained left left right
        if (!arithmetic(MULTIPLY, nodes[left_of(right_of(n.left))], nodes[left_of(n.right)], value))
            return false;
        const int constant = make_constant(value);
        const int product = make_binary(MULTIPLY, constant, right_of(right_of(n.left)));
        const int inner = make_binary(MULTIPLY, product, right_of(n.right));
        result = make_binary(MULTIPLY, left_of(n.left), inner);
        return true;
    }
    return false;
}

bool Tree::apply_commutative_swap(int index, int& result) {
    const int a = nodes[index].left;
    const int b = nodes[index].right;
    const Kind kind = nodes[index].kind;
    const bool add_chain = is(a, ADD) && kind == ADD;
    const bool mul_chain = is(a, MULTIPLY) && kind == MULTIPLY;
    if (kind == EQUAL || (!add_chain && !mul_chain)) {
        set_right(index, a);
        set_left(index, b);
    } else {
        const int two = nodes[a].right;
        const int three = nodes[index].right;
        set_right(a, three);
        set_right(index, two);
    }
    result = index;
    return true;
}

bool Tree::apply_distributive_multiply(int index, int& result) {
    int a, b, c;
    if (is(nodes[index].left, ADD)) {
        a = nodes[index].right;
        b = left_of(nodes[index].left);
        c = right_of(nodes[index].left);
    } else {
        a = nodes[index].left;
        b = left_of(nodes[index].right);
        c = right_of(nodes[index].right);
    }
    // unlink(a)
    const int holder = nodes[a].parent;
    if (holder != NO_NODE && nodes[holder].left == a) set_left(holder, NO_NODE);
    if (holder != NO_NODE && nodes[holder].right == a) set_right(holder, NO_NODE);
    nodes[a].parent = NO_NODE;
    const bool a_exp_var =
        (is(a, POWER) && is(nodes[a].right, VARIABLE)) || is(nodes[a].left, VARIABLE);
    const bool a_var = a_exp_var || is(a, VARIABLE);
    int ab, ac;
    if (a_var && is(b, CONSTANT)) {
        const int left = clone(b);
        ab = make_binary(MULTIPLY, left, clone(a));
    } else {
        const int left = clone(a);
        ab = make_binary(MULTIPLY, left, clone(b));
    }
    if (a_var && is(c, CONSTANT)) {
        const int left = clone(c);
        ac = make_binary(MULTIPLY, left, clone(a));
    } else {
        const int left = clone(a);
        ac = make_binary(MULTIPLY, left, clone(c));
    }
    result = make_binary(ADD, ab, ac);
    return true;
}

bool Tree::apply_factor_out(int index, int& result) {
    Term left, right;
    const int position = factor_type(index, left, right);
    if (position == F_NONE) return false;
    // Only whole coefficients: their smallest common factor is 1, and the factors
    // left over are the coefficients themselves (mathy_core's `factor` of a float
    // keys its dict by floats and numpy numbers, which this core does not follow).
    auto whole = [&](const Term& term) {
        return !term.has_coefficient ||
               (term.coefficient_node == NO_NODE || !nodes[term.coefficient_node].is_float);
    };
    if (!whole(left) || !whole(right)) return false;
    const Node left_coefficient = coefficient_constant(left);
    const Node right_coefficient = coefficient_constant(right);
    // factor_add_terms_ex
    const char variable = common_variable(left, right);
    const bool has_exponent = variable && left.has_exponent;
    const int exponent = variable ? left.exponent_node : NO_NODE;  // a term's own node
    auto differs = [&](const Term& term) {
        // `exponent and exponent != result.exponent`
        return truthy(term.has_exponent, term.exponent) &&
               !(has_exponent && nodes[exponent].number() == term.exponent);
    };
    const int left_exponent = differs(left) ? left.exponent_node : NO_NODE;
    const int right_exponent = differs(right) ? right.exponent_node : NO_NODE;
    const char left_variable = (left.variable && left.variable != variable) ? left.variable : 0;
    const char right_variable =
        (right.variable && right.variable != variable) ? right.variable : 0;

    // make_term(coefficient, variable, exponent)
    auto make_term = [&](const Node& value, char name, int power, bool has_power) -> int {
        const int constant = make_constant(value);
        if (!name && !has_power) return constant;
        if (!name) return NO_NODE;  // mathy_core would name the variable "None"
        const int var = make_variable(name);
        const bool one = value.number() == 1.0;
        if (one && !has_power) return var;
        const int product = make_binary(MULTIPLY, constant, var);
        if (!has_power) return product;
        const int power_constant = make_constant(nodes[power]);
        if (one) return make_binary(POWER, var, power_constant);
        return make_binary(POWER, product, power_constant);
    };
    Node one{CONSTANT};
    one.int_value = 1;
    const int a = make_term(one, variable, exponent, has_exponent);
    const int b = make_term(left_coefficient, left_variable, left_exponent, left_exponent != NO_NODE);
    const int c =
        make_term(right_coefficient, right_variable, right_exponent, right_exponent != NO_NODE);
    if (a == NO_NODE || b == NO_NODE || c == NO_NODE) return false;
    const int inside = make_binary(ADD, b, c);
    int made = make_binary(MULTIPLY, inside, a);
    const Node n = nodes[index];
    if (position == F_CHAINED_LEFT || position == F_CHAINED_BOTH)
        made = make_binary(ADD, left_of(n.left), made);
    if (position == F_CHAINED_LEFT_RIGHT) {
        const int keep = make_binary(ADD, left_of(n.left), left_of(right_of(n.left)));
        made = make_binary(ADD, keep, made);
    }
    if (position == F_CHAINED_RIGHT_LEFT) {
        const int keep = make_binary(ADD, right_of(left_of(n.right)), right_of(n.right));
        made = make_binary(ADD, made, keep);
    }
    if (position == F_CHAINED_RIGHT || position == F_CHAINED_BOTH)
        made = make_binary(ADD, made, right_of(n.right));
    result = made;
    return true;
}

bool Tree::apply_associative_swap(int index, int& result) {
    // BinaryTreeNode.rotate
    const int node = index;
    const int parent = nodes[node].parent;
    result = node;
    if (parent == NO_NODE) return true;
    const int grand_parent = nodes[parent].parent;
    if (node == nodes[parent].left) {
        set_left(parent, nodes[node].right);
        nodes[node].right = parent;
        nodes[parent].parent = node;
    } else {
        set_right(parent, nodes[node].left);
        nodes[node].left = parent;
        nodes[parent].parent = node;
    }
    nodes[node].parent = grand_parent;
    if (grand_parent == NO_NODE) return true;
    if (parent == nodes[grand_parent].left) {
        nodes[grand_parent].left = node;
    } else {
        nodes[grand_parent].right = node;
    }
    return true;
}

bool Tree::apply_variable_multiply(int index, int& result) {
    const Node n = nodes[index];
    if (n.kind != MULTIPLY) return false;
    // get_type, keeping the position
    enum { SIMPLE, CHAINED, CHAINED_LEFT_RIGHT } position = SIMPLE;
    Term left, right;
    const bool has_left = term(n.left, left);
    bool has_right = term(n.right, right);
    bool found = false;
    if (is(n.left, MULTIPLY) && is(n.right, MULTIPLY)) {
        Term chain_left;
        if (term(right_of(n.left), chain_left) && has_right &&
            chain_left.variable == right.variable) {
            left = chain_left;
            position = CHAINED_LEFT_RIGHT;
            found = true;
        }
    }
    if (!found) {
        if (!has_left || !left.variable) return false;
        bool chained = false;
        if (!has_right && is(n.right, MULTIPLY)) {
            chained = true;
            has_right = term(left_of(n.right), right);
        }
        if (!has_right || !right.variable) return false;
        if (left.variable != right.variable) return false;
        position = chained ? CHAINED : SIMPLE;
    }
    auto exponent_of = [&](const Term& term) -> Node {
        if (!term.has_exponent) {
            Node one{CONSTANT};
            one.int_value = 1;
            return one;
        }
        return nodes[term.exponent_node];
    };
    const Node left_exponent = exponent_of(left), right_exponent = exponent_of(right);
    const int sum_left = make_constant(left_exponent);
    const int exponent_sum = make_binary(ADD, sum_left, make_constant(right_exponent));
    const int power_term = make_binary(POWER, make_variable(left.variable), exponent_sum);
    int coefficient_term = NO_NODE;
    bool coefficient_product = false;
    if (left.has_coefficient || right.has_coefficient) {
        const Node left_const = coefficient_constant(left);
        const Node right_const = coefficient_constant(right);
        if (left.has_coefficient && right.has_coefficient) {
            const int first = make_constant(left_const);
            coefficient_term = make_binary(MULTIPLY, first, make_constant(right_const));
            coefficient_product = true;
        } else {
            coefficient_term = make_constant(left.has_coefficient ? left_const : right_const);
        }
    }
    int made = power_term;
    if (position == CHAINED) {
        const int keep_child = right_of(n.right);
        made = make_binary(MULTIPLY, power_term, keep_child);
        if (coefficient_term != NO_NODE) {
            if (coefficient_product) {
                made = make_binary(MULTIPLY, nodes[coefficient_term].right, made);
                made = make_binary(MULTIPLY, nodes[coefficient_term].left, made);
            } else {
                made = make_binary(MULTIPLY, coefficient_term, made);
            }
        }
    } else if (position == CHAINED_LEFT_RIGHT) {
        const int keep_child = left_of(n.left);
        made = power_term;
        if (coefficient_term != NO_NODE) {
            if (coefficient_product) {
                const int inner =
                    make_binary(MULTIPLY, nodes[coefficient_term].left, power_term);
                made = make_binary(MULTIPLY, nodes[coefficient_term].right, inner);
            } else {
                made = make_binary(MULTIPLY, coefficient_term, power_term);
            }
        }
        made = make_binary(MULTIPLY, keep_child, made);
    } else if (coefficient_term != NO_NODE) {
        made = make_binary(MULTIPLY, coefficient_term, power_term);
    }
    result = made;
    return true;
}

bool Tree::apply_restate_subtraction(int index, int& result) {
    const Node n = nodes[index];
    if (n.kind == SUBTRACT &&
        (n.parent == NO_NODE || is(n.parent, EQUAL) || is(n.parent, ADD))) {
        if (is(n.right, NEGATE) && is(nodes[n.right].right, VARIABLE)) {
            const int child = clone(nodes[n.right].right);
            result = make_binary(ADD, n.left, child);
            return true;
        }
        if (is(n.right, CONSTANT) && nodes[n.right].number() < 0.0) {
            const int new_right = clone(n.right);
            if (!negate_constant(nodes[new_right])) return false;
            result = make_binary(ADD, n.left, new_right);
            return true;
        }
        if (is(left_of(n.right), CONSTANT)) {
            const int new_right = clone(n.right);
            if (!negate_constant(nodes[nodes[new_right].left])) return false;
            result = make_binary(ADD, n.left, new_right);
            return true;
        }
        const int negated = make(Node{NEGATE});
        set_right(negated, n.right);
        result = make_binary(ADD, n.left, negated);
        return true;
    }
    if (n.kind != ADD) return false;
    int constant = NO_NODE;
    if (is(n.right, CONSTANT)) {
        if (!(nodes[n.right].number() < 0.0)) return false;
    } else if (is(n.right, MULTIPLY) && is(left_of(n.right), CONSTANT) &&
               (is(right_of(n.right), VARIABLE) || is(right_of(n.right), POWER))) {
        if (!(nodes[left_of(n.right)].number() < 0.0)) return false;
    } else {
        return false;
    }
    const int new_right = clone(n.right);
    result = make_binary(SUBTRACT, n.left, new_right);
    constant = is(n.right, CONSTANT) ? new_right : nodes[new_right].left;
    return negate_constant(nodes[constant]);
}

bool Tree::apply(int rule, int node, std::string& text, int* top_out) {
    // ExpressionChangeRule.save_parent (every rule but the two swaps saves it
    // before changing anything; the swaps change the node in place).
    const int parent = nodes[node].parent;
    const bool right_side = parent != NO_NODE && nodes[parent].left != node;
    // save_parent's get_side raises when the parent does not hold the node.
    const bool saves_parent = rule != COMMUTATIVE_SWAP && rule != ASSOCIATIVE_SWAP;
    if (saves_parent && parent != NO_NODE && nodes[parent].left != node &&
        nodes[parent].right != node)
        return false;
    int result = NO_NODE;
    bool done = false;
    bool in_place = false;
    switch (rule) {
        case CONSTANTS_SIMPLIFY: done = apply_constants_simplify(node, result); break;
        case COMMUTATIVE_SWAP:
            done = apply_commutative_swap(node, result);
            in_place = true;
            break;
        case DISTRIBUTIVE_MULTIPLY: done = apply_distributive_multiply(node, result); break;
        case DISTRIBUTIVE_FACTOR_OUT: done = apply_factor_out(node, result); break;
        case ASSOCIATIVE_SWAP:
            done = apply_associative_swap(node, result);
            in_place = true;
            break;
        case VARIABLE_MULTIPLY: done = apply_variable_multiply(node, result); break;
        case RESTATE_SUBTRACTION: done = apply_restate_subtraction(node, result); break;
        default: return false;
    }
    if (!done) return false;
    // ExpressionChangeRule.done: the saved parent takes the result on the saved side.
    if (!in_place && parent != NO_NODE) set_side(parent, result, right_side);
    const int top = root_of(result);
    if (!printable(top, 0)) return false;
    if (top_out != nullptr) *top_out = top;
    text.clear();
    text.reserve(4 * nodes.size());
    try {
        print(top, text);
    } catch (const Unprintable&) {
        return false;
    }
    return true;
}

bool Tree::same(int node, const Tree& other, int other_node) const {
    // values.py's same_tree: node types, shapes, constants (of the same Python
    // type) and variable names.
    std::vector<std::pair<int, int>> pairs{{node, other_node}};
    while (!pairs.empty()) {
        const auto [a, b] = pairs.back();
        pairs.pop_back();
        if (a == NO_NODE || b == NO_NODE) {
            if (a != b) return false;
            continue;
        }
        const Node& x = nodes[a];
        const Node& y = other.nodes[b];
        if (x.kind != y.kind) return false;
        if (x.kind == CONSTANT) {
            if (x.is_float != y.is_float) return false;
            if (x.is_float ? !(x.float_value == y.float_value) : x.int_value != y.int_value)
                return false;
        } else if (x.kind == VARIABLE && x.name != y.name) {
            return false;
        }
        pairs.push_back({x.left, y.left});
        pairs.push_back({x.right, y.right});
    }
    return true;
}

}  // namespace mathy_native
