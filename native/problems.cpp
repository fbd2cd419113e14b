// The built-in envs' problem generators (problems.hpp), step for step as the
// Python generators draw and build: every helper below names the function of
// mathy_envs/problems.py or of an env file it reproduces, and draws in the order
// Python evaluates that function's expressions.
#include "problems.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace mathy_native {

namespace {

// A kind of term (problems.py's `TermTemplate`): a variable and an exponent
// (`NO_EXPONENT` for None).
constexpr int64_t NO_EXPONENT = -1;
struct Kind {
    char variable = 0;
    int64_t exponent = NO_EXPONENT;
    bool operator==(const Kind& other) const {
        return variable == other.variable && exponent == other.exponent;
    }
};
using Kinds = std::vector<Kind>;
using Texts = std::vector<std::string>;

// How many times rand_templates draws a taken kind before it raises.
constexpr int MAX_TEMPLATE_FAILURES = 1000;

class Generator {
  public:
    Generator(const ProblemConstants& constants, const MoveLimits& limits, Draws& draws)
        : c_(constants), limits_(limits), d_(draws) {}

    bool failed() const { return failed_ || d_.failed(); }

    bool poly_simplify(const ProblemKnobs& k, DrawnProblem& out);
    bool complex_simplify(const ProblemKnobs& k, DrawnProblem& out);
    bool binomial_distribute(const ProblemKnobs& k, DrawnProblem& out);
    bool haystack_like_terms(const ProblemKnobs& k, DrawnProblem& out);
    bool group_like_terms(const ProblemKnobs& k, DrawnProblem& out);
    bool commute_like_terms(const ProblemKnobs& k, DrawnProblem& out);
    bool simplify_blockers(const ProblemKnobs& k, DrawnProblem& out);
    bool combine_in_place(const ProblemKnobs& k, DrawnProblem& out);

  private:
    // A verdict of a `retry` rejection test.
    enum Verdict { KEEP, REJECT, UNKNOWN };

    // problems.py's `rand_variable`.
    char rand_variable(bool common) {
        const std::string& pool = common ? c_.common_variables : c_.variables;
        const int64_t at = d_.integers(0, static_cast<int64_t>(pool.size()));
        return failed() ? 'x' : pool[static_cast<std::size_t>(at)];
    }
    // problems.py's `rand_coefficient`.
    int64_t rand_coefficient(int64_t low = 1) { return d_.rand_int(low, c_.max_coefficient); }

    // problems.py's `term_text`.
    static std::string term_text(bool has_coefficient, int64_t coefficient, char variable,
                                 int64_t exponent) {
        std::string text = has_coefficient ? std::to_string(coefficient) : std::string();
        if (variable != 0) {
            text += variable;
            if (exponent != NO_EXPONENT) text += "^" + std::to_string(exponent);
        }
        return text;
    }

    // problems.py's `rand_term`.
    std::string rand_term(const Kind& kind, double coefficient_probability = 0.8) {
        const bool has = d_.chance(coefficient_probability);
        const int64_t coefficient = has ? rand_coefficient(2) : 0;
        return term_text(has, coefficient, kind.variable, kind.exponent);
    }

    // problems.py's `rand_templates`.
    Kinds rand_templates(int64_t count, const Kinds& exclude = {}, bool common = false,
                         double exponent_probability = 0.3) {
        Kinds taken = exclude;
        Kinds result;
        int failures = 0;
        while (static_cast<int64_t>(result.size()) < count && !failed()) {
            Kind kind;
            kind.variable = rand_variable(common && failures < 20);
            if (d_.chance(exponent_probability)) kind.exponent = d_.rand_int(2, c_.max_exponent);
            if (std::find(taken.begin(), taken.end(), kind) != taken.end()) {
                if (++failures > MAX_TEMPLATE_FAILURES) failed_ = true;  // Python raises
                continue;
            }
            taken.push_back(kind);
            result.push_back(kind);
        }
        return result;
    }

