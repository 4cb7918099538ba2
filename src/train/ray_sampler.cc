#include "train/ray_sampler.h"

#include <algorithm>

#include "core/rng.h"

namespace radiant {

void RaySampler::draw(uint64_t seed, uint64_t step, size_t chunk, size_t count,
                      RayBatch& out) const {
    Pcg32 rng = stream_for(seed, step, chunk);
    out.rays.resize(count);
    out.target.resize(3 * count);
    out.background.resize(3 * count);
    for (size_t r = 0; r < count; ++r) {
        const size_t img = rng.next_below(uint32_t(m_images.images.size()));
        const StagedImage& im = m_images.images[img];
        const float px = rng.next_float() * im.width, py = rng.next_float() * im.height;
        float* bg = &out.background[3 * r];
        for (int k = 0; k < 3; ++k) bg[k] = rng.next_float();
        const uint8_t* p =
            m_images.pixel(img, std::min(int(px), im.width - 1), std::min(int(py), im.height - 1));
        const float a = p[3] / 255.0f;  // staged colours are premultiplied by alpha
        for (int k = 0; k < 3; ++k) out.target[3 * r + k] = p[k] / 255.0f + (1.0f - a) * bg[k];
        out.rays[r] = camera_ray(im.camera, im.camera_to_world, m_scene, px, py);
    }
}

}  // namespace radiant
