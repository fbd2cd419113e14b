// The batch kernel (mathy_envs._engine.kernel's `BatchKernel`): a StepBatch's
// steps, every slot of them, in one call. Each slot the kernel holds ("live")
// keeps its episode's expression (text and parse), its moves left, its visits
// per text and the native steps taken since the batch last read them; a step
// of the live slots rewrites, parses, admits, tells the goal, writes the flat
// row and the mask, scores (from the reward scheme's scoring as data: the
// `SCORING_CHECKS` in the scheme's order), writes the row's head and the
// offered moves, with the GIL released and, asked for, on several threads.
// What it leaves to the library's Python path it says per slot (`step`'s
// status), having changed nothing of that slot.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "flat.hpp"

namespace py = pybind11;

namespace mathy_native {
namespace {

constexpr int CORE_RULES = CORE_RULE_COUNT;
constexpr int MAX_THREADS = 256;
// The slots a thread of a batch step takes at a time.
constexpr py::ssize_t SLOTS_PER_TAKE = 4;
constexpr long long MAX_VISIT_COUNT = 1LL << 62;

[[noreturn]] void refuse(const char* who, const std::string& what) {
    throw py::value_error(std::string("Batch.") + who + ": " + what);
}

// The checks of a reward scheme's scoring (mathy_envs.rewards' `_DATA_CHECKS`),
// by name: a `Scoring.order` is a sequence of their indexes.
enum Check : int { CHECK_OVERSIZE, CHECK_OWN_VERDICT, CHECK_OUT_OF_MOVES, CHECK_REVISIT,
                   CHECK_RULE_USED, CHECK_COUNT };
constexpr const char* CHECK_NAMES[] = {"oversize", "own_verdict", "out_of_moves", "revisit",
                                       "rule_used"};
static_assert(sizeof(CHECK_NAMES) / sizeof(CHECK_NAMES[0]) == CHECK_COUNT, "one name per check");

// What a step leaves to the library, per slot (`Batch.step`'s status).
enum Status : int8_t {
    STEPPED = 0,      // taken: outcome, rows, head and offered moves written
    LEFT = 1,         // left to the Python path: nothing of the slot changed
    OFFER_LEFT = 2,   // taken, but the offered moves are left to the Python path
    OVER = 3,         // the episode ended: the batch starts a new one
};

struct Scoring {
    std::vector<double> rule_rewards;
    std::vector<int> order;
    bool penalize_revisits = false;
    double revisit_penalty = 0.0;
    long max_visits = 0;
    double lose = 0.0;
    double timestep = 0.0;
    bool set = false;
};

struct Slot {
    Slot() = default;
    Slot(const Slot&) = delete;  // `where` views `visits`' texts
    Slot& operator=(const Slot&) = delete;
    Slot(Slot&&) = default;  // a deque's elements stay where they are when it moves
    Slot& operator=(Slot&&) = default;

    bool live = false;
    Parsed parse;
    std::string text, first, first_key;
    long left = 0;
    // The visits per text, in the order first seen (a deque: its elements never
    // move), and each text's place, keyed by a view of the text held there.
    std::deque<std::pair<std::string, long>> visits;
    std::unordered_map<std::string_view, std::size_t> where;
    float hash[2] = {0.0f, 0.0f};
    std::vector<float> times;   // the time feature, by moves left
    std::vector<double> wins;   // the win reward, by moves left
    std::vector<std::tuple<std::string, int, int>> taken;
    MoveResults moves;  // the kept results of the expression's valid moves

    long visits_of(std::string_view text) const {
        const auto found = where.find(text);
        return found == where.end() ? 0 : visits[found->second].second;
    }