    // problems.py's `_join`.
    std::string join(const Texts& pieces, const Texts& ops) {
        std::string text = pieces.empty() ? std::string() : pieces[0];
        for (std::size_t at = 1; at < pieces.size(); ++at) {
            const std::string& op =
                ops.size() > 1
                    ? ops[static_cast<std::size_t>(d_.integers(0, static_cast<int64_t>(ops.size())))]
                    : ops[0];
            if (failed()) return text;
            text += " " + op + " " + pieces[at];
        }
        return text;
    }

    // problems.py's `join_terms`.
    std::string join_terms(const Texts& terms, const Texts& ops, double parenthesize_probability) {
        Texts pieces = terms;
        const int64_t count = static_cast<int64_t>(pieces.size());
        if (count >= 3 && d_.chance(parenthesize_probability)) {
            const int64_t length = d_.rand_int(2, count - 1);
            const int64_t start = d_.rand_int(0, count - length);
            if (failed()) return std::string();
            const Texts run(pieces.begin() + start, pieces.begin() + start + length);
            const std::string inner = join(run, ops);
            pieces.erase(pieces.begin() + start, pieces.begin() + start + length);
            pieces.insert(pieces.begin() + start, "(" + inner + ")");
        }
        return join(pieces, ops);
    }

    // `" + ".join(terms)`.
    static std::string sum_of(const Texts& terms) {
        std::string text;
        for (std::size_t at = 0; at < terms.size(); ++at) {
            if (at > 0) text += " + ";
            text += terms[at];
        }
        return text;
    }

    // problems.py's `shuffled`.
    Texts shuffled(const Texts& items) {
        const std::vector<int> order = d_.permutation(static_cast<int>(items.size()));
        Texts result;
        result.reserve(items.size());
        for (int at : order) result.push_back(items[static_cast<std::size_t>(at)]);
        return result;
    }

    // problems.py's `rand_unlike_terms`: the terms (and the kinds into `kinds`).
    Texts rand_unlike_terms(int64_t count, const Kinds& exclude, Kinds* kinds_out = nullptr,
                            double constant_probability = 0.0,
                            double coefficient_probability = 0.8) {
        const bool has_constant = count > 0 && d_.chance(constant_probability);
        const Kinds kinds = rand_templates(count - (has_constant ? 1 : 0), exclude);
        Texts terms;
        for (const Kind& kind : kinds) terms.push_back(rand_term(kind, coefficient_probability));
        if (has_constant) {
            const int64_t at = d_.rand_int(0, static_cast<int64_t>(terms.size()));
            const int64_t constant = rand_coefficient();
            if (!failed())
                terms.insert(terms.begin() + at, std::to_string(constant));
        }
        if (kinds_out != nullptr) *kinds_out = kinds;
        return terms;
    }

    // problems.py's `retry`: `build` until its problem parses with at most
    // MAX_NODES nodes and `rejects` keeps it, at most MAX_ATTEMPTS times.
    template <class Build, class Rejects>
    bool retry(Build build, Rejects rejects, DrawnProblem& out) {
        for (int64_t attempt = 0; attempt < c_.max_attempts; ++attempt) {
            DrawnProblem problem = build();
            if (failed()) return false;
            Parsed parsed;
            // The parse cache's parse: a text it refuses raises in Python.
            if (admissible_text(problem.text, limits_, parsed) != MOVE_KEEPS) return false;
            if (static_cast<int64_t>(parsed.order.size()) > c_.max_nodes) continue;
            const Verdict verdict = rejects(problem.text, parsed);
            if (verdict == UNKNOWN) return false;
            if (verdict == KEEP) {
                out = std::move(problem);
                return true;
            }
        }
        return false;  // Python raises: no acceptable problem
    }

