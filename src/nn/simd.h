// Which kernel implementation a component runs: the Highway SIMD version (dispatched at run
// time to the best instruction set the CPU has) or the plain C++ reference used by tests.
#pragma once

namespace radiant {

enum class KernelImpl { kSimd, kScalar };

// Name of the SIMD target Highway dispatches to on this CPU (e.g. "AVX3", "AVX2", "NEON").
const char* simd_target_name();

}  // namespace radiant