    // Count `visits` visits of `text`.
    void count(const std::string& text, long count) {
        const auto found = where.find(std::string_view(text));
        if (found != where.end()) {
            visits[found->second].second = count;
            return;
        }
        visits.emplace_back(text, count);
        where.emplace(std::string_view(visits.back().first), visits.size() - 1);
    }
};

class Batch {
  public:
    Batch(py::array_t<float, py::array::c_style> observations,
          py::array_t<int8_t, py::array::c_style> masks,
          py::array_t<int8_t, py::array::c_style> offered,
          py::array_t<double, py::array::c_style> rewards,
          py::array_t<bool, py::array::c_style> terminated,
          py::array_t<bool, py::array::c_style> valid,
          py::array_t<bool, py::array::c_style> oversize,
          py::array_t<int64_t, py::array::c_style> left, int length, bool revisits,
          bool mask_revisits, std::vector<float> revisit_values,
          const std::vector<int64_t>& move_limits)
        : observations_(observations), masks_(masks), offered_(offered), rewards_(rewards),
          terminated_(terminated), valid_(valid), oversize_(oversize), left_(left),
          length_(length), revisits_(revisits), mask_revisits_(mask_revisits),
          revisit_values_(std::move(revisit_values)) {
        const char* who = "__init__";
        if (length < 1) refuse(who, "length must be at least 1, got " + std::to_string(length));
        if (observations.ndim() != 2 || masks.ndim() != 2 || offered.ndim() != 2)
            refuse(who, "observations, masks and offered must be 2-d");
        const py::ssize_t slots = observations.shape(0);
        const py::ssize_t cells = static_cast<py::ssize_t>(CORE_RULES) * length;
        head_ = revisits ? 4 : 3;
        width_ = head_ + 2 * static_cast<py::ssize_t>(length) + cells;
        if (observations.shape(1) != width_)
            refuse(who, "observations must have " + std::to_string(width_) +
                            " columns (the flat layout of " + std::to_string(length) +
                            " nodes), got " + std::to_string(observations.shape(1)));
        for (const auto* mask : {&masks, &offered})
            if (mask->shape(0) != slots || mask->shape(1) != cells)
                refuse(who, "masks and offered must be (" + std::to_string(slots) + ", " +
                                std::to_string(cells) + ")");
        for (const py::array* column :
             {static_cast<const py::array*>(&rewards), static_cast<const py::array*>(&terminated),
              static_cast<const py::array*>(&valid), static_cast<const py::array*>(&oversize),
              static_cast<const py::array*>(&left)})
            if (column->ndim() != 1 || column->shape(0) != slots)
                refuse(who, "rewards, terminated, valid, oversize and left must hold " +
                                std::to_string(slots) + " values each");
        for (const py::array* array :
             {static_cast<const py::array*>(&observations), static_cast<const py::array*>(&masks),
              static_cast<const py::array*>(&offered), static_cast<const py::array*>(&rewards),
              static_cast<const py::array*>(&terminated), static_cast<const py::array*>(&valid),
              static_cast<const py::array*>(&oversize), static_cast<const py::array*>(&left)})
            if (!array->writeable()) refuse(who, "every array must be writable");
        // No two arrays share a byte, but for the valid and offered masks being
        // one array without mask_revisits.
        const auto range = [](const py::array& array) {
            const auto* start = static_cast<const char*>(array.data());
            return std::make_pair(start, start + array.nbytes());
        };
        const std::vector<const py::array*> all = arrays();
        for (std::size_t i = 0; i < all.size(); ++i)
            for (std::size_t j = i + 1; j < all.size(); ++j) {
                const auto a = range(*all[i]), b = range(*all[j]);
                const bool same = a == b && i == 1 && j == 2 && !mask_revisits;
                if (!same && a.first < b.second && b.first < a.second)
                    refuse(who, mask_revisits && i == 1 && j == 2
                                    ? "with mask_revisits, offered must be an array of its own"
                                    : "the arrays must not overlap");
            }
        if (revisit_values_.empty()) refuse(who, "revisit_values must not be empty");
        std::string why;
        if (!mathy_native::move_limits(move_limits, moves_, why)) refuse(who, why);
        slots_.resize(static_cast<std::size_t>(slots));
    }

    std::size_t size() const { return slots_.size(); }

    void set_scoring(std::vector<double> rule_rewards, std::vector<int> order,
                     bool penalize_revisits, double revisit_penalty, long max_visits,
                     double lose, double timestep) {
        const auto held = hold("set_scoring");
        for (int check : order)
            if (check < 0 || check >= CHECK_COUNT)
                refuse("set_scoring", "order holds " + std::to_string(check) +
                                          ", not a check index (0 to " +
                                          std::to_string(CHECK_COUNT - 1) + ")");
        scoring_.rule_rewards = std::move(rule_rewards);
        scoring_.order = std::move(order);
        scoring_.penalize_revisits = penalize_revisits;
        scoring_.revisit_penalty = revisit_penalty;
        scoring_.max_visits = max_visits;
        scoring_.lose = lose;
        scoring_.timestep = timestep;
        scoring_.set = true;
    }