    // terms.py's `simplified_entry` as a rejection test.
    static Verdict rejects_simplified(const Parsed& parsed) {
        const Tree::Answer simplified = parsed.tree.simplified();
        if (simplified == Tree::UNKNOWN) return UNKNOWN;
        return simplified == Tree::YES ? REJECT : KEEP;
    }

    // A count knob in [low, high] (false: the Python generator takes it).
    static bool count_in(const ProblemKnobs& k, std::size_t at, int64_t low, int64_t high) {
        return at < k.counts.size() && k.counts[at] >= low && k.counts[at] <= high;
    }

    // The `(low, high)` counts most families draw their size from, drawn.
    bool drawn_size(const ProblemKnobs& k, int64_t& size) {
        if (!count_in(k, 0, -MAX_DRAWN_TERMS, MAX_DRAWN_TERMS) ||
            !count_in(k, 1, -MAX_DRAWN_TERMS, MAX_DRAWN_TERMS))
            return false;
        size = d_.rand_int(k.counts[0], k.counts[1]);
        return !failed();
    }

    const ProblemConstants& c_;
    const MoveLimits& limits_;
    Draws& d_;
    bool failed_ = false;
};

// poly_simplify.py's `poly_simplify_problem` and `simplify_terms`.
bool Generator::poly_simplify(const ProblemKnobs& k, DrawnProblem& out) {
    int64_t num_terms = 0;
    if (k.chances.size() != 3 || k.ops.empty() || !drawn_size(k, num_terms)) return false;
    if (num_terms < 2) return false;  // simplify_terms raises
    const double noise = k.chances[0], shuffle = k.chances[1], parenthesize = k.chances[2];
    auto build = [&]() {
        const int64_t groups = d_.rand_int(1, num_terms / 2);
        const Kinds templates = rand_templates(groups, {}, true);
        Kinds members;
        for (const Kind& kind : templates) members.insert(members.end(), 2, kind);
        Kinds noise_kinds;
        const int64_t extra = num_terms - static_cast<int64_t>(members.size());
        for (int64_t each = 0; each < extra && !failed(); ++each) {
            if (d_.chance(noise)) {
                Kinds exclude = templates;
                exclude.insert(exclude.end(), noise_kinds.begin(), noise_kinds.end());
                const Kinds more = rand_templates(1, exclude);
                noise_kinds.insert(noise_kinds.end(), more.begin(), more.end());
            } else {
                const int64_t at = d_.integers(0, static_cast<int64_t>(templates.size()));
                if (!failed()) members.push_back(templates[static_cast<std::size_t>(at)]);
            }
        }
        members.insert(members.end(), noise_kinds.begin(), noise_kinds.end());
        Texts terms;
        for (const Kind& kind : members) terms.push_back(rand_term(kind));
        if (d_.chance(shuffle)) terms = shuffled(terms);
        return DrawnProblem{join_terms(terms, k.ops, parenthesize), num_terms};
    };
    return retry(build, [](const std::string&, const Parsed& p) { return rejects_simplified(p); },
                 out);
}

// complex_simplify.py's `product_factors`.
std::vector<int> product_factors(const Tree& tree) {
    std::vector<int> factors;
    int node = tree.root;
    Term term;
    while (node != NO_NODE && tree.nodes[node].kind == MULTIPLY && !tree.term(node, term)) {
        factors.push_back(tree.nodes[node].right);
        node = tree.nodes[node].left;
    }
    factors.push_back(node);
    std::reverse(factors.begin(), factors.end());
    return factors;
}

// complex_simplify.py's `strands_a_power`.
bool strands_a_power(const Tree& tree) {
    std::vector<Term> terms;
    for (int factor : product_factors(tree)) {
        Term term;
        if (!tree.term(factor, term) || term.variable == 0) return false;
        terms.push_back(term);
    }
    const std::size_t count = terms.size();
    auto comes_loose = [&](std::size_t index) {
        if (!terms[index].has_coefficient) return false;
        return index >= 2 || (index == 1 && terms[0].has_coefficient);
    };
    for (std::size_t index = 0; index < count; ++index) {
        const Term& term = terms[index];
        if (index == 0 || term.has_coefficient || !term.has_exponent) continue;
        bool shared = false;
        for (std::size_t other = 0; other < count; ++other)
            if (other != index && terms[other].variable == term.variable) shared = true;
        if (!shared) continue;  // nothing to join
        bool later_coefficient = false;
        for (std::size_t later = index + 1; later < count; ++later)
            if (terms[later].has_coefficient) later_coefficient = true;
        if (later_coefficient) continue;  // a coefficient term can carry it left
        bool all_alike = true;
        for (std::size_t earlier = 0; earlier < index; ++earlier)
            if (terms[earlier].variable != term.variable) all_alike = false;
        if (all_alike) continue;  // the factors before it collapse into one
        bool loose = false;
        for (std::size_t earlier = 0; earlier < index; ++earlier)
            if (comes_loose(earlier)) loose = true;
        if (loose) continue;  // a loose constant can walk up to it
        return true;
    }
    return false;
}

// complex_simplify.py's `_has_bare_power`.
bool has_bare_power(const std::string& text) {
    const std::string separator = " * ";
    std::size_t start = text.find(separator);
    while (start != std::string::npos) {
        start += separator.size();
        const std::size_t end = text.find(separator, start);
        const std::string factor =
            text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!factor.empty() && std::isalpha(static_cast<unsigned char>(factor[0])) &&
            factor.find('^') != std::string::npos)
            return true;
        start = end;
    }
    return false;
}

