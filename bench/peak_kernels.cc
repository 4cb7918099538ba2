// FMA throughput kernel: many independent accumulator chains so the FMA units, not latency,
// bound the loop. Written over Highway so each machine measures its own best target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peak_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace radiant::bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Returns flops performed; writes a sum so the compiler cannot drop the work.
double FmaLoop(uint64_t iterations, float* sink) {
    const hn::ScalableTag<float> d;
    const auto m = hn::Set(d, 0.999999f), a = hn::Set(d, 1e-7f);
    // Distinct starting values: identical chains would be merged by the compiler (CSE) and
    // the probe would count work that never ran.
    auto c0 = hn::Set(d, 1.00f), c1 = hn::Set(d, 1.01f), c2 = hn::Set(d, 1.02f);
    auto c3 = hn::Set(d, 1.03f), c4 = hn::Set(d, 1.04f), c5 = hn::Set(d, 1.05f);
    auto c6 = hn::Set(d, 1.06f), c7 = hn::Set(d, 1.07f), c8 = hn::Set(d, 1.08f);
    auto c9 = hn::Set(d, 1.09f), c10 = hn::Set(d, 1.10f), c11 = hn::Set(d, 1.11f);
    for (uint64_t i = 0; i < iterations; ++i) {
        c0 = hn::MulAdd(c0, m, a);
        c1 = hn::MulAdd(c1, m, a);
        c2 = hn::MulAdd(c2, m, a);
        c3 = hn::MulAdd(c3, m, a);
        c4 = hn::MulAdd(c4, m, a);
        c5 = hn::MulAdd(c5, m, a);
        c6 = hn::MulAdd(c6, m, a);
        c7 = hn::MulAdd(c7, m, a);
        c8 = hn::MulAdd(c8, m, a);
        c9 = hn::MulAdd(c9, m, a);
        c10 = hn::MulAdd(c10, m, a);
        c11 = hn::MulAdd(c11, m, a);
    }
    auto s = hn::Add(hn::Add(hn::Add(c0, c1), hn::Add(c2, c3)),
                     hn::Add(hn::Add(c4, c5), hn::Add(c6, c7)));
    s = hn::Add(s, hn::Add(hn::Add(c8, c9), hn::Add(c10, c11)));
    *sink += hn::GetLane(hn::SumOfLanes(d, s));
    return double(iterations) * 12.0 * double(hn::Lanes(d)) * 2.0;
}

}  // namespace HWY_NAMESPACE
}  // namespace radiant::bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace radiant::bench {
HWY_EXPORT(FmaLoop);
double fma_loop(uint64_t iterations, float* sink) {
    return HWY_DYNAMIC_DISPATCH(FmaLoop)(iterations, sink);
}
}  // namespace radiant::bench
#endif
