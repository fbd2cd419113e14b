// The native core's expression trees: mathy_core's tokenizer, parser and printer,
// re-implemented on an arena of nodes.
//
// mathy_core defines the semantics; this file reproduces them exactly on the texts
// it accepts and refuses everything else (`Tree::parse` returns false), in which
// case the caller uses mathy_core itself. Refused: any text mathy_core's parser
// rejects (the caller re-parses it to get mathy_core's own error), integers of more
// than 15 digits, non-ASCII characters other than the en dash that mathy_core reads
// as a minus, and texts of more than MAX_NODES nodes.
//
// Nodes may be shared: mathy_core parses `xy^2` as `(y^2 * x) * y`, where both `y`
// are one node object whose parent is the last node it was attached to. The arena
// keeps that: a node index may be a child of two nodes, and `parent` is the last.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace mathy_native {

enum Kind : uint8_t {
    CONSTANT,
    VARIABLE,
    ADD,
    SUBTRACT,
    MULTIPLY,
    DIVIDE,
    POWER,
    EQUAL,
    NEGATE,
    FACTORIAL,
    SGN,
};

// mathy_core's `MathTypeKeys` for each kind (variables: 27 + letter, see type_id).
constexpr int TYPE_IDS[] = {10, 26, 3, 4, 5, 6, 7, 2, 1, 8, 11};

// The core rules this core implements, in action order: each is the index of
// its rule in mathy_envs._engine.rules' table (`CORE_RULE_TABLE`), and
// `CORE_RULE_NAMES` names mathy_core's class of each. The bindings expose the
// names (`mathy_envs._native.CORE_RULE_NAMES`), and the library refuses a
// compiled core whose names differ from its table.
enum CoreRule : int {
    CONSTANTS_SIMPLIFY,
    COMMUTATIVE_SWAP,
    DISTRIBUTIVE_MULTIPLY,
    DISTRIBUTIVE_FACTOR_OUT,
    ASSOCIATIVE_SWAP,
    VARIABLE_MULTIPLY,
    RESTATE_SUBTRACTION,
    CORE_RULE_COUNT,
};

constexpr const char* CORE_RULE_NAMES[] = {
    "ConstantsSimplifyRule",    "CommutativeSwapRule", "DistributiveMultiplyRule",
    "DistributiveFactorOutRule", "AssociativeSwapRule", "VariableMultiplyRule",
    "RestateSubtractionRule",
};
static_assert(sizeof(CORE_RULE_NAMES) / sizeof(CORE_RULE_NAMES[0]) == CORE_RULE_COUNT,
              "one name per core rule");

constexpr int NO_NODE = -1;
constexpr int MAX_NODES = 4096;
constexpr int MAX_PRINT_DEPTH = 200;  // levels of a rewritten tree this core prints

// Thrown by the printer where mathy_core's printer raises.
struct Unprintable {};

struct Node {
    Kind kind;
    int left = NO_NODE;
    int right = NO_NODE;  // a unary node's child is on the right, as in mathy_core
    int parent = NO_NODE;
    bool is_float = false;  // a constant's Python type: float, else int
    int64_t int_value = 0;
    double float_value = 0.0;
    char name = 0;  // a variable's letter

    bool binary() const { return kind >= ADD && kind <= EQUAL; }
    bool unary() const { return kind >= NEGATE; }
    // The constant's value as the float mathy_core compares with (`value < 0.0`).
    double number() const { return is_float ? float_value : static_cast<double>(int_value); }
};

// A term `c * v ^ e` as mathy_core's `get_term_ex` reads it; absent parts unset.
// The constants' nodes are kept for their Python type (a negated variable's -1
// has no node: it is the int -1).
struct Term {
    bool has_coefficient = false;
    double coefficient = 0.0;
    int coefficient_node = NO_NODE;
    char variable = 0;  // 0: none
    bool has_exponent = false;
    double exponent = 0.0;
    int exponent_node = NO_NODE;
};

// Python's truth of an optional number: present and not zero (nan is true).
inline bool truthy(bool present, double number) { return present && number != 0.0; }

