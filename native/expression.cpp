// mathy_core's tokenizer, parser and printer on the native arena (expression.hpp).
#include "expression.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mathy_native {

namespace {

// mathy_core's TOKEN_TYPES.
enum TokenType : int {
    T_CONSTANT = 1 << 0,
    T_VARIABLE = 1 << 1,
    T_PLUS = 1 << 2,
    T_MINUS = 1 << 3,
    T_MULTIPLY = 1 << 4,
    T_DIVIDE = 1 << 5,
    T_EXPONENT = 1 << 6,
    T_FACTORIAL = 1 << 7,
    T_OPEN = 1 << 8,
    T_CLOSE = 1 << 9,
    T_FUNCTION = 1 << 10,
    T_EQUAL = 1 << 11,
    T_EOF = 1 << 13,
    T_INVALID = 1 << 14,
};

constexpr int FIRST_FUNCTION = T_FUNCTION;
constexpr int FIRST_FACTOR = FIRST_FUNCTION | T_VARIABLE | T_OPEN | T_FACTORIAL;
constexpr int FIRST_FACTOR_PREFIX = FIRST_FACTOR | T_CONSTANT;
constexpr int FIRST_UNARY = FIRST_FACTOR_PREFIX | T_MINUS;
constexpr int IS_ADD = T_PLUS | T_MINUS;
constexpr int IS_MULT = T_MULTIPLY | T_DIVIDE;

constexpr size_t MAX_TEXT_BYTES = 8192;
constexpr int MAX_INT_DIGITS = 15;
constexpr size_t MAX_INT_TEXT = 32;  // characters of an integer, leading zeros included
constexpr int MAX_PARSE_DEPTH = 150;  // nested parse_add and parse_unary calls
constexpr int MAX_TREE_DEPTH = 200;

struct Token {
    int type;
    std::string value;
};

// Thrown wherever mathy_core raises, or the text is outside this core's reach.
struct Refused {};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_number(char c) { return c == '.' || (c >= '0' && c <= '9'); }

std::vector<Token> tokenize(const std::string& text) {
    std::vector<Token> tokens;
    size_t i = 0;
    const size_t n = text.size();
    while (i < n) {
        const char c = text[i];
        if (is_number(c)) {
            size_t j = i;
            while (j < n && is_number(text[j])) ++j;
            tokens.push_back({T_CONSTANT, text.substr(i, j - i)});
            i = j;
        } else if (is_alpha(c)) {
            size_t j = i;
            while (j < n && is_alpha(text[j])) ++j;
            std::string word = text.substr(i, j - i);
            if (word == "sgn") {
                tokens.push_back({T_FUNCTION, word});
            } else {
                for (char letter : word) tokens.push_back({T_VARIABLE, std::string(1, letter)});
            }
            i = j;
        } else {
            switch (c) {
                case ' ': case '\t': case '\r': case '\n': break;
                case '+': tokens.push_back({T_PLUS, "+"}); break;
                case '-': tokens.push_back({T_MINUS, "-"}); break;
                case '*': tokens.push_back({T_MULTIPLY, "*"}); break;
                case '/': tokens.push_back({T_DIVIDE, "/"}); break;
                case '^': tokens.push_back({T_EXPONENT, "^"}); break;
                case '!': tokens.push_back({T_FACTORIAL, "!"}); break;
                case '(': case '[': tokens.push_back({T_OPEN, "("}); break;
                case ')': case ']': tokens.push_back({T_CLOSE, ")"}); break;
                case '=': tokens.push_back({T_EQUAL, "="}); break;
                default:
                    // The en dash (U+2013, UTF-8 E2 80 93) is mathy_core's other minus.
                    if (static_cast<unsigned char>(c) == 0xE2 && i + 2 < n &&
                        static_cast<unsigned char>(text[i + 1]) == 0x80 &&
                        static_cast<unsigned char>(text[i + 2]) == 0x93) {
                        tokens.push_back({T_MINUS, "-"});
                        i += 3;
                        continue;
                    }
                    throw Refused{};
            }
            ++i;
        }
    }
    tokens.push_back({T_EOF, ""});
    return tokens;
}

// mathy_core's `coerce_to_number`: a float when the text has a dot, else an int.
Node constant_node(const std::string& digits, bool negate) {
    Node node{CONSTANT};
    const size_t dots = std::count(digits.begin(), digits.end(), '.');
    if (dots == 0) {
        // Python's int() counts leading zeros against its digit limit (at least
        // 640, settable): refuse long runs whatever their value.
        if (digits.size() > MAX_INT_TEXT) throw Refused{};
        size_t start = 0;
        while (start + 1 < digits.size() && digits[start] == '0') ++start;
        if (digits.size() - start > MAX_INT_DIGITS) throw Refused{};
        int64_t value = 0;
        for (size_t k = start; k < digits.size(); ++k) value = value * 10 + (digits[k] - '0');
        node.int_value = negate ? -value : value;
        return node;
    }
    // Python's float() takes one dot and at least one digit ("1.", ".5").
    if (dots > 1 || digits.size() == 1) throw Refused{};
    const char* begin = digits.c_str();
    char* end = nullptr;
    const double value = std::strtod(begin, &end);  // correctly rounded, as float()
    if (end != begin + digits.size()) throw Refused{};
    // An infinite float (more than 308 digits before the dot): mathy_core's rules
    // raise on it in ways this core does not reproduce, and no limit admits it.
    if (!std::isfinite(value)) throw Refused{};
    node.is_float = true;
    node.float_value = negate ? -value : value;
    return node;
}

class Parser {
  public:
    Parser(Tree& tree, std::vector<Token> tokens) : tree_(tree), tokens_(std::move(tokens)) {}