    // The lose signal of the steps of goal GOAL_ACTED_AT_LIKE_TERM (`env`'s
    // own, as data): `table[largest * L + distance]` for a move at `distance`
    // nodes from the nearest term with a like term, `largest` being the
    // largest term position, and `plain` where the sum has no such term.
    void set_losses(std::vector<double> table, double plain) {
        const auto held = hold("set_losses");
        const auto length = static_cast<std::size_t>(length_);
        if (table.size() != length * length)
            refuse("set_losses", "table must hold L * L = " + std::to_string(length * length) +
                                     " values, got " + std::to_string(table.size()));
        losses_ = std::move(table);
        plain_loss_ = plain;
    }

    void load(py::ssize_t slot, const Parsed& parse, std::string text, long left,
              const py::dict& visits, std::string first, std::string first_key, float hash0,
              float hash1, std::vector<float> times, std::vector<double> wins) {
        const auto held = hold("load");
        const char* who = "load";
        Slot& s = at(who, slot);
        if (left < 0) refuse(who, "left must not be negative, got " + std::to_string(left));
        const auto needed = static_cast<std::size_t>(left) + 1;
        if (times.size() != needed || wins.size() != needed)
            refuse(who, "times and wins must hold left + 1 = " + std::to_string(needed) +
                            " values, got " + std::to_string(times.size()) + " and " +
                            std::to_string(wins.size()));
        Slot made;
        // A snapshot of the items, held for the loop: a count's own conversion
        // (`__index__`) may change the dict.
        const py::list items = py::reinterpret_steal<py::list>(PyDict_Items(visits.ptr()));
        if (!items) throw py::error_already_set();
        for (const auto& entry : items) {
            const py::tuple pair = py::reinterpret_borrow<py::tuple>(entry);
            Py_ssize_t size = 0;
            const char* data = PyUnicode_Check(pair[0].ptr())
                                   ? PyUnicode_AsUTF8AndSize(pair[0].ptr(), &size)
                                   : nullptr;
            if (data == nullptr) {
                PyErr_Clear();
                refuse(who, "visits must map texts (str, with a UTF-8 form) to visit counts");
            }
            std::string key(data, static_cast<std::size_t>(size));
            long long count = 0;
            try {
                count = pair[1].cast<long long>();
            } catch (const py::cast_error&) {
                PyErr_Clear();
                refuse(who, "visits must map texts (str) to visit counts (int)");
            }
            if (count < 0 || count >= MAX_VISIT_COUNT)
                refuse(who, "a visit count must be in [0, 2**62), got " + std::to_string(count));
            made.count(key, static_cast<long>(count));
        }
        made.parse = parse;
        made.text = std::move(text);
        made.first = std::move(first);
        made.first_key = std::move(first_key);
        made.left = left;
        made.hash[0] = hash0;
        made.hash[1] = hash1;
        made.times = std::move(times);
        made.wins = std::move(wins);
        made.live = true;
        s = std::move(made);
    }

    // Write slot `slot`'s row (past its head, which the caller writes) and mask
    // from its parse, with the goal's verdict; false, having written nothing,
    // where the Python path writes them.
    std::optional<bool> write(py::ssize_t slot, int goal, bool preferred, int64_t safe_constant,
                              int safe_size, int max_type_id) {
        const auto held = hold("write");
        Slot& s = at("write", slot);
        check_goal("write", goal);
        check_limits("write", safe_constant, safe_size, max_type_id);
        if (!s.live) return std::nullopt;
        const FlatLimits limits = limits_of(preferred, safe_constant, safe_size, max_type_id);
        return write_flat(s.parse, limits, static_cast<Goal>(goal), row(slot) + head_ - 3,
                          mask(slot), &s.text, &s.moves);
    }

    // Write slot `slot`'s offered moves from its visits; false where the Python
    // path writes them (no live slot, a rewrite left to mathy_core).
    bool offer(py::ssize_t slot) {
        const auto held = hold("offer");
        Slot& s = at("offer", slot);
        if (!mask_revisits_) refuse("offer", "the batch was made without mask_revisits");
        return s.live && offer_slot(slot, s);
    }

    void drop(py::ssize_t slot) {
        const auto held = hold("drop");
        at("drop", slot) = Slot();
    }

    bool live(py::ssize_t slot) {
        const auto held = hold("live");
        return at("live", slot).live;
    }

