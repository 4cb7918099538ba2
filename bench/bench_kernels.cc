// Google Benchmark micro-benchmarks of the nn kernels, SIMD versus scalar reference.
#include <benchmark/benchmark.h>

#include <cmath>

#include "core/aligned.h"
#include "core/rng.h"
#include "nn/adam.h"
#include "nn/gemm.h"
#include "nn/hash_grid.h"
#include "nn/mlp.h"
#include "nn/sh_encoding.h"

using namespace radiant;

namespace {
AlignedVector<float> random_vector(size_t n, uint64_t seed) {
    Pcg32 rng(seed);
    AlignedVector<float> v(n);
    for (auto& x : v) x = rng.next_float() * 2 - 1;
    return v;
}

void BM_Gemm(benchmark::State& state) {
    const size_t M = 128, N = state.range(0), K = state.range(1);
    auto a = random_vector(M * K, 1), b = random_vector(K * N, 2), c = random_vector(M * N, 3);
    GemmArgs g;
    g.M = M;
    g.N = N;
    g.K = K;
    g.A = a.data();
    g.a_row_stride = K;
    g.a_col_stride = 1;
    g.B = b.data();
    g.ldb = N;
    g.C = c.data();
    g.ldc = N;
    auto impl = state.range(2) ? KernelImpl::kSimd : KernelImpl::kScalar;
    for (auto _ : state) {
        gemm(g, impl);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * M * N * K, benchmark::Counter::kIsIterationInvariantRate,
                           benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Gemm)->Args({64, 64, 1})->Args({64, 32, 1})->Args({16, 64, 1})->Args({64, 64, 0});

// A tile of 256 samples through the colour MLP (32 -> 64 -> 64 -> 3), forward and backward as
// in training: fp32 (Highway) against bf16 (AMX or AVX512-BF16, whichever the CPU has).
void BM_FusedMlpStep(benchmark::State& state) {
    MlpConfig c;
    c.n_input = 32;
    c.n_output = 3;
    c.n_neurons = 64;
    c.n_hidden_layers = 2;
    c.precision = state.range(0) ? MlpPrecision::kBf16 : MlpPrecision::kFp32;
    FusedMlp mlp(c);
    if (state.range(0) && !mlp.uses_bf16())
        return state.SkipWithError("no bf16 matrix products on this CPU");
    const size_t n = 256;
    AlignedVector<float> params(mlp.n_params()), packed(mlp.packed_size()), grad(mlp.n_params());
    Pcg32 rng(5);
    mlp.init_params(params.data(), rng);
    mlp.pack(params.data(), packed.data());
    auto input = random_vector(n * 32, 6), d_out = random_vector(n * 3, 7);
    AlignedVector<float> d_in(n * 32);
    auto ws = mlp.make_workspace(n);
    for (auto _ : state) {
        benchmark::DoNotOptimize(mlp.forward(packed.data(), input.data(), 32, n, ws));
        mlp.backward(params.data(), packed.data(), input.data(), 32, n, d_out.data(), 3, ws,
                     grad.data(), d_in.data());
    }
    state.SetItemsProcessed(state.iterations() * n);
    state.counters["GFLOP/s"] = benchmark::Counter(mlp.flops_per_sample(true) * n,
                                                   benchmark::Counter::kIsIterationInvariantRate,
                                                   benchmark::Counter::kIs1000);
}
BENCHMARK(BM_FusedMlpStep)->Arg(0)->Arg(1);

void BM_HashGridForward3D(benchmark::State& state) {
    HashGridConfig c;
    c.n_dims = 3;
    c.log2_hashmap_size = state.range(0);
    c.per_level_scale = HashGridConfig::scale_for_finest(16, 16, 2048);
    HashGrid grid(c, state.range(1) ? KernelImpl::kSimd : KernelImpl::kScalar);
    auto params = random_vector(grid.n_params(), 4);
    const size_t n = 4096;
    auto pos = random_vector(n * 3, 5);
    for (auto& p : pos) p = p * 0.5f + 0.5f;
    AlignedVector<float> out(n * grid.n_output_dims());
    for (auto _ : state) {
        grid.forward(params.data(), pos.data(), n, out.data(), grid.n_output_dims());
        benchmark::DoNotOptimize(out.data());
    }
    state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_HashGridForward3D)->Args({19, 1})->Args({19, 0})->Args({15, 1});

// Positions as the NeRF trainer produces them: 64 consecutive samples along each of many
// random rays (step sqrt(3)/1024), with fresh rays every iteration (a pool far larger than L2).
std::vector<float> ray_positions(size_t n) {
    const size_t per_ray = 64;
    std::vector<float> pos(n * 3);
    auto seeds = random_vector(pos.size() / per_ray * 2, 7);
    for (size_t r = 0; r < pos.size() / 3 / per_ray; ++r) {
        const float o[3] = {0.5f + 0.4f * seeds[6 * r % seeds.size()],
                            0.5f + 0.4f * seeds[(6 * r + 1) % seeds.size()],
                            0.5f + 0.4f * seeds[(6 * r + 2) % seeds.size()]};
        float d[3] = {seeds[(6 * r + 3) % seeds.size()], seeds[(6 * r + 4) % seeds.size()],
                      seeds[(6 * r + 5) % seeds.size()] + 0.01f};
        const float len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (size_t s = 0; s < per_ray; ++s)
            for (int k = 0; k < 3; ++k)
                pos[3 * (r * per_ray + s) + k] = o[k] + d[k] / len * 0.0017f * float(s);
    }
    return pos;
}

// Sample by sample (forward), 4096 ray-ordered positions at a time.
void BM_HashGridForwardRays(benchmark::State& state) {
    HashGridConfig c;
    c.n_dims = 3;
    c.log2_hashmap_size = state.range(0);
    c.per_level_scale = HashGridConfig::scale_for_finest(16, 16, 2048);
    HashGrid grid(c, KernelImpl::kSimd);
    auto params = random_vector(grid.n_params(), 4);
    const size_t n = 4096, batches = 256;
    const std::vector<float> pos = ray_positions(n * batches);
    AlignedVector<float> out(n * grid.n_output_dims());
    size_t b = 0;
    for (auto _ : state) {
        grid.forward(params.data(), pos.data() + 3 * n * (b++ % batches), n, out.data(),
                     grid.n_output_dims());
        benchmark::DoNotOptimize(out.data());
    }
    state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_HashGridForwardRays)->Arg(19)->Arg(18)->Arg(16);

// The same ray-ordered positions, level by level (forward_levels), 2^k at a time: 2^17 is a
// training step's worth, what the trainer does.
void BM_HashGridForwardLevelsRays(benchmark::State& state) {
    HashGridConfig c;
    c.n_dims = 3;
    c.log2_hashmap_size = state.range(0);
    c.per_level_scale = HashGridConfig::scale_for_finest(16, 16, 2048);
    HashGrid grid(c, KernelImpl::kSimd);
    auto params = random_vector(grid.n_params(), 4);
    const size_t n = size_t(1) << state.range(1), batches = (size_t(1) << 19) / n;
    const std::vector<float> pos = ray_positions(n * batches);
    AlignedVector<float> out(n * grid.n_output_dims());
    size_t b = 0;
    for (auto _ : state) {
        grid.forward_levels(params.data(), pos.data() + 3 * n * (b++ % batches), n, out.data(), n,
                            0, c.n_levels);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_HashGridForwardLevelsRays)
    ->Args({19, 17})
    ->Args({18, 17})
    ->Args({16, 17})
    ->Args({19, 13})
    ->Args({19, 15});

// The trainer's hash backward: a step's worth of ray-ordered samples, level by level.
void BM_HashGridBackwardLevelsRays(benchmark::State& state) {
    HashGridConfig c;
    c.n_dims = 3;
    c.log2_hashmap_size = state.range(0);
    c.per_level_scale = HashGridConfig::scale_for_finest(16, 16, 2048);
    HashGrid grid(c, KernelImpl::kSimd);
    const size_t n = size_t(1) << 17, batches = 4;
    const std::vector<float> pos = ray_positions(n * batches);
    auto d_enc = random_vector(n * grid.n_output_dims(), 5);
    std::vector<float> grads(grid.n_params(), 0.0f);
    size_t b = 0;
    for (auto _ : state) {
        grid.backward(pos.data() + 3 * n * (b++ % batches), n, d_enc.data(), n, grads.data(), 0,
                      c.n_levels);
        benchmark::DoNotOptimize(grads.data());
    }
    state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_HashGridBackwardLevelsRays)->Arg(19)->Arg(16);

void BM_Adam(benchmark::State& state) {
    const size_t n = 1 << 20;
    auto p = random_vector(n, 6), g = random_vector(n, 7), m = random_vector(n, 8),
         v = random_vector(n, 9);
    for (auto& x : v) x = x * x;
    AdamStepArgs a{1e-3f, 0.9f, 0.99f, 1e-15f, 0.0f, false};
    for (auto _ : state) {
        adam_update(a, p.data(), g.data(), m.data(), v.data(), n,
                    state.range(0) ? KernelImpl::kSimd : KernelImpl::kScalar);
    }
    state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_Adam)->Arg(1)->Arg(0);
}  // namespace

BENCHMARK_MAIN();