    int parse() {
        if (!next()) throw Refused{};  // "Cannot parse an empty function"
        const int expression = parse_equal();
        if (current().type != T_EOF) throw Refused{};  // trailing tokens
        return expression;
    }

  private:
    Tree& tree_;
    std::vector<Token> tokens_;
    size_t position_ = 0;
    bool started_ = false;
    int depth_ = 0;

    const Token& current() const { return tokens_[position_]; }

    bool next() {
        if (started_) {
            if (current().type == T_EOF) throw Refused{};  // OutOfTokens
            ++position_;
        }
        started_ = true;
        return current().type != T_EOF;
    }
    bool eat(int type) {
        if (current().type != type) throw Refused{};
        return next();
    }
    bool check(int set, bool required = false) const {
        const bool found = (set & current().type) != 0;
        if (required && !found) throw Refused{};
        return found;
    }

    int node(Node value) {
        if (static_cast<int>(tree_.nodes.size()) >= MAX_NODES) throw Refused{};
        tree_.nodes.push_back(value);
        return static_cast<int>(tree_.nodes.size()) - 1;
    }
    int binary(Kind kind, int left, int right) {
        const int made = node(Node{kind});
        tree_.nodes[made].left = left;
        tree_.nodes[left].parent = made;
        tree_.nodes[made].right = right;
        tree_.nodes[right].parent = made;
        return made;
    }
    int unary(Kind kind, int child) {
        const int made = node(Node{kind});
        tree_.nodes[made].right = child;
        tree_.nodes[child].parent = made;
        return made;
    }

    int parse_equal() {
        check(FIRST_UNARY, true);
        int expression = parse_add();
        while (check(T_EQUAL)) {
            eat(T_EQUAL);
            if (!check(FIRST_UNARY)) throw Refused{};
            expression = binary(EQUAL, expression, parse_add());
        }
        return expression;
    }

    int parse_add() {
        if (++depth_ > MAX_PARSE_DEPTH) throw Refused{};
        check(FIRST_UNARY, true);
        int expression = parse_mult();
        while (check(IS_ADD)) {
            const int op = current().type;
            eat(op);
            if (!check(FIRST_UNARY)) throw Refused{};
            const int right = parse_mult();
            expression = binary(op == T_PLUS ? ADD : SUBTRACT, expression, right);
        }
        --depth_;
        return expression;
    }

    int parse_mult() {
        check(FIRST_UNARY, true);
        int expression = parse_exponent();
        while (check(IS_MULT)) {
            const int op = current().type;
            eat(op);
            if (!check(FIRST_UNARY)) throw Refused{};
            const int right = parse_exponent();
            expression = binary(op == T_MULTIPLY ? MULTIPLY : DIVIDE, expression, right);
        }
        return expression;
    }

