// Values of the native tree modulo the prime 2^61 - 1 at given points, as
// mathy_envs/_engine/values.py's evaluator computes them (its value at the point, the
// first of what it knows of a subtree), for the trees within reach: integer
// constants, variables, sums, differences, products, negations, and powers whose
// exponent is a whole constant >= 0 computed from integers. Anything else (a
// float constant, division, a variable or negative exponent, an equation, a
// factorial, a function, a degree past MAX_DEGREE, a variable with no value at
// the point) is left to values.py: `point_value` returns false.
#include <cstdint>

#include "expression.hpp"

namespace mathy_native {

namespace {

constexpr uint64_t PRIME = (uint64_t(1) << 61) - 1;
constexpr int64_t MAX_DEGREE = int64_t(1) << 45;

uint64_t reduce(unsigned __int128 x) {
    // x mod 2^61 - 1, for x < 2^122.
    uint64_t low = static_cast<uint64_t>(x & PRIME);
    uint64_t high = static_cast<uint64_t>(x >> 61);
    uint64_t sum = low + high;
    sum = (sum & PRIME) + (sum >> 61);
    return sum >= PRIME ? sum - PRIME : sum;
}

uint64_t add(uint64_t a, uint64_t b) { return reduce(static_cast<unsigned __int128>(a) + b); }

uint64_t subtract(uint64_t a, uint64_t b) {
    return reduce(static_cast<unsigned __int128>(a) + PRIME - b);
}

uint64_t multiply(uint64_t a, uint64_t b) {
    return reduce(static_cast<unsigned __int128>(a) * b);
}

uint64_t power(uint64_t base, int64_t exponent) {
    uint64_t result = 1;
    while (exponent > 0) {
        if (exponent & 1) result = multiply(result, base);
        base = multiply(base, base);
        exponent >>= 1;
    }
    return result;
}

// What values.py knows of a subtree, less what only the refused cases read.
struct Known {
    uint64_t field = 0;      // the value at the point, modulo PRIME
    bool exact = false;      // `exact_value` holds the subtree's exact value
    int64_t exact_value = 0;
    bool constant = true;    // no variables
    int64_t degree = 0;      // as a polynomial in the variables' t
};

// Evaluates the subtree under `node` bottom-up, without recursion:
// `evaluate(n, left, right, result)` gets each node with its children's values
// (null for none; a unary node's child is its right) and returns false to give
// up, which `post_order` then returns.
template <typename Value, typename Evaluate>
bool post_order(const std::vector<Node>& nodes, int node, Value& out, Evaluate evaluate) {
    struct Frame {
        int node;
        bool expanded;
    };
    // Each thread's own buffers, kept from call to call (`evaluate` never
    // calls back into post_order).
    thread_local std::vector<Frame> stack;
    thread_local std::vector<Value> values;
    stack.clear();
    values.clear();
    stack.push_back({node, false});
    while (!stack.empty()) {
        const Frame frame = stack.back();
        stack.pop_back();
        const Node& n = nodes[frame.node];
        const bool has_left = n.left != NO_NODE && !n.unary();
        const bool has_right = n.right != NO_NODE;
        if (!frame.expanded) {
            stack.push_back({frame.node, true});
            // The right child is evaluated after the left, and so is pushed first.
            if (has_right) stack.push_back({n.right, false});
            if (has_left) stack.push_back({n.left, false});
            continue;
        }
        Value left{}, right{};
        if (has_right) {
            right = values.back();
            values.pop_back();
        }
        if (has_left) {
            left = values.back();
            values.pop_back();
        }
        Value result{};
        if (!evaluate(n, has_left ? &left : nullptr, has_right ? &right : nullptr, result))
            return false;
        values.push_back(result);
    }
    out = values.back();
    return true;
}

// A sum, difference, product or power of two known subtrees, as values.py's
// evaluator computes it; false where it leaves the node to values.py.
bool combine(Kind kind, const Known& a, const Known& b, Known& result) {
    result.constant = a.constant && b.constant;
    int64_t exact = 0;
    if (kind == ADD) {
        result.field = add(a.field, b.field);
        result.exact =
            a.exact && b.exact && !__builtin_add_overflow(a.exact_value, b.exact_value, &exact);
        result.degree = a.degree > b.degree ? a.degree : b.degree;
    } else if (kind == SUBTRACT) {
        result.field = subtract(a.field, b.field);
        result.exact =
            a.exact && b.exact && !__builtin_sub_overflow(a.exact_value, b.exact_value, &exact);
        result.degree = a.degree > b.degree ? a.degree : b.degree;
    } else if (kind == MULTIPLY) {
        result.field = multiply(a.field, b.field);
        result.exact =
            a.exact && b.exact && !__builtin_mul_overflow(a.exact_value, b.exact_value, &exact);
        result.degree = a.degree + b.degree;  // each at most MAX_DEGREE
        if (result.degree > MAX_DEGREE) return false;  // values.py raises
    } else {
        // A whole constant exponent >= 0 whose exact value is known.
        if (!b.constant || !b.exact || b.exact_value < 0) return false;
        const int64_t whole = b.exact_value;
        result.field = power(a.field, whole);
        if (a.exact) {
            // Kept exact while it fits; past that it is known at the point only,
            // which is all that is read of it here.
            int64_t value = 1;
            bool fits = true;
            for (int64_t i = 0; i < whole && fits; ++i) {
                fits = !__builtin_mul_overflow(value, a.exact_value, &value);
                if (value == 0 || value == 1) break;  // stays put
                if (value == -1) {                    // alternates
                    value = (whole % 2 == 0) ? 1 : -1;
                    break;
                }
            }
            if (a.exact_value == 0) value = whole == 0 ? 1 : 0;
            else if (a.exact_value == 1) value = 1;
            result.exact = fits;
            exact = value;
            result.degree = 0;
        } else {
            const unsigned __int128 degree =
                static_cast<unsigned __int128>(whole) * static_cast<uint64_t>(a.degree);
            if (degree > static_cast<unsigned __int128>(MAX_DEGREE)) return false;
            result.degree = static_cast<int64_t>(degree);
        }
    }
    result.exact_value = result.exact ? exact : 0;
    return true;
}

}  // namespace

uint64_t field_power(uint64_t base, int64_t exponent) { return power(base % PRIME, exponent); }

int variable_slot(char name) {
    if (name >= 'a' && name <= 'z') return name - 'a';
    if (name >= 'A' && name <= 'Z') return 26 + (name - 'A');
    return -1;
}

bool Tree::point_value(int node, const uint64_t* variables, int64_t roots,
                       uint64_t& out) const {
    if (roots < 1 || roots > MAX_DEGREE) return false;  // values.py raises past MAX_DEGREE
    Known known;
    const bool reached = post_order(nodes, node, known, [&](const Node& n, const Known* a,
                                                            const Known* b, Known& result) {
        switch (n.kind) {
            case CONSTANT: {
                if (n.is_float) return false;
                const int64_t v = n.int_value;
                const int64_t r = v % static_cast<int64_t>(PRIME);
                result.field = static_cast<uint64_t>(r < 0 ? r + static_cast<int64_t>(PRIME) : r);
                result.exact = true;
                result.exact_value = v;
                return true;
            }
            case VARIABLE: {
                const int slot = variable_slot(n.name);
                if (slot < 0 || variables[slot] == 0) return false;
                result.field = variables[slot];
                result.constant = false;
                result.degree = roots;
                return true;
            }
            case NEGATE: {
                if (n.left != NO_NODE || b == nullptr) return false;
                result = *b;
                result.field = b->field == 0 ? 0 : PRIME - b->field;
                result.exact = b->exact && b->exact_value != INT64_MIN;
                result.exact_value = result.exact ? -b->exact_value : 0;
                return true;
            }
            case ADD:
            case SUBTRACT:
            case MULTIPLY:
            case POWER:
                return a != nullptr && b != nullptr && combine(n.kind, *a, *b, result);
            default:
                return false;  // division, equations, factorials, functions
        }
    });
    if (reached) out = known.field;
    return reached;
}

namespace {

// values.py's sign sets: bits for negative, zero and positive.
constexpr int NEGATIVE = 1, ZERO = 2, POSITIVE = 4, ANY_SIGN = 7;

int sum_sign(int a, int b) {
    if (a == ZERO) return b;
    if (b == ZERO) return a;
    return a == b ? a : ANY_SIGN;
}

int product_sign(int a, int b) {
    if (a == ZERO || b == ZERO) return ZERO;
    return a == b ? POSITIVE : NEGATIVE;
}

// `combine` of single signs lifted to sets of signs.
template <typename Combine>
int lifted(int a, int b, Combine combine) {
    int signs = 0;
    for (int x : {NEGATIVE, ZERO, POSITIVE})
        for (int y : {NEGATIVE, ZERO, POSITIVE})
            if ((a & x) && (b & y)) signs |= combine(x, y);
    return signs;
}

int negated(int signs) {
    return (signs & ZERO) | ((signs & POSITIVE) ? NEGATIVE : 0) | ((signs & NEGATIVE) ? POSITIVE : 0);
}

struct Symbolic {
    uint64_t field = 0;
    int signs = 0;
    bool constant = true;
    int64_t degree = 0;
};

}  // namespace

bool Tree::symbolic_value(int node, const std::string& prefix, uint64_t& out,
                          KeyHashes* memo) const {
    // values.py's symbolic evaluation (`same_expression`): every constant a
    // pseudo-random symbol of its value, every power an opaque value.
    const auto hashed = [memo](const std::string& key) {
        if (memo == nullptr) return key_hash(key);
        const auto found = memo->find(key);
        if (found != memo->end()) return found->second;
        const uint64_t value = key_hash(key);
        memo->emplace(key, value);
        return value;
    };
    Symbolic symbolic;
    const bool reached = post_order(nodes, node, symbolic, [&](const Node& n, const Symbolic* a,
                                                               const Symbolic* b, Symbolic& result) {
        switch (n.kind) {
            case CONSTANT: {
                if (n.is_float) return false;
                const int64_t v = n.int_value;
                // |v| as unsigned: -INT64_MIN does not fit an int64_t.
                const uint64_t magnitude =
                    v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
                const uint64_t symbol = hashed(prefix + "constant:" + std::to_string(magnitude));
                result.field = v < 0 ? PRIME - symbol : symbol;
                result.signs = v > 0 ? POSITIVE : v < 0 ? NEGATIVE : ZERO;
                result.constant = true;
                result.degree = 1;
                return true;
            }
            case VARIABLE:
                result.field = hashed(prefix + "var:" + std::string(1, n.name));
                result.signs = ANY_SIGN;
                result.constant = false;
                result.degree = 1;
                return true;
            case NEGATE:
                if (n.left != NO_NODE || b == nullptr) return false;
                result = *b;
                if (!(b->signs == ZERO && b->constant)) {  // -0 is 0
                    result.field = b->field == 0 ? 0 : PRIME - b->field;
                    result.signs = negated(b->signs);
                }
                return true;
            case ADD:
            case SUBTRACT:
            case MULTIPLY:
            case POWER:
                if (a == nullptr || b == nullptr) return false;
                result.constant = a->constant && b->constant;
                if (n.kind == ADD) {
                    result.field = add(a->field, b->field);
                    result.signs = lifted(a->signs, b->signs, sum_sign);
                    result.degree = a->degree > b->degree ? a->degree : b->degree;
                } else if (n.kind == SUBTRACT) {
                    result.field = subtract(a->field, b->field);
                    result.signs = lifted(a->signs, negated(b->signs), sum_sign);
                    result.degree = a->degree > b->degree ? a->degree : b->degree;
                } else if (n.kind == MULTIPLY) {
                    result.field = multiply(a->field, b->field);
                    result.signs = lifted(a->signs, b->signs, product_sign);
                    result.degree = a->degree + b->degree;
                    if (result.degree > MAX_DEGREE) return false;  // values.py raises
                } else {
                    // No exponent has an exact value here: an opaque value.
                    result.field = hashed(prefix + "^\x01~" + std::to_string(a->field) +
                                          "\x01~" + std::to_string(b->field));
                    result.signs = a->signs == POSITIVE ? POSITIVE : ANY_SIGN;
                    result.degree = 1;
                }
                return true;
            default:
                return false;  // division, equations, factorials, functions
        }
    });
    if (reached) out = symbolic.field;
    return reached;
}

}  // namespace mathy_native
