// A render request as the viewer's page (or a script) sends it to POST /api/render: a camera in
// the transforms.json convention plus what to draw. Parsing validates every field and bounds
// the image size, so a request can neither crash the server nor make it allocate without limit.
//
//   {"transform_matrix": 4x4 camera-to-world (world frame, OpenGL axes),
//    "camera_angle_x": a | "fl_x": f, ["fl_y", "cx", "cy"], "w": W, "h": H,
//    "background": "white" | "black" | [r, g, b], "mode": "rgb" | "depth" | "opacity",
//    "format": "png" | "jpeg", "quality": 1..100, "client": "id", "seq": n}
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "io/transforms.h"

namespace radiant {

enum class RenderMode { kRgb, kDepth, kOpacity };

struct RenderRequest {
    CameraIntrinsics camera;
    std::array<float, 16> camera_to_world{};
    std::array<float, 3> background{1, 1, 1};
    RenderMode mode = RenderMode::kRgb;
    bool jpeg = false;
    int quality = 85;
    std::string client;  // with seq: a newer request from the same client cancels this one
    uint64_t seq = 0;
};

// Largest image a request may ask for (pixels per side, and in all).
constexpr int kMaxRenderSide = 4096;
constexpr long long kMaxRenderPixels = 4096LL * 4096LL;

// Throws Error (file "request") with a one-line reason for malformed JSON or fields.
RenderRequest parse_render_request(const std::string& body);

}  // namespace radiant
