// Which kernel implementation a component runs: the Highway SIMD version (dispatched at run
// time to the best instruction set the CPU has) or the plain C++ reference used by tests.
#pragma once

#include <string>

namespace radiant {

enum class KernelImpl { kSimd, kScalar };

// Name of the SIMD target Highway dispatches to on this CPU (e.g. "AVX3", "AVX2", "NEON").
const char* simd_target_name();

// The target a dispatched kernel really runs on (asked through HWY_DYNAMIC_DISPATCH itself).
const char* dispatched_simd_target_name();

// Every target compiled into the kernels, best first, comma-separated (e.g. "AVX3, AVX2, ...,
// SCALAR").
std::string compiled_simd_targets();

// RADIANT_SIMD_TARGET=NAME (e.g. AVX2, SSE4, SCALAR) makes every kernel dispatch to that
// compiled target instead of the best one: tests run each target's kernels on one machine,
// and a user can rule a target out when chasing a wrong result. Unset or empty: no change.
struct SimdTargetOverride {
    enum class Result { kNone, kApplied, kUnknown, kUnsupportedByCpu } result = Result::kNone;
    std::string message;  // for kUnknown / kUnsupportedByCpu: one line naming the problem
};
SimdTargetOverride apply_simd_target_override();

}  // namespace radiant
