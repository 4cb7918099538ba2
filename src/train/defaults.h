// Training's defaults and valid ranges that more than one place needs (the trainer's config, the
// command line, the benchmarks), said once.
#pragma once

#include <cstddef>

namespace radiant {

// Marched samples per step (the ray count adapts to it): 2^17 beat 2^15 and 2^16 on
// time-to-PSNR (BENCHMARKS.md).
inline constexpr size_t kDefaultTargetSamples = size_t(1) << 17;
inline constexpr size_t kMinTargetSamples = size_t(1) << 10, kMaxTargetSamples = size_t(1) << 20;

}  // namespace radiant
