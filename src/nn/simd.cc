#include "nn/simd.h"

#include <hwy/highway.h>
#include <hwy/targets.h>

namespace radiant {

const char* simd_target_name() {
    // Lower bits are better targets; HWY_DYNAMIC_DISPATCH picks the best supported one.
    auto targets = hwy::SupportedAndGeneratedTargets();
    return targets.empty() ? "none" : hwy::TargetName(targets.front());
}

}  // namespace radiant
