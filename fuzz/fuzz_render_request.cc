// The viewer's POST /api/render body through parse_render_request: every field validated, the
// image size bounded, whatever the bytes.
#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "fuzz_util.h"
#include "view/render_request.h"

using namespace radiant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const RenderRequest r =
            parse_render_request(std::string(reinterpret_cast<const char*>(data), size));
        // What the server relies on before it allocates the frame.
        FUZZ_ASSERT(r.camera.width >= 1 && r.camera.width <= kMaxRenderSide);
        FUZZ_ASSERT(r.camera.height >= 1 && r.camera.height <= kMaxRenderSide);
        FUZZ_ASSERT((long long)r.camera.width * r.camera.height <= kMaxRenderPixels);
        FUZZ_ASSERT(r.quality >= 1 && r.quality <= 100 && r.client.size() <= 64);
        FUZZ_ASSERT(std::isfinite(r.camera.fl_x) && std::isfinite(r.camera.fl_y) &&
                    r.camera.fl_x > 0 && r.camera.fl_y > 0);
        for (float v : r.camera_to_world) FUZZ_ASSERT(std::isfinite(v));
        for (float v : r.background) FUZZ_ASSERT(v >= 0 && v <= 1);
        fuzz::accepted("parse_render_request");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    return 0;
}