    // `(text, left, visits, taken)` of a live slot, the steps taken since the
    // last pull handed over (and forgotten); None for a slot the kernel does
    // not hold.
    py::object pull(py::ssize_t slot) {
        const auto held = hold("pull");
        Slot& s = at("pull", slot);
        if (!s.live) return py::none();
        py::dict visits;
        for (const auto& entry : s.visits) visits[py::str(entry.first)] = entry.second;
        py::list taken;
        for (const auto& step : s.taken)
            taken.append(py::make_tuple(std::get<0>(step),
                                        py::make_tuple(std::get<1>(step), std::get<2>(step))));
        s.taken.clear();
        return py::make_tuple(s.text, s.left, visits, taken);
    }

    py::array_t<int8_t> step(py::array_t<int64_t, py::array::c_style> actions,
                             py::array_t<bool, py::array::c_style> over, int goal,
                             bool preferred, int64_t safe_constant, int safe_size,
                             int max_type_id, int num_threads) {
        const auto held = hold("step");
        const char* who = "step";
        const py::ssize_t slots = static_cast<py::ssize_t>(slots_.size());
        if (actions.ndim() != 1 || actions.shape(0) != slots || over.ndim() != 1 ||
            over.shape(0) != slots)
            refuse(who, "actions and over must hold " + std::to_string(slots) + " values each");
        check_goal(who, goal);
        if (!scoring_.set) refuse(who, "set_scoring first");
        if (num_threads < 1 || num_threads > MAX_THREADS)
            refuse(who, "num_threads must be in [1, " + std::to_string(MAX_THREADS) + "], got " +
                            std::to_string(num_threads));
        check_limits(who, safe_constant, safe_size, max_type_id);
        for (const py::array* array : arrays())
            if (!array->writeable()) refuse(who, "every array must be writable");
        const FlatLimits limits = limits_of(preferred, safe_constant, safe_size, max_type_id);
        py::array_t<int8_t> status(slots);
        int8_t* out = status.mutable_data();
        const int64_t* chosen = actions.data();
        const bool* ended = over.data();
        {
            py::gil_scoped_release released;
            const auto run = [&](py::ssize_t from, py::ssize_t to) {
                for (py::ssize_t slot = from; slot < to; ++slot)
                    out[slot] = ended[slot] ? OVER
                                            : step_slot(slot, chosen[slot], limits,
                                                        static_cast<Goal>(goal));
            };
            const py::ssize_t threads = std::min<py::ssize_t>(num_threads, slots);
            if (threads <= 1) {
                run(0, slots);
            } else {
                // The calling thread and `threads - 1` more take the slots a few
                // at a time, each the next ones no thread took: slots differ in
                // cost (a reset is nearly free, an expression whose moves are
                // checked is not), so no thread waits on a share of slow ones.
                std::atomic<py::ssize_t> next{0};
                const auto work = [&] {
                    for (;;) {
                        const py::ssize_t from = next.fetch_add(SLOTS_PER_TAKE);
                        if (from >= slots) return;
                        run(from, std::min(slots, from + SLOTS_PER_TAKE));
                    }
                };
                std::vector<std::thread> pool;
                pool.reserve(static_cast<std::size_t>(threads - 1));
                std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
                for (py::ssize_t t = 1; t < threads; ++t) {
                    try {
                        pool.emplace_back([&, t] {
                            try {
                                work();
                            } catch (...) {
                                errors[static_cast<std::size_t>(t)] = std::current_exception();
                            }
                        });
                    } catch (const std::system_error&) {
                        break;  // no more threads: those running (and the caller) take the rest
                    }
                }
                try {
                    work();
                } catch (...) {
                    errors[0] = std::current_exception();
                }
                for (auto& thread : pool) thread.join();
                for (const auto& error : errors)
                    if (error) std::rethrow_exception(error);
            }
        }
        return status;
    }

  private:
    // The batch for this call: another thread's call in progress is an error
    // (the GIL may be released while one runs; StepBatch calls under its lock).
    std::unique_lock<std::mutex> hold(const char* who) {
        std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock()) refuse(who, "another thread is using this batch");
        return lock;
    }

    Slot& at(const char* who, py::ssize_t slot) {
        if (slot < 0 || slot >= static_cast<py::ssize_t>(slots_.size()))
            refuse(who, "slot " + std::to_string(slot) + " is out of range (0 to " +
                            std::to_string(static_cast<py::ssize_t>(slots_.size()) - 1) + ")");
        return slots_[static_cast<std::size_t>(slot)];
    }

