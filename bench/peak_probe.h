// Measures this machine's peak: FP32 FMA and BF16 dot-product throughput (per core and all
// cores) and the random-access rate versus table size, so every benchmark can print its
// fraction of the measured peak in the same run.
#pragma once

#include <vector>

#include "core/thread_pool.h"

namespace radiant::bench {

struct PeakResult {
    double fp32_gflops_one_core = 0;
    double fp32_gflops_all_cores = 0;
    double bf16_gflops_one_core = 0;  // 0 when the CPU has no BF16 dot instruction
    double bf16_gflops_all_cores = 0;
    double amx_bf16_gflops_one_core = 0;  // Intel AMX tile products; 0 without AMX
    double amx_bf16_gflops_all_cores = 0;
    const char* simd_target = "";
};

struct RandomAccessPoint {
    size_t table_bytes = 0;
    double accesses_per_second_one_core = 0;
    double accesses_per_second_all_cores = 0;
};

// Runs each probe for about `seconds_per_probe` and keeps the best of a few repeats.
PeakResult measure_peak(ThreadPool& pool, double seconds_per_probe = 0.3);
std::vector<RandomAccessPoint> measure_random_access(ThreadPool& pool,
                                                     const std::vector<size_t>& table_bytes,
                                                     double seconds_per_point = 0.2);

}  // namespace radiant::bench