    int parse_exponent() {
        check(FIRST_UNARY, true);
        int expression = parse_unary();
        if (check(T_EXPONENT)) {
            eat(T_EXPONENT);
            if (!check(FIRST_UNARY)) throw Refused{};
            const int right = parse_unary();
            expression = binary(POWER, expression, right);
        }
        return expression;
    }

    int parse_unary() {
        if (++depth_ > MAX_PARSE_DEPTH) throw Refused{};
        bool negate = false;
        if (current().type == T_MINUS) {
            eat(T_MINUS);
            negate = true;
        }
        const bool expected = check(FIRST_FACTOR_PREFIX);
        int expression = NO_NODE;
        if (expected) {
            if (current().type == T_CONSTANT) {
                expression = node(constant_node(current().value, negate));
                negate = false;
                eat(T_CONSTANT);
            }
            if (check(FIRST_FACTOR)) {
                if (expression == NO_NODE) {
                    expression = parse_factors();
                } else if (current().type == T_FACTORIAL) {
                    eat(T_FACTORIAL);
                    expression = unary(FACTORIAL, expression);
                } else {
                    const int factors = parse_factors();
                    expression = binary(MULTIPLY, expression, factors);
                }
            }
        }
        if (!expected || expression == NO_NODE) throw Refused{};
        --depth_;
        return negate ? unary(NEGATE, expression) : expression;
    }

    int parse_factors() {
        std::vector<int> factors;
        bool found = true;
        while (found) {
            const int type = current().type;
            if (type == T_VARIABLE) {
                Node variable{VARIABLE};
                variable.name = current().value[0];
                factors.push_back(node(variable));
                eat(T_VARIABLE);
            } else if (type == T_FUNCTION) {
                eat(T_FUNCTION);  // only `sgn` is a function token
                eat(T_OPEN);
                const int inner = parse_add();
                eat(T_CLOSE);
                factors.push_back(unary(SGN, inner));
            } else if (type == T_OPEN) {
                eat(T_OPEN);
                factors.push_back(parse_add());
                eat(T_CLOSE);
            } else {
                throw Refused{};  // UnexpectedBehavior ("x!")
            }
            found = check(FIRST_FACTOR);
        }
        int expression = NO_NODE;
        if (check(T_EXPONENT)) {
            eat(T_EXPONENT);
            if (!check(FIRST_UNARY)) throw Refused{};
            const int right = parse_unary();
            expression = binary(POWER, factors.back(), right);
        }
        if (factors.size() == 1) return expression != NO_NODE ? expression : factors[0];
        // mathy_core pops from the front: with a power, the power's base (the last
        // factor) is multiplied in again at the end, the same node object twice.
        size_t next_factor = 0;
        while (next_factor < factors.size()) {
            if (expression == NO_NODE) expression = factors[next_factor++];
            expression = binary(MULTIPLY, expression, factors[next_factor++]);
        }
        return expression;
    }
};

int depth_of(const Tree& tree, int node, int depth) {
    if (depth > MAX_TREE_DEPTH) return depth;
    const Node& n = tree.nodes[node];
    int deepest = depth;
    if (n.left != NO_NODE) deepest = std::max(deepest, depth_of(tree, n.left, depth + 1));
    if (n.right != NO_NODE) deepest = std::max(deepest, depth_of(tree, n.right, depth + 1));
    return deepest;
}

int priority(Kind kind) {
    switch (kind) {
        case ADD: case SUBTRACT: return 0;
        case MULTIPLY: case DIVIDE: return 1;
        case POWER: return 2;
        default: return -1;  // equal
    }
}

const char* operator_text(Kind kind) {
    switch (kind) {
        case ADD: return " + ";
        case SUBTRACT: return " - ";
        case MULTIPLY: return " * ";
        case DIVIDE: return " / ";
        case EQUAL: return " = ";
        default: return "?";
    }
}

// The exact decimal digits of a whole double (Python's `int(value)`).
std::string whole_double_text(double value) {
    const bool negative = value < 0;
    double magnitude = std::fabs(value);
    if (magnitude < 9.0e15) {
        const int64_t whole = static_cast<int64_t>(magnitude);
        return (negative && whole != 0 ? "-" : "") + std::to_string(whole);
    }
    int exponent = 0;
    const double mantissa = std::frexp(magnitude, &exponent);  // magnitude = m * 2^e
    uint64_t bits = static_cast<uint64_t>(std::ldexp(mantissa, 53));
    exponent -= 53;
    // Base 10^9 limbs, least significant first.
    std::vector<uint32_t> limbs;
    while (bits) {
        limbs.push_back(static_cast<uint32_t>(bits % 1000000000u));
        bits /= 1000000000u;
    }
    for (; exponent > 0; --exponent) {
        uint64_t carry = 0;
        for (auto& limb : limbs) {
            const uint64_t doubled = static_cast<uint64_t>(limb) * 2 + carry;
            limb = static_cast<uint32_t>(doubled % 1000000000u);
            carry = doubled / 1000000000u;
        }
        if (carry) limbs.push_back(static_cast<uint32_t>(carry));
    }
    std::string out = negative ? "-" : "";
    out += std::to_string(limbs.back());
    char chunk[16];
    for (size_t k = limbs.size() - 1; k-- > 0;) {
        std::snprintf(chunk, sizeof chunk, "%09u", limbs[k]);
        out += chunk;
    }
    return out;
}

}  // namespace

