#include "train/step_chunks.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "parallel/communicator.h"

namespace radiant {

std::unique_ptr<SharedStepBuffers> share_step(Communicator& comm, const ThreadPool& pool,
                                              const StepShape& shape) {
    // A chunk holds at most a rank's rays (never above ceil(most / ranks), the most any
    // part_of() gives) over its fewest chunks, rounded up, plus the end entry of ray_begin.
    const size_t ranks = size_t(comm.size());
    const size_t rank_rays = (shape.most_rays + ranks - 1) / ranks,
                 rank_chunks = shape.chunks / ranks;
    SharedStepSizes sizes;
    sizes.chunks = shape.chunks;
    sizes.samples_per_chunk = shape.samples_per_chunk;
    sizes.rays_per_chunk = (rank_rays + rank_chunks - 1) / rank_chunks + 1;
    sizes.enc_dims = shape.enc_dims;
    sizes.view_dims = shape.view_dims;
    sizes.mlp_params = shape.mlp_params;
    sizes.grid_cells = shape.grid_cells;
    sizes.gradient_items = shape.gradient_items;
    return SharedStepBuffers::allocate(comm, pool, sizes);
}

StepChunks::StepChunks(size_t chunks, SharedStepBuffers* shared, size_t enc_dims, size_t view_dims,
                       size_t mlp_params)
    : m_marched(chunks), m_shared(shared), m_enc_dims(enc_dims), m_view_dims(view_dims) {
    if (!m_shared) {
        m_local.resize(chunks);
        for (Local& l : m_local) l.grad.assign(mlp_params, 0.0f);
    }
}

void StepChunks::publish(size_t c) {
    MarchedChunk& ch = m_marched[c];
    const size_t n = ch.n();
    if (m_shared) {
        SharedStepBuffers& sh = *m_shared;
        RD_CHECK(n <= sh.sizes().samples_per_chunk && ch.rays < sh.sizes().rays_per_chunk);
        const SampleSpan s = ch.samples.span();
        sh.samples(c) = uint32_t(n);
        sh.rays(c) = uint32_t(ch.rays);
        std::copy(ch.ray_begin.begin(), ch.ray_begin.end(), sh.ray_begin(c));
        std::copy_n(ch.batch.target.begin(), 3 * ch.rays, sh.target(c));
        std::copy_n(ch.batch.background.begin(), 3 * ch.rays, sh.background(c));
        std::copy_n(ch.view.begin(), m_view_dims * ch.rays, sh.view(c));
        std::copy_n(s.pos, 3 * n, sh.mapped(c));
        std::copy_n(s.dt, n, sh.dt(c));
        std::copy_n(s.t, n, sh.t(c));
        std::copy_n(s.ray, n, sh.sample_ray(c));
        return;
    }
    Local& l = m_local[c];
    const size_t room =
        std::max<size_t>(n, 1);  // keeps data() + offset valid when no ray hit anything
    grow_to(l.enc, m_enc_dims * room);
    grow_to(l.d_enc, m_enc_dims * room);
}

ChunkView StepChunks::view(size_t c) {
    ChunkView v;
    if (m_shared) {
        SharedStepBuffers& sh = *m_shared;
        v.n = sh.samples(c);
        v.rays = sh.rays(c);
        v.samples = {sh.mapped(c), sh.dt(c), sh.t(c), sh.sample_ray(c), v.n};
        v.ray_begin = sh.ray_begin(c);
        v.target = sh.target(c);
        v.background = sh.background(c);
        v.view = sh.view(c);
        v.enc = sh.enc(c);
        v.d_enc = sh.d_enc(c);
        v.grad = sh.mlp_grad(c);
        v.loss = &sh.loss(c);
        // The trainer overwrites the shared sample count with the compacted one, which the
        // hash backward then reads as its count and stride (no field of its own in the window).
        v.trained = &sh.samples(c);
        return v;
    }
    MarchedChunk& ch = m_marched[c];
    Local& l = m_local[c];
    v.n = ch.n();
    v.rays = ch.rays;
    v.samples = ch.samples.span();
    v.ray_begin = ch.ray_begin.data();
    v.target = ch.batch.target.data();
    v.background = ch.batch.background.data();
    v.view = ch.view.data();
    v.enc = l.enc.data();
    v.d_enc = l.d_enc.data();
    v.grad = l.grad.data();
    v.loss = &l.loss;
    v.trained = &l.trained;
    return v;
}

void keep_samples(ChunkView& ch, const uint32_t* keep, size_t enc_dims) {
    thread_local std::vector<uint32_t> from;  // each ray's first sample before
    from.assign(ch.ray_begin, ch.ray_begin + ch.rays + 1);
    const size_t n = ch.n, kept = compact_samples(ch.samples, ch.ray_begin, ch.rays, keep);
    // The encoding's row k moves from k * n to k * kept: rows in order, each's rays in order, so
    // every move reads from at or after where it writes, before anything overwrites it.
    if (kept != n)
        for (size_t k = 0; k < enc_dims; ++k)
            for (size_t r = 0; r < ch.rays; ++r)
                std::memmove(ch.enc + k * kept + ch.ray_begin[r], ch.enc + k * n + from[r],
                             sizeof(float) * (ch.ray_begin[r + 1] - ch.ray_begin[r]));
    ch.n = kept;
}

}  // namespace radiant
