// numpy.random.Generator's draws, replayed on its own bit generator: the
// problem generators of native/problems.cpp draw what mathy_envs' generators
// draw through `Generator.random`, `Generator.integers` and
// `Generator.permutation`, number for number.
//
// The bit generator is numpy's `bitgen_t` (numpy's C API for random documents
// it; Python hands it over as `BitGenerator.capsule`). What each Generator
// method makes of its outputs is numpy's observed behaviour, which the library
// checks against numpy itself before it lets the native core draw (see
// mathy_envs/_engine/drawing.py) and the tests check over many seeds:
// - `random()` is the bit generator's `next_double`;
// - `integers(low, high)` with `high - low <= 2^32` draws 32-bit words
//   (`next_uint32`, which keeps the unused half of a 64-bit output for the next
//   call) and maps one to `[0, high - low)` by Lemire's multiply-and-reject
//   method; a range of one draws nothing;
// - `permutation(n)` shuffles `0..n-1` from the last place down, place `i`
//   swapping with a place drawn in `[0, i]` from 32-bit words masked to the
//   bits of `i`, a word past `i` drawn again.
// Ranges past 32 bits are not replayed: `failed()` is then set, and the caller
// gives the draw back to Python.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

namespace mathy_native {

// numpy's `bitgen_t`.
struct BitGenerator {
    void* state;
    uint64_t (*next_uint64)(void* state);
    uint32_t (*next_uint32)(void* state);
    double (*next_double)(void* state);
    uint64_t (*next_raw)(void* state);
};

class Draws {
  public:
    explicit Draws(BitGenerator* source) : source_(source) {}

    // Generator.random().
    double random() { return source_->next_double(source_->state); }

    // `rng.random() < probability` (problems.py's `chance`).
    bool chance(double probability) { return random() < probability; }

    // Generator.integers(low, high): uniform in [low, high).
    int64_t integers(int64_t low, int64_t high) {
        // (high - low in unsigned arithmetic: the difference of two int64s
        // need not fit in one.)
        const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
        if (high <= low || span > (uint64_t{1} << 32)) {
            failed_ = true;  // numpy raises, or draws 64-bit words
            return low;
        }
        if (span == 1) return low;
        if (span == (uint64_t{1} << 32)) return low + next32();
        const uint32_t count = static_cast<uint32_t>(span);
        uint64_t product = uint64_t{next32()} * count;
        uint32_t leftover = static_cast<uint32_t>(product);
        if (leftover < count) {
            const uint32_t threshold = static_cast<uint32_t>(-count) % count;
            while (leftover < threshold) {
                product = uint64_t{next32()} * count;
                leftover = static_cast<uint32_t>(product);
            }
        }
        return low + static_cast<int64_t>(product >> 32);
    }

    // problems.py's `rand_int`: uniform in [low, high], both included.
    int64_t rand_int(int64_t low, int64_t high) { return integers(low, high + 1); }

    // Generator.permutation(n).
    std::vector<int> permutation(int n) {
        std::vector<int> order(n > 0 ? n : 0);
        std::iota(order.begin(), order.end(), 0);
        for (int place = n - 1; place > 0; --place) {
            const int other = static_cast<int>(interval(static_cast<uint32_t>(place)));
            std::swap(order[place], order[other]);
        }
        return order;
    }

    // Whether a draw asked for was out of what this replays.
    bool failed() const { return failed_; }

  private:
    uint32_t next32() { return source_->next_uint32(source_->state); }

    // A uniform draw in [0, most] by masked rejection.
    uint32_t interval(uint32_t most) {
        if (most == 0) return 0;
        uint32_t mask = most;
        mask |= mask >> 1;
        mask |= mask >> 2;
        mask |= mask >> 4;
        mask |= mask >> 8;
        mask |= mask >> 16;
        uint32_t value;
        while ((value = next32() & mask) > most) {
        }
        return value;
    }

    BitGenerator* source_;
    bool failed_ = false;
};

}  // namespace mathy_native