    static void check_limits(const char* who, int64_t safe_constant, int safe_size,
                             int max_type_id) {
        if (safe_constant < 0 || safe_size < 0 || max_type_id < 1)
            refuse(who, "the limits must not be negative (max_type_id at least 1)");
    }

    std::vector<const py::array*> arrays() const {
        return {&observations_, &masks_, &offered_, &rewards_, &terminated_, &valid_,
                &oversize_, &left_};
    }

    static void check_goal(const char* who, int goal) {
        if (goal < 0 || goal >= GOAL_COUNT)
            refuse(who, "goal must be a goal index (0 to " + std::to_string(GOAL_COUNT - 1) +
                            "), got " + std::to_string(goal));
    }

    FlatLimits limits_of(bool preferred, int64_t safe_constant, int safe_size,
                         int max_type_id) const {
        FlatLimits limits;
        limits.preferred = preferred;
        limits.safe_constant = safe_constant;
        limits.safe_size = safe_size;
        limits.max_type_id = max_type_id;
        limits.length = length_;
        limits.moves = &moves_;
        return limits;
    }

    float* row(py::ssize_t slot) {
        return observations_.mutable_data() + slot * width_;
    }
    int8_t* mask(py::ssize_t slot) {
        return masks_.mutable_data() + slot * CORE_RULES * static_cast<py::ssize_t>(length_);
    }

    bool offer_slot(py::ssize_t slot, const Slot& s) {
        const py::ssize_t cells = static_cast<py::ssize_t>(CORE_RULES) * length_;
        const int8_t* valid = mask(slot);
        std::vector<std::ptrdiff_t> dropped;
        const auto visits_of = [&s](std::string_view text) { return s.visits_of(text); };
        if (!more_visited(s.parse, reinterpret_cast<const char*>(valid), 1, CORE_RULES, length_,
                          visits_of, dropped, &s.moves))
            return false;
        int8_t* flags = offered_.mutable_data() + slot * cells;
        float* values = row(slot) + head_ + 2 * static_cast<py::ssize_t>(length_);
        std::memmove(flags, valid, static_cast<std::size_t>(cells));
        for (const std::ptrdiff_t cell : dropped) {
            flags[cell] = 0;
            values[cell] = 0.0f;
        }
        return true;
    }

    // `Scoring.verdict(won, moves_left, max_moves, visits, rule)` from the data,
    // a loss being `lose`.
    std::pair<double, bool> verdict(const Slot& s, bool won, long left, long visits, int rule,
                                    double lose) const {
        for (const int check : scoring_.order) {
            switch (check) {
                case CHECK_OVERSIZE:
                    break;  // a native step fits
                case CHECK_OWN_VERDICT:
                    if (won) return {s.wins[static_cast<std::size_t>(left)], true};
                    break;
                case CHECK_OUT_OF_MOVES:
                    if (left <= 0) return {lose, true};
                    break;
                case CHECK_REVISIT:
                    if (scoring_.penalize_revisits && visits > 1) {
                        if (visits > scoring_.max_visits) return {lose, true};
                        return {scoring_.revisit_penalty * static_cast<double>(visits), false};
                    }
                    break;
                case CHECK_RULE_USED:
                    if (rule >= 0 && static_cast<std::size_t>(rule) < scoring_.rule_rewards.size())
                        return {scoring_.rule_rewards[static_cast<std::size_t>(rule)], false};
                    break;
                default:
                    break;
            }
        }
        return {scoring_.timestep, false};
    }

