#include "peak_probe.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12 false positive inside avx512fintrin.h
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/aligned.h"
#include "core/rng.h"
#include "core/timer.h"
#include "nn/amx.h"
#include "nn/simd.h"

namespace radiant::bench {

double fma_loop(uint64_t iterations, float* sink);

namespace {

#if defined(__x86_64__)
// AVX512-BF16 dot product: each instruction does 32 bf16 multiply-adds into 16 fp32 lanes.
__attribute__((target("avx512f,avx512bf16"))) double bf16_loop(uint64_t iterations, float* sink) {
    // Named, distinct accumulators: an array may live in memory, and identical chains would
    // be merged by the compiler.
    __m512 c0 = _mm512_set1_ps(0.f), c1 = _mm512_set1_ps(1.f), c2 = _mm512_set1_ps(2.f);
    __m512 c3 = _mm512_set1_ps(3.f), c4 = _mm512_set1_ps(4.f), c5 = _mm512_set1_ps(5.f);
    __m512 c6 = _mm512_set1_ps(6.f), c7 = _mm512_set1_ps(7.f), c8 = _mm512_set1_ps(8.f);
    __m512 c9 = _mm512_set1_ps(9.f), c10 = _mm512_set1_ps(10.f), c11 = _mm512_set1_ps(11.f);
    const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80);  // 1.0 in bf16
    const __m512bh b = (__m512bh)_mm512_set1_epi16(0x3380);  // ~6e-8
    for (uint64_t i = 0; i < iterations; ++i) {
        c0 = _mm512_dpbf16_ps(c0, a, b);
        c1 = _mm512_dpbf16_ps(c1, a, b);
        c2 = _mm512_dpbf16_ps(c2, a, b);
        c3 = _mm512_dpbf16_ps(c3, a, b);
        c4 = _mm512_dpbf16_ps(c4, a, b);
        c5 = _mm512_dpbf16_ps(c5, a, b);
        c6 = _mm512_dpbf16_ps(c6, a, b);
        c7 = _mm512_dpbf16_ps(c7, a, b);
        c8 = _mm512_dpbf16_ps(c8, a, b);
        c9 = _mm512_dpbf16_ps(c9, a, b);
        c10 = _mm512_dpbf16_ps(c10, a, b);
        c11 = _mm512_dpbf16_ps(c11, a, b);
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                             _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)));
    *sink += _mm512_reduce_add_ps(s);
    return double(iterations) * 12.0 * 32.0 * 2.0;
}
bool has_bf16() { return __builtin_cpu_supports("avx512bf16"); }

struct AmxTileConfig {
    uint8_t palette_id, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};

// Four independent 16x16 fp32 accumulator tiles fed by 16x32 bf16 tiles: 4 x 8192
// multiply-adds per iteration.
__attribute__((target("amx-tile,amx-bf16"))) double amx_loop(uint64_t iterations, float* sink) {
    AmxTileConfig cfg{};
    cfg.palette_id = 1;
    for (int t = 0; t < 8; ++t) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    _tile_loadconfig(&cfg);
    alignas(64) static uint16_t operand[16 * 32];
    for (auto& x : operand) x = 0x3c00;  // bf16 ~ 0.0078
    alignas(64) float out[16 * 16];
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, operand, 64);
    _tile_loadd(5, operand, 64);
    _tile_loadd(6, operand, 64);
    _tile_loadd(7, operand, 64);
    for (uint64_t i = 0; i < iterations; ++i) {
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, out, 64);
    *sink += out[0];
    return double(iterations) * 4.0 * 16 * 16 * 32 * 2.0;
}
#else
double bf16_loop(uint64_t, float*) { return 0.0; }
bool has_bf16() { return false; }
double amx_loop(uint64_t, float*) { return 0.0; }
#endif

// Runs `loop(iters)` on `threads` threads, growing iters until a run lasts `seconds`;
// returns the best GFLOP/s of three runs.
template <class Loop>
double measure(ThreadPool& pool, int threads, double seconds, Loop loop) {
    uint64_t iters = 1 << 14;
    float sink = 0;
    for (;;) {  // calibrate on one thread
        Timer t;
        loop(iters, &sink);
        double s = t.seconds();
        if (s > seconds * 0.25) {
            iters = uint64_t(double(iters) * seconds / s) + 1;
            break;
        }
        iters *= 4;
    }
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) {
        std::vector<double> flops(pool.size(), 0.0);
        std::vector<float> sinks(pool.size(), 0.0f);
        Timer t;
        pool.parallel_for(pool.size(), [&](size_t i, int) {
            if (int(i) < threads) flops[i] = loop(iters, &sinks[i]);
        });
        double s = t.seconds();
        double total = 0;
        for (double f : flops) total += f;
        best = std::max(best, total / s * 1e-9);
    }
    return best;
}

}  // namespace

PeakResult measure_peak(ThreadPool& pool, double seconds) {
    PeakResult r;
    r.simd_target = simd_target_name();
    r.fp32_gflops_one_core = measure(pool, 1, seconds, fma_loop);
    r.fp32_gflops_all_cores = measure(pool, pool.size(), seconds, fma_loop);
    if (has_bf16()) {
        r.bf16_gflops_one_core = measure(pool, 1, seconds, bf16_loop);
        r.bf16_gflops_all_cores = measure(pool, pool.size(), seconds, bf16_loop);
    }
    if (amx::backend() == amx::Bf16Backend::kAmx) {
        r.amx_bf16_gflops_one_core = measure(pool, 1, seconds, amx_loop);
        r.amx_bf16_gflops_all_cores = measure(pool, pool.size(), seconds, amx_loop);
    }
    return r;
}

std::vector<RandomAccessPoint> measure_random_access(ThreadPool& pool,
                                                     const std::vector<size_t>& table_bytes,
                                                     double seconds) {
    std::vector<RandomAccessPoint> out;
    for (size_t bytes : table_bytes) {
        // 8-byte entries (two fp32 features, as a 2-feature hash-grid row); independent
        // loads, 8 in flight per iteration, like one corner gather.
        size_t n = std::max<size_t>(bytes / 8, 1024);
        size_t mask = 1;
        while (mask * 2 <= n) mask *= 2;
        mask -= 1;
        AlignedVector<uint64_t> table(mask + 1);
        for (size_t i = 0; i < table.size(); ++i) table[i] = i * 0x9E3779B97F4A7C15ull;
        auto run = [&](int threads) {
            uint64_t per_thread = 1 << 20;
            double best = 0;
            for (int rep = 0; rep < 3; ++rep) {
                std::vector<uint64_t> sink(pool.size(), 0);
                Timer t;
                pool.parallel_for(pool.size(), [&](size_t i, int) {
                    if (int(i) >= threads) return;
                    Pcg32 rng(i + 1);
                    uint64_t acc = 0;
                    for (uint64_t k = 0; k < per_thread; k += 8) {
                        uint32_t base = rng.next_uint();
                        for (uint32_t j = 0; j < 8; ++j)
                            acc += table[((base + j * 0x61C88647u) * 2654435761u) & mask];
                    }
                    sink[i] = acc;
                });
                double s = t.seconds();
                best = std::max(best, double(per_thread) * threads / s);
                if (s < seconds / 3) per_thread *= 2;
            }
            return best;
        };
        RandomAccessPoint p;
        p.table_bytes = (mask + 1) * 8;
        p.accesses_per_second_one_core = run(1);
        p.accesses_per_second_all_cores = run(pool.size());
        out.push_back(p);
    }
    return out;
}

}  // namespace radiant::bench