// complex_simplify.py's `complex_simplify_problem` and `complex_product`.
bool Generator::complex_simplify(const ProblemKnobs& k, DrawnProblem& out) {
    int64_t num_factors = 0;
    if (!drawn_size(k, num_factors)) return false;
    if (num_factors < 2) return false;  // complex_product raises
    auto build = [&]() {
        const Kinds pool = rand_templates(std::max<int64_t>(2, num_factors - 1), {}, false, 0.4);
        std::string text;
        for (int64_t each = 0; each < num_factors && !failed(); ++each) {
            const int64_t at = d_.integers(0, static_cast<int64_t>(pool.size()));
            if (failed()) break;
            if (each > 0) text += " * ";
            text += rand_term(pool[static_cast<std::size_t>(at)], 0.7);
        }
        return DrawnProblem{text, num_factors};
    };
    auto rejects = [](const std::string& text, const Parsed& parsed) {
        const Verdict simplified = rejects_simplified(parsed);
        if (simplified != KEEP) return simplified;
        return has_bare_power(text) && strands_a_power(parsed.tree) ? REJECT : KEEP;
    };
    return retry(build, rejects, out);
}

// binomial_distribute.py's `binomial_distribute_problem`, `_binomial_terms`,
// `binomial_times_binomial` and `binomial_times_monomial`.
bool Generator::binomial_distribute(const ProblemKnobs& k, DrawnProblem& out) {
    if (k.chances.size() != 3 || !count_in(k, 0, 0, 1)) return false;
    const double coefficient_p = k.chances[0], power_p = k.chances[1], second_p = k.chances[2];
    const bool common = k.counts[0] == 1;
    auto binomial_terms = [&](char variable, std::string& head, std::string& tail) {
        const bool powered = d_.chance(power_p);
        const int64_t exponent = powered ? d_.rand_int(2, 3) : NO_EXPONENT;
        const bool has = d_.chance(coefficient_p);
        const int64_t coefficient = has ? rand_coefficient(2) : 0;
        head = term_text(has, coefficient, variable, exponent);
        if (d_.chance(second_p)) {
            const char other = rand_variable(false);
            const int64_t second = rand_coefficient(2);
            tail = term_text(true, second, other != variable ? other : 0, NO_EXPONENT);
        } else {
            tail = std::to_string(rand_coefficient());
        }
    };
    auto rejects = [](const std::string&, const Parsed& p) { return rejects_simplified(p); };
    if (d_.chance(0.5)) {
        auto build = [&]() {
            const char variable = rand_variable(common);
            std::string a, b, c, d;
            binomial_terms(variable, a, b);
            binomial_terms(variable, c, d);
            return DrawnProblem{"(" + a + " + " + b + ")(" + c + " + " + d + ")", 4};
        };
        return retry(build, rejects, out);
    }
    auto build = [&]() {
        const char variable = rand_variable(common);
        std::string a, b;
        binomial_terms(variable, a, b);
        const bool powered = d_.chance(power_p);
        const int64_t exponent = powered ? d_.rand_int(2, 3) : NO_EXPONENT;
        const bool has = d_.chance(coefficient_p);
        const int64_t coefficient = has ? rand_coefficient(2) : 0;
        const std::string monomial = term_text(has, coefficient, variable, exponent);
        return DrawnProblem{"(" + a + " + " + b + ") * " + monomial, 3};
    };
    return retry(build, rejects, out);
}

