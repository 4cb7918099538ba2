#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/simd.cc"
#include "nn/simd.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/targets.h>
#include <strings.h>

#include <cstdlib>

HWY_BEFORE_NAMESPACE();
namespace radiant {
namespace HWY_NAMESPACE {
const char* TargetNameOfThisCode() { return hwy::TargetName(HWY_TARGET); }
}  // namespace HWY_NAMESPACE
}  // namespace radiant
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace radiant {

HWY_EXPORT(TargetNameOfThisCode);

const char* simd_target_name() {
    // Lower bits are better targets; HWY_DYNAMIC_DISPATCH picks the best supported one.
    auto targets = hwy::SupportedAndGeneratedTargets();
    return targets.empty() ? "none" : hwy::TargetName(targets.front());
}

const char* dispatched_simd_target_name() { return HWY_DYNAMIC_DISPATCH(TargetNameOfThisCode)(); }

namespace {
template <typename F>
void for_each_compiled_target(F&& f) {
    for (int64_t targets = HWY_TARGETS; targets != 0; targets &= targets - 1)
        f(targets & ~(targets - 1));
}
}  // namespace

std::string compiled_simd_targets() {
    std::string names;
    for_each_compiled_target(
        [&](int64_t t) { names += (names.empty() ? "" : ", ") + std::string(hwy::TargetName(t)); });
    return names;
}

SimdTargetOverride apply_simd_target_override() {
    SimdTargetOverride out;
    const char* want = std::getenv("RADIANT_SIMD_TARGET");
    if (!want || !*want) return out;
    int64_t chosen = 0;
    for_each_compiled_target([&](int64_t t) {
        if (strcasecmp(hwy::TargetName(t), want) == 0) chosen = t;
    });
    if (!chosen) {
        out.result = SimdTargetOverride::Result::kUnknown;
        out.message = "RADIANT_SIMD_TARGET: '" + std::string(want) +
                      "' is not a compiled target (compiled: " + compiled_simd_targets() + ")";
        return out;
    }
    if (!(hwy::SupportedTargets() & chosen)) {
        out.result = SimdTargetOverride::Result::kUnsupportedByCpu;
        out.message =
            "RADIANT_SIMD_TARGET: this CPU cannot run " + std::string(hwy::TargetName(chosen));
        return out;
    }
    // Only `chosen` is left supported; Update re-points every dispatch table at it.
    hwy::SetSupportedTargetsForTest(chosen);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    out.result = SimdTargetOverride::Result::kApplied;
    return out;
}

}  // namespace radiant
#endif  // HWY_ONCE