std::string format_float_positional(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    // The shortest digits that read back as `value` (as numpy's unique Dragon4).
    char buffer[64];
    const auto result =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    const std::string scientific(buffer, result.ptr);
    const size_t e = scientific.find('e');
    std::string mantissa = scientific.substr(0, e);
    const int exponent = std::atoi(scientific.c_str() + e + 1);
    const bool negative = mantissa[0] == '-';
    if (negative) mantissa.erase(0, 1);
    std::string digits;
    for (char c : mantissa)
        if (c != '.') digits += c;
    // value = 0.d1 d2 ... dn * 10^(exponent + 1)
    const int point = exponent + 1;
    std::string whole, fraction;
    if (point <= 0) {
        whole = "0";
        fraction = std::string(-point, '0') + digits;
    } else if (point >= static_cast<int>(digits.size())) {
        whole = digits + std::string(point - digits.size(), '0');
    } else {
        whole = digits.substr(0, point);
        fraction = digits.substr(point);
    }
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    std::string out = negative ? "-" : "";
    out += whole;
    if (!fraction.empty()) out += "." + fraction;
    return out;
}

std::string constant_text(const Node& node) {
    if (!node.is_float) return std::to_string(node.int_value);
    const double value = node.float_value;
    // Python's `value % 1 == 0`: finite and whole.
    if (std::isfinite(value) && std::floor(value) == value) return whole_double_text(value);
    return format_float_positional(value);
}

bool Tree::parse(const std::string& text) {
    nodes.clear();
    root = NO_NODE;
    if (text.size() > MAX_TEXT_BYTES) return false;
    try {
        Parser parser(*this, tokenize(text));
        root = parser.parse();
    } catch (const Refused&) {
        nodes.clear();
        root = NO_NODE;
        return false;
    }
    // Every node is held by its parent (the last node it was attached to), so
    // the printer never meets a link mathy_core's get_side would refuse.
    for (size_t k = 0; k < nodes.size(); ++k) {
        const int parent = nodes[k].parent;
        if (parent != NO_NODE && nodes[parent].left != static_cast<int>(k) &&
            nodes[parent].right != static_cast<int>(k)) {
            nodes.clear();
            root = NO_NODE;
            return false;
        }
    }
    if (depth_of(*this, root, 0) > MAX_TREE_DEPTH) {
        nodes.clear();
        root = NO_NODE;
        return false;
    }
    return true;
}

bool Tree::self_parens(int index) const {
    const int parent = nodes[index].parent;
    if (parent == NO_NODE || !nodes[parent].binary()) return false;
    const int own = priority(nodes[index].kind);
    const int theirs = priority(nodes[parent].kind);
    if (theirs > own) return true;
    // mathy_core's get_side raises when the parent does not hold the node (a
    // rewrite of a shared node can leave such a link): the tree does not print.
    if (nodes[parent].left != index && nodes[parent].right != index) throw Unprintable{};
    if (theirs == own) {
        const bool right_side = nodes[parent].left != index;  // get_side: left first
        auto add_or_sub = [](Kind kind) { return kind == ADD || kind == SUBTRACT; };
        if (right_side && add_or_sub(nodes[index].kind) && add_or_sub(nodes[parent].kind))
            return true;
    }
    return false;
}