// poly_haystack_like_terms.py's `poly_haystack_like_terms_problem` and
// `haystack_like_terms`.
bool Generator::haystack_like_terms(const ProblemKnobs& k, DrawnProblem& out) {
    int64_t num_terms = 0;
    if (!drawn_size(k, num_terms)) return false;
    if (num_terms < 2) return false;  // haystack_like_terms raises
    auto build = [&]() {
        const Kinds kinds = rand_templates(num_terms - 1);
        Texts terms;
        for (const Kind& kind : kinds) terms.push_back(rand_term(kind, 1.0));
        const int64_t at = d_.integers(0, static_cast<int64_t>(kinds.size()));
        if (failed()) return DrawnProblem{};
        terms.push_back(rand_term(kinds[static_cast<std::size_t>(at)], 1.0));
        return DrawnProblem{sum_of(shuffled(terms)), 2};
    };
    return retry(build, [](const std::string&, const Parsed&) { return KEEP; }, out);
}

// poly_group_like_terms.py's `poly_group_like_terms_problem` and
// `group_like_terms`.
bool Generator::group_like_terms(const ProblemKnobs& k, DrawnProblem& out) {
    int64_t num_terms = 0;
    if (!drawn_size(k, num_terms)) return false;
    if (num_terms < 3) return false;  // group_like_terms raises
    auto build = [&]() {
        const int64_t groups = d_.rand_int(1, std::max<int64_t>(1, num_terms / 3));
        const Kinds kinds = rand_templates(groups, {}, true);
        Kinds members;
        for (const Kind& kind : kinds) members.insert(members.end(), 2, kind);
        const int64_t extra = num_terms - static_cast<int64_t>(members.size());
        for (int64_t each = 0; each < extra && !failed(); ++each) {
            if (d_.chance(0.5)) {
                const int64_t at = d_.integers(0, static_cast<int64_t>(kinds.size()));
                if (!failed()) members.push_back(kinds[static_cast<std::size_t>(at)]);
            } else {
                Kinds exclude = kinds;
                exclude.insert(exclude.end(), members.begin(), members.end());
                const Kinds more = rand_templates(1, exclude);
                members.insert(members.end(), more.begin(), more.end());
            }
        }
        Texts terms;
        for (const Kind& kind : members) terms.push_back(rand_term(kind));
        return DrawnProblem{sum_of(shuffled(terms)), num_terms};
    };
    auto rejects = [](const std::string&, const Parsed& parsed) {
        const Tree::Answer grouped = parsed.tree.like_terms_grouped();
        if (grouped == Tree::UNKNOWN) return UNKNOWN;
        return grouped == Tree::YES ? REJECT : KEEP;
    };
    return retry(build, rejects, out);
}

// terms.py's `factor_out_entry`: distributive factor out applies somewhere.
bool factor_out_applies(const Parsed& parsed) {
    for (int node : parsed.order)
        if (parsed.tree.can_apply(DISTRIBUTIVE_FACTOR_OUT, node, false)) return true;
    return false;
}

