// The pseudo-random numbers of mathy_envs/_engine/values.py's evaluator: BLAKE2b (RFC
// 7693, no key) with an 8-byte digest, read big-endian, modulo 2^61 - 2, plus one.
#include <cstdint>
#include <cstring>
#include <string>

#include "expression.hpp"

namespace mathy_native {

namespace {

constexpr uint64_t IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
    0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
    0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

constexpr uint8_t SIGMA[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

uint64_t rotate(uint64_t x, int bits) { return (x >> bits) | (x << (64 - bits)); }

void mix(uint64_t* v, int a, int b, int c, int d, uint64_t x, uint64_t y) {
    v[a] = v[a] + v[b] + x;
    v[d] = rotate(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = rotate(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = rotate(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = rotate(v[b] ^ v[c], 63);
}

// One compression of a 128-byte block; `bytes` counts the message bytes so far.
void compress(uint64_t* h, const uint8_t* block, uint64_t bytes, bool last) {
    uint64_t m[16];
    for (int i = 0; i < 16; ++i) {
        uint64_t word = 0;
        for (int k = 7; k >= 0; --k) word = (word << 8) | block[8 * i + k];  // little-endian
        m[i] = word;
    }
    uint64_t v[16];
    for (int i = 0; i < 8; ++i) {
        v[i] = h[i];
        v[i + 8] = IV[i];
    }
    v[12] ^= bytes;  // the counter's low word (messages here are far below 2^64 bytes)
    if (last) v[14] = ~v[14];
    for (int round = 0; round < 12; ++round) {
        const uint8_t* s = SIGMA[round % 10];
        mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
        mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
        mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
        mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
        mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
        mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
        mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
        mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

}  // namespace

uint64_t blake2b_8(const std::string& message) {
    constexpr uint64_t DIGEST_SIZE = 8;
    uint64_t h[8];
    for (int i = 0; i < 8; ++i) h[i] = IV[i];
    h[0] ^= 0x01010000ULL ^ DIGEST_SIZE;  // no key, fanout and depth 1
    const auto* data = reinterpret_cast<const uint8_t*>(message.data());
    const size_t size = message.size();
    size_t offset = 0;
    // Every full block but the last one (an empty message is one empty block).
    while (size - offset > 128) {
        compress(h, data + offset, offset + 128, false);
        offset += 128;
    }
    uint8_t block[128] = {0};
    std::memcpy(block, data + offset, size - offset);
    compress(h, block, size, true);
    // The digest is h[0]'s 8 bytes in little-endian order, read big-endian.
    uint64_t digest = 0;
    for (int k = 0; k < 8; ++k) digest = (digest << 8) | ((h[0] >> (8 * k)) & 0xff);
    return digest;
}

uint64_t key_hash(const std::string& message) {
    constexpr uint64_t PRIME = (uint64_t(1) << 61) - 1;
    return blake2b_8(message) % (PRIME - 1) + 1;
}

}  // namespace mathy_native