void Tree::print(int index, std::string& out) const {
    const Node& n = nodes[index];
    switch (n.kind) {
        case CONSTANT:
            if (!n.is_float) {
                // constant_text of a whole number, with no string made.
                char digits[24];
                const auto written = std::to_chars(digits, digits + sizeof digits, n.int_value);
                out.append(digits, written.ptr);
            } else {
                out += constant_text(n);
            }
            return;
        case VARIABLE:
            out += n.name;
            return;
        case NEGATE: {
            const Kind inner = nodes[n.right].kind;
            out += '-';
            if (inner == ADD || inner == SUBTRACT) {
                out += '(';
                print(n.right, out);
                out += ')';
            } else {
                print(n.right, out);
            }
            return;
        }
        case FACTORIAL:
            print(n.right, out);
            out += '!';
            return;
        case SGN:
            out += "sgn(";
            print(n.right, out);
            out += ')';
            return;
        case POWER:
            print(n.left, out);
            out += '^';
            print(n.right, out);
            return;
        case MULTIPLY:
            if (nodes[n.left].kind == CONSTANT &&
                (nodes[n.right].kind == VARIABLE ||
                 (nodes[n.right].kind == POWER && is(nodes[n.right].left, VARIABLE)))) {
                print(n.left, out);
                print(n.right, out);
                return;
            }
            [[fallthrough]];
        default: {
            const bool parens = self_parens(index);
            if (parens) out += '(';
            print(n.left, out);
            out += operator_text(n.kind);
            print(n.right, out);
            if (parens) out += ')';
        }
    }
}

std::string Tree::text() const {
    std::string out;
    out.reserve(4 * nodes.size());
    if (root != NO_NODE) print(root, out);
    return out;
}

Tree::Walk Tree::walk() const {
    // Step for step the walk of mathy_envs/_engine/walk.py: pre-order numbers on the
    // way down each left spine, in-order numbers on the way back up.
    constexpr int64_t EXACT_INT = int64_t(1) << 24;
    Walk out;
    struct Frame {
        int node, position, depth;
    };
    std::vector<Frame> stack;
    int node = root, parent = -1, depth = 0;
    while (true) {
        while (node != NO_NODE) {
            const int position = static_cast<int>(out.preorder.size());
            out.preorder.push_back(-1);
            out.parent_pre.push_back(parent);
            const Node& n = nodes[node];
            double value = 0.0;
            if (n.kind == CONSTANT) {
                if (!n.is_float && n.int_value >= -EXACT_INT && n.int_value <= EXACT_INT) {
                    value = static_cast<double>(n.int_value);
                } else {
                    out.exact = false;
                    // `float(value or 0.0)`: a negative zero is falsy, so +0.0.
                    value = n.number() == 0.0 ? 0.0 : n.number();
                }
            }
            out.values_pre.push_back(value);
            out.type_ids_pre.push_back(type_id(node));
            stack.push_back({node, position, depth});
            parent = position;
            ++depth;
            node = n.left;
        }
        if (depth > out.levels) out.levels = depth;
        if (stack.empty()) break;
        const Frame frame = stack.back();
        stack.pop_back();
        parent = frame.position;
        depth = frame.depth;
        out.preorder[parent] = static_cast<int>(out.order.size());
        out.order.push_back(frame.node);
        out.type_ids.push_back(out.type_ids_pre[parent]);
        out.values.push_back(out.values_pre[parent]);
        node = nodes[frame.node].right;
        ++depth;
    }
    return out;
}

int Tree::type_id(int index) const {
    const Node& n = nodes[index];
    if (n.kind == VARIABLE) {
        const char lower = (n.name >= 'A' && n.name <= 'Z') ? n.name - 'A' + 'a' : n.name;
        return 27 + (lower - 'a');
    }
    return TYPE_IDS[n.kind];
}

}  // namespace mathy_native
