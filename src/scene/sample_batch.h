// Marched samples as the field reads them: a structure of arrays that the marcher's caller fills
// ray by ray. Positions are stored already in the encoding's frame (EncodingFrame), so nothing
// copies or maps them again before the hash grid reads them; a sample's view direction is not
// stored: each sample names its ray, whose direction is encoded once (per ray, not per sample).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/aligned.h"
#include "scene/contraction.h"
#include "scene/marcher.h"

namespace radiant {

// The frame the hash grid encodes: the scene box [0.5 - s/2, 0.5 + s/2]^3 of the unit-cube
// frame (s = aabb_scale) as [0, 1]^3; or, for an unbounded scene, all of space contracted
// (scene/contraction.h) into [-2, 2]^3, as [0, 1]^3.
struct EncodingFrame {
    float aabb_scale = 1.0f;
    SceneContraction contraction;
    // n positions [n][3] (unit-cube frame) into out [n][3].
    void map(const float* positions, size_t n, float* out) const {
        if (contraction.enabled()) {
            for (size_t i = 0; i < n; ++i) {
                const float* p = positions + 3 * i;
                const Vec3 c = contraction.contract({p[0], p[1], p[2]});
                out[3 * i] = c.x * 0.25f + 0.5f;
                out[3 * i + 1] = c.y * 0.25f + 0.5f;
                out[3 * i + 2] = c.z * 0.25f + 0.5f;
            }
            return;
        }
        const float inv = 1.0f / aabb_scale;
        for (size_t i = 0; i < 3 * n; ++i) out[i] = (positions[i] - 0.5f) * inv + 0.5f;
    }
};

// A batch's per-sample arrays, wherever they live (a SampleBatch, or the step's shared memory).
struct SampleSpan {
    float* pos = nullptr;     // [n][3], encoding frame
    float* dt = nullptr;      // [n] step lengths (unit-cube frame)
    float* t = nullptr;       // [n] distances from the ray's origin (unit-cube frame)
    uint32_t* ray = nullptr;  // [n] the sample's ray, an index into the batch's rays
    size_t n = 0;
};

class SampleBatch {
  public:
    size_t size() const { return m_n; }
    void clear() { m_n = 0; }
    // Appends the m samples (marcher output, in order) of ray `ray`. The arrays grow as needed
    // and never shrink, so a batch reused per chunk or per block of pixels stops allocating.
    void append(uint32_t ray, const RaySample* samples, size_t m, const EncodingFrame& frame);
    SampleSpan span() { return {m_pos.data(), m_dt.data(), m_t.data(), m_ray.data(), m_n}; }

  private:
    AlignedVector<float> m_pos, m_dt, m_t;
    AlignedVector<uint32_t> m_ray;
    size_t m_n = 0;
};

// Keeps the first keep[r] samples of each ray r, whose samples are [ray_begin[r],
// ray_begin[r + 1]) of `s` (rays back to back, in order), and moves them forward in place:
// rays keep their order and samples theirs. Rewrites ray_begin (rays + 1 entries) and returns
// the new sample count (also in s.n).
size_t compact_samples(SampleSpan& s, uint32_t* ray_begin, size_t rays, const uint32_t* keep);

}  // namespace radiant