// poly_commute_like_terms.py's `poly_commute_like_terms_problem` and
// `commute_like_terms`.
bool Generator::commute_like_terms(const ProblemKnobs& k, DrawnProblem& out) {
    int64_t num_blockers = 0;
    if (!count_in(k, 2, 0, MAX_DRAWN_TERMS) || !drawn_size(k, num_blockers)) return false;
    if (num_blockers < 1) return false;  // commute_like_terms raises
    const int64_t max_noise = k.counts[2];
    auto build = [&]() {
        const Kinds like = rand_templates(1, {}, true);
        const int64_t left = d_.rand_int(0, max_noise);
        const int64_t right = d_.rand_int(0, max_noise);
        if (failed() || like.empty()) return DrawnProblem{};
        const Texts others = rand_unlike_terms(left + num_blockers + right, like);
        const std::string first = rand_term(like[0]);
        const std::string second = rand_term(like[0]);
        if (failed()) return DrawnProblem{};
        Texts terms(others.begin(), others.begin() + left);
        terms.push_back(first);
        terms.insert(terms.end(), others.begin() + left, others.begin() + left + num_blockers);
        terms.push_back(second);
        terms.insert(terms.end(), others.begin() + left + num_blockers, others.end());
        return DrawnProblem{sum_of(terms), num_blockers + 1};
    };
    auto rejects = [](const std::string&, const Parsed& parsed) {
        return factor_out_applies(parsed) ? REJECT : KEEP;
    };
    return retry(build, rejects, out);
}

// poly_simplify_blockers.py's `poly_simplify_blockers_problem`,
// `commute_blockers` and `_parenthesized`.
bool Generator::simplify_blockers(const ProblemKnobs& k, DrawnProblem& out) {
    int64_t num_blockers = 0;
    if (!drawn_size(k, num_blockers)) return false;
    if (num_blockers < 1) return false;  // commute_blockers raises
    auto build = [&]() {
        const Kinds like = rand_templates(1, {}, true);
        if (failed() || like.empty()) return DrawnProblem{};
        const std::string first = rand_term(like[0]);
        const std::string second = rand_term(like[0]);
        Kinds kinds;
        const Texts blockers = rand_unlike_terms(num_blockers, like, &kinds);
        const std::string inner = sum_of(blockers);
        const std::string middle = blockers.size() > 1 ? "(" + inner + ")" : inner;
        if (d_.chance(0.5))
            return DrawnProblem{first + " + " + middle + " + " + second, num_blockers + 2};
        Kinds exclude = like;
        exclude.insert(exclude.end(), kinds.begin(), kinds.end());
        const Texts frame = rand_unlike_terms(2, exclude);
        if (failed() || frame.size() != 2) return DrawnProblem{};
        return DrawnProblem{
            frame[0] + " + " + first + " + " + middle + " + " + second + " + " + frame[1],
            num_blockers + 4};
    };
    return retry(build, [](const std::string&, const Parsed& p) { return rejects_simplified(p); },
                 out);
}

