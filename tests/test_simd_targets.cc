// RADIANT_SIMD_TARGET: the kernel tests run once per compiled SIMD target (tests/CMakeLists.txt
// registers SimdTarget.<NAME>), so code paths this CPU would not pick by default are still
// checked against their scalar references. The environment below applies the choice before any
// test runs; a target the CPU cannot run ends the process with 77, which ctest reports as skipped.
#include <gtest/gtest.h>
#include <strings.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "nn/simd.h"

namespace radiant {
namespace {

class SimdTargetEnvironment : public ::testing::Environment {
  public:
    void SetUp() override {
        const SimdTargetOverride o = apply_simd_target_override();
        // A target this CPU cannot run, or one this Highway version does not compile (the
        // CMake list names every x86 target Highway has had): skipped, with the reason.
        if (o.result == SimdTargetOverride::Result::kUnsupportedByCpu ||
            o.result == SimdTargetOverride::Result::kUnknown) {
            std::fprintf(stderr, "%s: skipping\n", o.message.c_str());
            std::fflush(stderr);
            std::_Exit(77);
        }
    }
};

[[maybe_unused]] ::testing::Environment* const kSimdTarget =
    ::testing::AddGlobalTestEnvironment(new SimdTargetEnvironment);

TEST(SimdTarget, KernelsDispatchToTheChosenTarget) {
    const char* want = std::getenv("RADIANT_SIMD_TARGET");
    const char* got = dispatched_simd_target_name();
    if (want && *want)
        EXPECT_EQ(strcasecmp(got, want), 0) << "asked for " << want << ", kernels run " << got;
    else
        EXPECT_STREQ(got, simd_target_name())
            << "the best supported target is " << simd_target_name();
    EXPECT_NE(compiled_simd_targets().find(got), std::string::npos) << compiled_simd_targets();
}

}  // namespace
}  // namespace radiant
