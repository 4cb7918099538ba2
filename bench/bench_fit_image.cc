// bench-fit-image: throughput of the fit-image training step (hash encoding + fused MLP,
// forward + backward + Adam) and its fraction of this machine's FP32 FMA peak, both measured
// in this run.
//
//   bench-fit-image [IMAGE] [--steps N] [--rounds R] [--warmup N] [--threads T] [--batch B]
//                   [--log2-table K]
//
// The machines we run on are shared VMs whose speed drifts from second to second, so the peak
// probe and the training steps are measured in R alternating rounds and each reports its
// best round: both numbers then describe the machine at its least disturbed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/thread_pool.h"
#include "core/timer.h"
#include "fit/image_fitter.h"
#include "fit/test_pattern.h"
#include "io/image.h"
#include "nn/simd.h"
#include "peak_probe.h"

int main(int argc, char** argv) {
    std::string image_path;
    int steps = 20, warmup = 5, threads = 0, rounds = 5;
    radiant::FitImageConfig config;
    for (int i = 1; i < argc; ++i) {
        auto next = [&]() {
            return i + 1 < argc ? argv[++i]
                                : (std::fprintf(stderr, "missing value\n"), std::exit(2), "");
        };
        if (!std::strcmp(argv[i], "--steps"))
            steps = std::atoi(next());
        else if (!std::strcmp(argv[i], "--warmup"))
            warmup = std::atoi(next());
        else if (!std::strcmp(argv[i], "--rounds"))
            rounds = std::atoi(next());
        else if (!std::strcmp(argv[i], "--precision"))
            config.precision = std::strcmp(next(), "fp32") ? radiant::MlpPrecision::kBf16
                                                           : radiant::MlpPrecision::kFp32;
        else if (!std::strcmp(argv[i], "--threads"))
            threads = std::atoi(next());
        else if (!std::strcmp(argv[i], "--batch"))
            config.batch = std::strtoull(next(), nullptr, 10);
        else if (!std::strcmp(argv[i], "--log2-table"))
            config.log2_hashmap_size = std::atoi(next());
        else if (argv[i][0] == '-') {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        } else
            image_path = argv[i];
    }
    radiant::ThreadPool pool(threads);
    radiant::ImageF image = image_path.empty() ? radiant::make_test_pattern(1024, 1024)
                                               : radiant::to_float(radiant::load_image(image_path));
    radiant::ImageFitter fitter(image, config, pool);
    for (int i = 0; i < warmup; ++i) fitter.step();

    radiant::bench::PeakResult peak;
    double best_step = 1e30;
    radiant::ImageFitter::PhaseTimes best_phase;
    for (int r = 0; r < rounds; ++r) {
        auto p = radiant::bench::measure_peak(pool, 0.2);
        if (p.fp32_gflops_all_cores > peak.fp32_gflops_all_cores) peak = p;
        const auto before = fitter.phase_times();
        radiant::Timer t;
        for (int i = 0; i < steps; ++i) fitter.step();
        double s = t.seconds() / steps;
        if (s < best_step) {
            best_step = s;
            const auto& after = fitter.phase_times();
            best_phase = {(after.forward_backward - before.forward_backward) / steps,
                          (after.gradients - before.gradients) / steps,
                          (after.optimizer - before.optimizer) / steps};
        }
    }
    const double sps = fitter.batch() / best_step;
    const double gflops = sps * fitter.flops_per_sample() * 1e-9;
    std::printf(
        "peak (best of %d): FP32 FMA %.1f GFLOP/s on %d threads (%s), one core %.1f; "
        "BF16 dot %.1f; AMX BF16 %.1f\n",
        rounds, peak.fp32_gflops_all_cores, pool.size(), peak.simd_target,
        peak.fp32_gflops_one_core, peak.bf16_gflops_all_cores, peak.amx_bf16_gflops_all_cores);
    std::printf(
        "fit-image step (best of %d x %d steps): %s %dx%d, batch %zu, table 2^%d, MLP %s: "
        "%.3f M samples/s, %.1f ms/step, %.1f GFLOP/s at %.1f kFLOP/sample = %.1f%% of "
        "FP32 peak\n",
        rounds, steps, image_path.empty() ? "test pattern" : image_path.c_str(), image.width,
        image.height, fitter.batch(), config.log2_hashmap_size,
        fitter.mlp().uses_bf16() ? "bf16 AMX" : "fp32", sps * 1e-6, 1e3 * best_step, gflops,
        fitter.flops_per_sample() * 1e-3, 100.0 * gflops / peak.fp32_gflops_all_cores);
    std::printf(
        "  per step: forward+loss+MLP backward %.1f ms, gradient sums (hash backward, MLP "
        "reduce) %.1f ms, Adam %.1f ms\n",
        1e3 * best_phase.forward_backward, 1e3 * best_phase.gradients, 1e3 * best_phase.optimizer);
    return 0;
}
