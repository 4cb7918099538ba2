// Deterministic random numbers.
//
// Pcg32 is O'Neill's PCG-XSH-RR generator (64-bit state, selectable stream) with O(log n)
// advance. Hot loops key a generator by (seed, step, chunk) through `stream_for`, so the
// numbers a sample sees never depend on which thread draws them.
#pragma once

#include <cstdint>

namespace radiant {

// SplitMix64 finaliser: a good 64-bit mixing function for deriving seeds and streams.
inline uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

class Pcg32 {
  public:
    static constexpr uint64_t kMultiplier = 6364136223846793005ull;

    Pcg32() { seed(0x853c49e6748fea9bull, 0xda3e39cb94b95bdbull); }
    explicit Pcg32(uint64_t seed_value, uint64_t stream = 1) { seed(seed_value, stream); }

    void seed(uint64_t seed_value, uint64_t stream = 1) {
        m_state = 0;
        m_inc = (stream << 1u) | 1u;
        next_uint();
        m_state += seed_value;
        next_uint();
    }

    uint32_t next_uint() {
        uint64_t old = m_state;
        m_state = old * kMultiplier + m_inc;
        auto xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
        auto rot = static_cast<uint32_t>(old >> 59u);
        return (xorshifted >> rot) | (xorshifted << ((~rot + 1u) & 31));
    }

    // Uniform in [0, 1), 24 bits of precision, never returns 1.
    float next_float() { return static_cast<float>(next_uint() >> 8) * 0x1p-24f; }

    // Uniform integer in [0, bound) without modulo bias.
    uint32_t next_below(uint32_t bound) {
        uint32_t threshold = (~bound + 1u) % bound;
        for (;;) {
            uint32_t r = next_uint();
            if (r >= threshold) return r % bound;
        }
    }

    // Skips `delta` draws in O(log delta) (Brown, "Random number generation with arbitrary
    // stride"). advance(n) leaves the generator exactly where n next_uint() calls would.
    void advance(uint64_t delta) {
        uint64_t cur_mult = kMultiplier, cur_plus = m_inc, acc_mult = 1, acc_plus = 0;
        while (delta > 0) {
            if (delta & 1) {
                acc_mult *= cur_mult;
                acc_plus = acc_plus * cur_mult + cur_plus;
            }
            cur_plus = (cur_mult + 1) * cur_plus;
            cur_mult *= cur_mult;
            delta >>= 1;
        }
        m_state = acc_mult * m_state + acc_plus;
    }

    bool operator==(const Pcg32& o) const { return m_state == o.m_state && m_inc == o.m_inc; }

  private:
    uint64_t m_state;
    uint64_t m_inc;
};

// A generator for one (seed, step, chunk) cell of work: identical whatever thread runs it.
inline Pcg32 stream_for(uint64_t seed, uint64_t step, uint64_t chunk) {
    return Pcg32(mix64(seed ^ mix64(step)), mix64(chunk * 0x9E3779B97F4A7C15ull + step));
}

}  // namespace radiant