// Where distributive factor out finds its two terms (mathy_core's `get_type`).
enum FactorPosition { F_NONE, F_SIMPLE, F_CHAINED_LEFT, F_CHAINED_RIGHT, F_CHAINED_BOTH,
                      F_CHAINED_LEFT_RIGHT, F_CHAINED_RIGHT_LEFT };

// terms.py's `term_kind` of a term: get_term's sorted variables and exponent,
// or a kind of its own (`own`: the term's node).
struct TermKindKey {
    int own = -1;
    std::string variables;
    bool has_exponent = false;
    double exponent = 0.0;
    bool operator==(const TermKindKey& other) const {
        if (own != -1 || other.own != -1) return own == other.own;
        return variables == other.variables && has_exponent == other.has_exponent &&
               (!has_exponent || exponent == other.exponent);
    }
};

// Hashes of keys (`key_hash`), kept by their key.
using KeyHashes = std::unordered_map<std::string, uint64_t>;

class Tree {
  public:
    std::vector<Node> nodes;
    int root = NO_NODE;

    // Parse `text` (UTF-8) as mathy_core's ExpressionParser does. False when
    // mathy_core would raise, or the text is outside what this core reproduces.
    bool parse(const std::string& text);

    // mathy_core's `str(tree)`.
    std::string text() const;

    // Node indices in mathy_core's in-order visit (a shared node appears twice),
    // of the whole tree or of the subtree under `from`.
    std::vector<int> in_order() const;
    std::vector<int> in_order(int from) const;
    // Whether the subtree under `from` holds a node of `kind` (mathy_core's find_type).
    bool holds(int from, Kind kind) const;

    // A predicate's answer, or UNKNOWN where mathy_core would raise or this core
    // does not reproduce it (the caller then asks mathy_core).
    enum Answer { NO, YES, UNKNOWN };
    // mathy_core's `is_simplified(root)` (native/terms.cpp): no like terms, and
    // every term in preferred form.
    Answer simplified() const;
    // mathy_envs' `like_terms_grouped(root)` (mathy_envs/_engine/terms.py): every
    // kind of term of the root's sum forms one contiguous run.
    Answer like_terms_grouped() const;
    // terms.py's `like_term_indexes` and `term_indexes` of the in-order nodes
    // `order`: the positions of the root sum's terms that have a like term,
    // and of all its terms, sorted; UNKNOWN as like_terms_grouped.
    Answer like_term_positions(const std::vector<int>& order, std::vector<int>& likes,
                               std::vector<int>& terms) const;
    // terms.py's `sum_terms` of the root, and each one's `term_kind`.
    Answer sum_term_kinds(std::vector<int>& terms, std::vector<TermKindKey>& kinds) const;
    // mathy_core's `get_terms(root)`.
    std::vector<int> terms() const;
    // mathy_core's `get_term_ex(node)`: false where it gives None.
    bool term(int node, Term& out) const;

    int type_id(int node) const;

    // The library's `walk_tree` (mathy_envs/_engine/walk.py) on this tree.
    struct Walk {
        std::vector<int> order;  // node index by in-order position
        int levels = 0;
        std::vector<int> preorder, parent_pre, type_ids_pre, type_ids;
        std::vector<double> values_pre, values;
        bool exact = true;
    };
    Walk walk() const;

    // `can_apply_to` of core rule `rule` (a `CoreRule`, action order) at `node`.
    bool can_apply(int rule, int node, bool preferred_commute) const;

    // The printed text of the whole expression after mathy_core's `apply_to` of
    // core rule `rule` at `node` (which `can_apply` accepts), on this tree; false
    // (the tree then is unusable) where this core does not reproduce the rule's
    // arithmetic: division, powers and equations of constants, integer overflow,
    // factoring float coefficients.
    // admission.py's `admit` loop over the in-order nodes `order`, integer
    // constants within +-`safe_constant` being safe (native/admission.cpp).
    struct Admission {
        std::vector<int> constants;  // to check against the limits, in order
        bool safe = true;            // before the size test
        bool check_value = false;
        bool has_equation = false;
        int unary = 0;
    };
    Admission admission(const std::vector<int>& order, int64_t safe_constant) const;