// poly_combine_in_place.py's `poly_combine_in_place_problem`,
// `combine_in_place` and `combines_in_two_moves`.
bool Generator::combine_in_place(const ProblemKnobs& k, DrawnProblem& out) {
    int64_t num_terms = 0;
    if (k.chances.size() != 1 || !drawn_size(k, num_terms)) return false;
    if (num_terms < 3) return false;  // combine_in_place raises
    const double parenthesize = k.chances[0];
    auto build = [&]() {
        const Kinds like = rand_templates(1);
        if (failed() || like.empty()) return DrawnProblem{};
        Texts terms = rand_unlike_terms(num_terms - 2, like, nullptr, 0.3);
        const std::string first = rand_term(like[0]);
        const std::string second = rand_term(like[0]);
        const int64_t at = d_.rand_int(0, static_cast<int64_t>(terms.size()));
        if (failed()) return DrawnProblem{};
        terms.insert(terms.begin() + at, first + " + " + second);
        return DrawnProblem{join_terms(terms, {"+"}, parenthesize), num_terms};
    };
    const MoveLimits& limits = limits_;
    auto rejects = [&limits](const std::string&, const Parsed& start) {
        const Verdict simplified = rejects_simplified(start);
        if (simplified != KEEP) return simplified;
        // combines_in_two_moves: factor out somewhere, then simplify constants
        // somewhere, to a simplified expression (each text parsed as
        // rewritten_entry parses it).
        for (std::size_t column = 0; column < start.order.size(); ++column) {
            if (!start.tree.can_apply(DISTRIBUTIVE_FACTOR_OUT, start.order[column], false))
                continue;
            Tree rewritten;
            std::string text;
            Parsed factored;
            if (!rewrite(start, DISTRIBUTIVE_FACTOR_OUT, static_cast<int>(column), rewritten,
                         text, nullptr) ||
                admissible_text(text, limits, factored) != MOVE_KEEPS)
                return UNKNOWN;
            for (std::size_t second = 0; second < factored.order.size(); ++second) {
                if (!factored.tree.can_apply(CONSTANTS_SIMPLIFY, factored.order[second], false))
                    continue;
                Parsed added;
                if (!rewrite(factored, CONSTANTS_SIMPLIFY, static_cast<int>(second), rewritten,
                             text, nullptr) ||
                    admissible_text(text, limits, added) != MOVE_KEEPS)
                    return UNKNOWN;
                const Tree::Answer done = added.tree.simplified();
                if (done == Tree::UNKNOWN) return UNKNOWN;
                if (done == Tree::YES) return KEEP;
            }
        }
        return REJECT;
    };
    return retry(build, rejects, out);
}

// The constants this core draws with: letters for variables, small numbers.
bool constants_in_range(const ProblemConstants& c) {
    auto letters = [](const std::string& pool) {
        if (pool.empty() || pool.size() > 64) return false;
        for (char each : pool)
            if (!std::isalpha(static_cast<unsigned char>(each))) return false;
        return true;
    };
    return letters(c.variables) && letters(c.common_variables) && c.max_coefficient >= 2 &&
           c.max_coefficient <= 1'000'000 && c.max_exponent >= 2 && c.max_exponent <= 1'000 &&
           c.max_attempts >= 0 && c.max_attempts <= 10'000 && c.max_nodes >= 0;
}

}  // namespace

bool draw_problem(int family, const ProblemKnobs& knobs, const ProblemConstants& constants,
                  const MoveLimits& limits, Draws& draws, DrawnProblem& out) {
    if (!constants_in_range(constants)) return false;
    for (const std::string& op : knobs.ops)
        if (op.size() > MAX_OP_LENGTH) return false;
    Generator generator(constants, limits, draws);
    bool drawn = false;
    switch (family) {
        case POLY_SIMPLIFY: drawn = generator.poly_simplify(knobs, out); break;
        case COMPLEX_SIMPLIFY: drawn = generator.complex_simplify(knobs, out); break;
        case BINOMIAL_DISTRIBUTE: drawn = generator.binomial_distribute(knobs, out); break;
        case HAYSTACK_LIKE_TERMS: drawn = generator.haystack_like_terms(knobs, out); break;
        case GROUP_LIKE_TERMS: drawn = generator.group_like_terms(knobs, out); break;
        case COMMUTE_LIKE_TERMS: drawn = generator.commute_like_terms(knobs, out); break;
        case SIMPLIFY_BLOCKERS: drawn = generator.simplify_blockers(knobs, out); break;
        case COMBINE_IN_PLACE: drawn = generator.combine_in_place(knobs, out); break;
        default: return false;
    }
    return drawn && !generator.failed();
}

}  // namespace mathy_native