    Status step_slot(py::ssize_t slot, int64_t action, const FlatLimits& limits, Goal goal) {
        Slot& s = slots_[static_cast<std::size_t>(slot)];
        const py::ssize_t cells = static_cast<py::ssize_t>(CORE_RULES) * length_;
        if (!s.live || s.left < 1 || action < 0 || action >= cells || !mask(slot)[action])
            return LEFT;  // not held, no budget table, or invalid: the env decides
        const int rule = static_cast<int>(action / length_);
        const int column = static_cast<int>(action % length_);
        // A goal told from the move: its node against the terms of the
        // expression it was made on.
        bool acted_alike = false;
        double lose = scoring_.lose;
        if (goal == GOAL_ACTED_AT_LIKE_TERM) {
            if (losses_.empty()) return LEFT;
            std::vector<int> likes, terms;
            if (s.parse.tree.like_term_positions(s.parse.order, likes, terms) != Tree::YES)
                return LEFT;
            acted_alike = std::find(likes.begin(), likes.end(), column) != likes.end();
            if (likes.empty() || terms.empty()) {
                lose = plain_loss_;
            } else {
                int distance = length_;
                for (const int like : likes) distance = std::min(distance, std::abs(column - like));
                const int largest = terms.back();
                if (distance >= length_ || largest >= length_) return LEFT;
                const auto row = static_cast<std::size_t>(largest);
                lose = losses_[row * static_cast<std::size_t>(length_) +
                               static_cast<std::size_t>(distance)];
            }
        }
        Parsed next;
        std::string text;
        // The move's result as the expression's checks kept it, else made now
        // (the kept results are dropped on any refusal: they are only a saving).
        MoveResult* kept = find_move(s.moves, static_cast<std::ptrdiff_t>(action));
        if (kept != nullptr) {
            text = std::move(kept->text);
            next = std::move(kept->parse);
            s.moves.clear();
        } else {
            s.moves.clear();
            Tree rewritten;
            if (!rewrite(s.parse, rule, column, rewritten, text, nullptr)) return LEFT;
            if (!parse_text(text, next)) return LEFT;
        }
        // The text is counted in its canonical form when it is the first one.
        const std::string& key = text == s.first ? s.first_key : text;
        const long visits = s.visits_of(key) + 1;
        if (revisits_ && static_cast<std::size_t>(visits - 1) >= revisit_values_.size())
            return LEFT;  // past the revisit feature's table
        float* full = row(slot);
        // Written only once the step is known to be taken; a refusal here has
        // written nothing the Python path does not write again.
        MoveResults moves;
        const std::optional<bool> won =
            write_flat(next, limits, goal, full + head_ - 3, mask(slot), &text, &moves);
        if (!won) return LEFT;
        // Taken: the slot moves on.
        const long left = s.left - 1;
        s.count(key, visits);
        s.taken.emplace_back(text, rule, column);
        s.parse = std::move(next);
        s.text = std::move(text);
        s.moves = std::move(moves);
        s.left = left;
        const bool goal_met = goal == GOAL_ACTED_AT_LIKE_TERM ? acted_alike : *won;
        const std::pair<double, bool> scored = verdict(s, goal_met, left, visits, rule, lose);
        rewards_.mutable_data()[slot] = scored.first;
        terminated_.mutable_data()[slot] = scored.second;
        valid_.mutable_data()[slot] = true;
        oversize_.mutable_data()[slot] = false;
        left_.mutable_data()[slot] = left;
        full[0] = s.hash[0];
        full[1] = s.hash[1];
        full[2] = s.times[static_cast<std::size_t>(left)];
        if (revisits_) full[3] = revisit_values_[static_cast<std::size_t>(visits - 1)];
        if (mask_revisits_ && !offer_slot(slot, s)) return OFFER_LEFT;
        return STEPPED;
    }

    py::array_t<float, py::array::c_style> observations_;
    py::array_t<int8_t, py::array::c_style> masks_, offered_;
    py::array_t<double, py::array::c_style> rewards_;
    py::array_t<bool, py::array::c_style> terminated_, valid_, oversize_;
    py::array_t<int64_t, py::array::c_style> left_;
    int length_;
    bool revisits_, mask_revisits_;
    std::vector<float> revisit_values_;
    MoveLimits moves_;
    std::vector<double> losses_;  // set_losses' table
    double plain_loss_ = 0.0;
    py::ssize_t head_ = 3, width_ = 0;
    Scoring scoring_;
    std::vector<Slot> slots_;
    std::mutex mutex_;  // one call at a time (`step` runs without the GIL)
};

}  // namespace

