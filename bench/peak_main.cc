// radiant-peak: prints this machine's measured FP32/BF16 peak and random-access rates.
#include <cstdio>

#include "peak_probe.h"

int main() {
    radiant::ThreadPool pool;
    auto peak = radiant::bench::measure_peak(pool);
    std::printf("SIMD target: %s, threads: %d\n", peak.simd_target, pool.size());
    std::printf("FP32 FMA   : %8.1f GFLOP/s one core, %8.1f GFLOP/s all cores\n",
                peak.fp32_gflops_one_core, peak.fp32_gflops_all_cores);
    if (peak.bf16_gflops_one_core > 0)
        std::printf("BF16 dot   : %8.1f GFLOP/s one core, %8.1f GFLOP/s all cores\n",
                    peak.bf16_gflops_one_core, peak.bf16_gflops_all_cores);
    else
        std::printf("BF16 dot   : not supported by this CPU\n");
    if (peak.amx_bf16_gflops_one_core > 0)
        std::printf("AMX BF16   : %8.1f GFLOP/s one core, %8.1f GFLOP/s all cores\n",
                    peak.amx_bf16_gflops_one_core, peak.amx_bf16_gflops_all_cores);
    else
        std::printf("AMX BF16   : not available on this CPU\n");
    std::printf("random 8-byte reads (8 independent in flight):\n");
    std::vector<size_t> sizes;
    for (size_t b = size_t(1) << 14; b <= size_t(1) << 28; b <<= 2) sizes.push_back(b);
    for (const auto& p : radiant::bench::measure_random_access(pool, sizes))
        std::printf("  table %9.2f MiB: %8.1f M/s one core, %8.1f M/s all cores\n",
                    p.table_bytes / 1048576.0, p.accesses_per_second_one_core * 1e-6,
                    p.accesses_per_second_all_cores * 1e-6);
    return 0;
}
