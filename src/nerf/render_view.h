// Renders views of a NerfModel: one ray per pixel centre, composited on a background colour.
#pragma once

#include <array>
#include <functional>

#include "core/thread_pool.h"
#include "io/image.h"
#include "io/transforms.h"
#include "nerf/model.h"

namespace radiant {

// Per-pixel extras a render can also produce (depth views, point clouds, the viewer's modes).
struct ViewExtras {
    // Of the scene alone (an unbounded scene's far sample, its background, does not count):
    ImageF opacity;  // 1 channel: 1 - transmittance left at the end of the ray
    ImageF depth;    // 1 channel: expected termination distance / opacity (unit-cube frame)
};

// A ray stops once its transmittance falls below this and counts as opaque: its colour is what it
// has gathered, divided by the opacity gathered (1 - T), so the last 1% of the ray's weight takes
// the colour of the part in front instead of the background. Training composites to 1e-4 (every
// sample's gradient counts there); rendering to 1e-2 this way evaluates 20% (lego-800) to 38% (fox)
// fewer densities and changes held-out PSNR by under 0.01 dB (BENCHMARKS.md, round 12).
constexpr float kRenderOpaqueTransmittance = 1e-2f;

// RGB image (values in [0, 1]) of the view from `camera_to_world` (world frame, OpenGL
// convention) through `camera`. Square blocks of pixels are rendered in parallel. `extras`, when
// given, receives opacity and depth images of the same size (a ray that turned opaque has opacity
// 1). `cancelled`, when given, is asked before each block: once it says yes the remaining blocks
// are skipped (the image is then incomplete; the viewer drops a frame the camera has already moved
// away from).
ImageF render_view(const NerfModel& model, const CameraIntrinsics& camera,
                   const std::array<float, 16>& camera_to_world, const float background[3],
                   ThreadPool& pool, ViewExtras* extras = nullptr,
                   const std::function<bool()>& cancelled = {});

}  // namespace radiant
