// The first stage of a training step: which pixels it trains on. Each ray is a random pixel of
// a random training image, with a random background colour behind it (so the field cannot
// explain transparent pixels with any one colour) and the target that pixel composited over
// that background. The draws depend only on (seed, step, chunk), never on the thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/staging.h"
#include "scene/camera.h"

namespace radiant {

// A chunk's rays, in the order they were drawn.
struct RayBatch {
    std::vector<Ray> rays;
    std::vector<float> target, background;  // 3 per ray
    size_t size() const { return rays.size(); }
};

class RaySampler {
  public:
    // `images` (this rank's share) must outlive the sampler.
    RaySampler(const ImageSet& images, const SceneTransform& scene)
        : m_images(images), m_scene(scene) {}

    // Draws `count` rays for chunk `chunk` of step `step` into `out` (replacing what it held).
    void draw(uint64_t seed, uint64_t step, size_t chunk, size_t count, RayBatch& out) const;

  private:
    const ImageSet& m_images;
    SceneTransform m_scene;
};

}  // namespace radiant