    // values.py's value of the subtree under `node` modulo 2^61 - 1 (its
    // evaluator's field value) where each variable `a`-`z`, `A`-`Z` has the value
    // `variables[0..51]` (0: none) and the degree `roots`; false where the tree
    // is outside what native/values.cpp reproduces.
    bool point_value(int node, const uint64_t* variables, int64_t roots, uint64_t& out) const;

    // values.py's symbolic value of the subtree under `node` (`same_expression`'s
    // evaluator, whose hash keys start with `prefix`); false where it is outside
    // what native/values.cpp reproduces. `memo`, when given, keeps the hashes
    // of the keys (of one prefix) for the next calls.
    bool symbolic_value(int node, const std::string& prefix, uint64_t& out,
                        KeyHashes* memo = nullptr) const;

    // `top_out`, when given, is set to the root of the rewritten tree.
    bool apply(int rule, int node, std::string& text, int* top_out = nullptr);

    // values.py's `same_tree` of the subtree under `node` and `other`'s under
    // `other_node`: the same node kinds, links, constants and names.
    bool same(int node, const Tree& other, int other_node) const;

  private:
    // mathy_core's node making and linking (set_left / set_right set the child's
    // parent; a direct assignment does not).
    int make(Node node);
    int make_binary(Kind kind, int left, int right);
    int make_constant(const Node& like);
    int make_int(int64_t value);
    int make_variable(char name);
    int clone(int node);
    void set_left(int parent, int child);
    void set_right(int parent, int child);
    void set_side(int parent, int child, bool right_side);
    int root_of(int node) const;
    bool printable(int node, int depth) const;
    int factor_type(int node, Term& left, Term& right) const;
    // factor_add_terms_ex's common variable of two terms (0 for none): the same
    // variable, with exponents that match or are both absent or zero.
    char common_variable(const Term& left, const Term& right) const;
    // A term's coefficient as a constant: its own node's, the int -1 of a negated
    // variable, or the int 1 when it has none.
    Node coefficient_constant(const Term& term) const;

    bool apply_constants_simplify(int node, int& result);
    bool apply_commutative_swap(int node, int& result);
    bool apply_distributive_multiply(int node, int& result);
    bool apply_factor_out(int node, int& result);
    bool apply_associative_swap(int node, int& result);
    bool apply_variable_multiply(int node, int& result);
    bool apply_restate_subtraction(int node, int& result);

    // get_term(node) as has_like_terms keys it (YES), or NO where it is False.
    Answer term_key(int node, std::string& variables, bool& has_exponent,
                    double& exponent) const;
    Answer simple_term(int term) const;     // is_simple_term
    Answer preferred_term(int term) const;  // is_preferred_term_form

    void print(int node, std::string& out) const;
    bool self_parens(int node) const;

    bool is(int node, Kind kind) const { return node != NO_NODE && nodes[node].kind == kind; }
    bool is_binary(int node) const { return node != NO_NODE && nodes[node].binary(); }
    int left_of(int node) const { return node == NO_NODE ? NO_NODE : nodes[node].left; }
    int right_of(int node) const { return node == NO_NODE ? NO_NODE : nodes[node].right; }
    int parent_of(int node) const { return node == NO_NODE ? NO_NODE : nodes[node].parent; }

    bool constants_simplify(int node) const;
    bool commutative_swap(int node, bool preferred) const;
    bool distributive_multiply(int node) const;
    bool factor_out(int node) const;
    bool associative_swap(int node) const;
    bool variable_multiply(int node) const;
    bool restate_subtraction(int node) const;
};

// A variable's place among the 52 values of a point (`a`-`z` then `A`-`Z`), or -1.
int variable_slot(char name);

// `pow(base, exponent, 2**61 - 1)` for an exponent >= 0 (native/values.cpp).
uint64_t field_power(uint64_t base, int64_t exponent);

// values.py's `_Evaluator._hash` of a whole key (native/hashing.cpp).
uint64_t key_hash(const std::string& message);

// numpy's `format_float_positional(value, trim="-")` of a non-integral float.
std::string format_float_positional(double value);

// mathy_core's `ConstantExpression.name`: whole values as integers.
std::string constant_text(const Node& node);

}  // namespace mathy_native
