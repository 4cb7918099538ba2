#include "scene/sample_batch.h"

#include <cstring>

namespace radiant {

void SampleBatch::append(uint32_t ray, const RaySample* samples, size_t m,
                         const EncodingFrame& frame) {
    const size_t end = m_n + m;
    if (m_dt.size() < end) {  // grow with headroom, never shrink
        const size_t cap = end + end / 2;
        m_pos.resize(3 * cap), m_dt.resize(cap), m_t.resize(cap), m_ray.resize(cap);
    }
    for (size_t s = 0; s < m; ++s) {
        const float p[3] = {samples[s].position.x, samples[s].position.y, samples[s].position.z};
        frame.map(p, 1, &m_pos[3 * (m_n + s)]);
        m_dt[m_n + s] = samples[s].dt;
        m_t[m_n + s] = samples[s].t;
        m_ray[m_n + s] = ray;
    }
    m_n = end;
}

size_t compact_samples(SampleSpan& s, uint32_t* ray_begin, size_t rays, const uint32_t* keep) {
    uint32_t kept = 0;
    for (size_t r = 0; r < rays; ++r) {
        const uint32_t s0 = ray_begin[r], used = keep[r];
        ray_begin[r] = kept;
        if (kept != s0) {  // kept <= s0: moving forward never overwrites what is still to move
            std::memmove(s.pos + 3 * kept, s.pos + 3 * s0, sizeof(float) * 3 * used);
            std::memmove(s.dt + kept, s.dt + s0, sizeof(float) * used);
            std::memmove(s.t + kept, s.t + s0, sizeof(float) * used);
            std::memmove(s.ray + kept, s.ray + s0, sizeof(uint32_t) * used);
        }
        kept += used;
    }
    ray_begin[rays] = kept;
    s.n = kept;
    return kept;
}

}  // namespace radiant