void bind_batch(py::module_& module) {
    py::tuple checks(static_cast<py::size_t>(CHECK_COUNT));
    for (int check = 0; check < CHECK_COUNT; ++check) checks[check] = py::str(CHECK_NAMES[check]);
    module.attr("SCORING_CHECKS") = checks;
    py::tuple goals(static_cast<py::size_t>(GOAL_COUNT));
    for (int goal = 0; goal < GOAL_COUNT; ++goal) goals[goal] = py::str(GOAL_NAMES[goal]);
    module.attr("GOAL_NAMES") = goals;
    module.attr("MAX_THREADS") = MAX_THREADS;
    py::class_<Batch>(module, "Batch")
        .def(py::init<py::array_t<float, py::array::c_style>,
                      py::array_t<int8_t, py::array::c_style>,
                      py::array_t<int8_t, py::array::c_style>,
                      py::array_t<double, py::array::c_style>,
                      py::array_t<bool, py::array::c_style>,
                      py::array_t<bool, py::array::c_style>,
                      py::array_t<bool, py::array::c_style>,
                      py::array_t<int64_t, py::array::c_style>, int, bool, bool,
                      std::vector<float>, const std::vector<int64_t>&>(),
             py::arg("observations").noconvert(), py::arg("masks").noconvert(),
             py::arg("offered").noconvert(), py::arg("rewards").noconvert(),
             py::arg("terminated").noconvert(), py::arg("valid").noconvert(),
             py::arg("oversize").noconvert(), py::arg("left").noconvert(), py::arg("length"),
             py::arg("revisits"), py::arg("mask_revisits"), py::arg("revisit_values"),
             py::arg("move_limits"),
             "The native side of a batch whose arrays these are (written in place): "
             "flat observations (float32, `(slots, head + 2L + R*L)`, head 4 with "
             "`revisits` else 3), the valid masks and the offered masks (int8, `(slots, "
             "R*L)`), and per slot the reward (float64), terminated, valid, oversize "
             "(bool) and moves left (int64) of its last native step; `revisit_values[n]` "
             "is the revisit feature of a text seen n times before; `move_limits` are the "
             "library's limits for the checked moves of expressions that are not safe "
             "(admission.MOVE_LIMITS).")
        .def("__len__", &Batch::size)
        .def("set_scoring", &Batch::set_scoring, py::arg("rule_rewards"), py::arg("order"),
             py::arg("penalize_revisits"), py::arg("revisit_penalty"), py::arg("max_visits"),
             py::arg("lose"), py::arg("timestep"),
             "The reward scheme's scoring as data (mathy_envs.rewards.Scoring), `order` "
             "as indexes into `SCORING_CHECKS`.")
        .def("set_losses", &Batch::set_losses, py::arg("table"), py::arg("plain"),
             "The lose signal of the steps of the goal \"acted at a like term\", as "
             "data: `table[largest * L + distance]` (L * L values) for a move at "
             "`distance` positions from the nearest term with a like term, `largest` "
             "the largest term position; `plain` where the sum has no such term.")
        .def("load", &Batch::load, py::arg("slot"), py::arg("expression"), py::arg("text"),
             py::arg("left"), py::arg("visits"), py::arg("first"), py::arg("first_key"),
             py::arg("hash0"), py::arg("hash1"), py::arg("times"), py::arg("wins"),
             "Hold slot `slot`'s episode: its expression (parse and text), moves left, "
             "visits per text, first text and that text's canonical form, problem-type "
             "hash, and the time feature and win reward by moves left (`left + 1` "
             "values each).")
        .def("write", &Batch::write, py::arg("slot"), py::arg("goal"),
             py::arg("preferred_commute"), py::arg("safe_constant"), py::arg("safe_size"),
             py::arg("max_type_id"),
             "Write a held slot's row (past its head) and mask; the goal's verdict, or "
             "None, with nothing written, where the Python path writes them.")
        .def("offer", &Batch::offer, py::arg("slot"),
             "Write a held slot's offered moves (its offered mask and its row's mask "
             "values) from its visits; False where the Python path writes them.")
        .def("drop", &Batch::drop, py::arg("slot"), "Forget slot `slot`'s episode.")
        .def("live", &Batch::live, py::arg("slot"), "Whether the kernel holds slot `slot`.")
        .def("pull", &Batch::pull, py::arg("slot"),
             "`(text, left, visits, taken)` of a held slot, `taken` the `(text, (rule, "
             "node))` of its native steps since the last pull (handed over: forgotten "
             "here); None for a slot not held.")
        .def("step", &Batch::step, py::arg("actions").noconvert(), py::arg("over").noconvert(),
             py::arg("goal"), py::arg("preferred_commute"), py::arg("safe_constant"),
             py::arg("safe_size"), py::arg("max_type_id"), py::arg("num_threads") = 1,
             "Step every held slot that is not `over` by its action (int64, `rule * L + "
             "node`), on `num_threads` threads with the GIL released: per slot, 0 taken, "
             "1 left to the Python path (nothing of the slot changed), 2 taken but its "
             "offered moves left to the Python path, 3 over.");
}

}  // namespace mathy_native
