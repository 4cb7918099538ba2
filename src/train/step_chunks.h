// A training step's chunks: the rays a chunk drew, their marched samples, the hash encoding
// and its gradient, the chunk's MLP gradient and loss. Each rank marches its chunks into its own
// buffers; the rest of the step reads and writes a chunk through a ChunkView, which points into
// those buffers, or into the step's shared-memory buffers (SharedStepBuffers) when the ranks of
// one machine share the step, wherever the rank that trains the chunk runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/aligned.h"
#include "parallel/shared_step_buffers.h"
#include "scene/marcher.h"
#include "scene/sample_batch.h"
#include "train/ray_sampler.h"

namespace radiant {

// What training a marched chunk reads and writes. Per-sample arrays (samples) hold n samples;
// enc and d_enc are feature-major with row stride n.
struct ChunkView {
    size_t n = 0, rays = 0;
    SampleSpan samples;  // positions in the encoding's frame, step lengths, distances, rays
    uint32_t* ray_begin = nullptr;  // per ray: first sample (+1 entry at the end)
    const float *target = nullptr, *background = nullptr;  // per ray, 3 each
    const float* view = nullptr;  // per ray: the encoded view direction [rays][view_dims]
    float *enc = nullptr, *d_enc = nullptr, *grad = nullptr;
    double* loss = nullptr;
    uint32_t* trained =
        nullptr;  // receives n after compaction: the hash backward's count and stride
};

// A chunk as this rank marched it.
struct MarchedChunk {
    RayBatch batch;                   // the rays drawn; the first `rays` were marched
    std::vector<RaySample> march;     // marcher output for one ray, reused
    std::vector<uint32_t> ray_begin;  // per marched ray: first sample (+1 entry at the end)
    SampleBatch samples;              // marched samples
    AlignedVector<float> directions;  // per marched ray [rays][3]
    AlignedVector<float> view;        // per marched ray, encoded [rays][view_dims]
    size_t rays = 0;  // rays marched (the sample budget may stop before the batch's end)
    size_t n() const { return samples.size(); }
};

// What the step's chunks hold at most, for buffers that cannot grow (shared memory).
struct StepShape {
    size_t chunks = 0;
    size_t samples_per_chunk = 0;  // the sample budget plus one ray's samples
    size_t most_rays = 0;          // the most rays a step can draw over all ranks
    size_t enc_dims = 0, view_dims = 0, mlp_params = 0, grid_cells = 0, gradient_items = 0;
};
// The step's chunks in memory that every rank of this machine maps, sized for `shape`; null
// where no shared window can be had (one rank, ranks on several machines, no MPI). Collective.
std::unique_ptr<SharedStepBuffers> share_step(Communicator& comm, const ThreadPool& pool,
                                              const StepShape& shape);

// Grows a buffer to at least n elements (with headroom) and never shrinks it, so steady-state
// steps reuse memory instead of allocating.
template <class V>
void grow_to(V& v, size_t n) {
    if (v.size() < n) v.resize(n + n / 4);
}

// Keeps the first keep[r] samples of each of the chunk's rays, in place (rays keep their order,
// samples theirs): the samples, and the encoding's rows re-strided to the new count (n).
void keep_samples(ChunkView& ch, const uint32_t* keep, size_t enc_dims);

class StepChunks {
  public:
    // `shared`: the step's shared buffers (null: every chunk lives in this rank's memory).
    StepChunks(size_t chunks, SharedStepBuffers* shared, size_t enc_dims, size_t view_dims,
               size_t mlp_params);

    MarchedChunk& marched(size_t c) { return m_marched[c]; }
    const MarchedChunk& marched(size_t c) const { return m_marched[c]; }
    // Makes marched chunk c ready to train: its buffers sized, in this rank's memory, or it is
    // copied into the shared buffers.
    void publish(size_t c);
    // Chunk c as the rest of the step sees it (after every rank published its chunks).
    ChunkView view(size_t c);

  private:
    struct Local {
        AlignedVector<float> enc;    // feature-major [L*F][n], the hash-grid forward
        AlignedVector<float> d_enc;  // feature-major [L*F][n], for the hash backward
        AlignedVector<float> grad;   // MLP gradients (density + colour)
        uint32_t trained = 0;
        double loss = 0;
    };
    std::vector<MarchedChunk> m_marched;
    std::vector<Local> m_local;  // empty when the step is shared
    SharedStepBuffers* m_shared;
    size_t m_enc_dims, m_view_dims;
};

}  // namespace radiant
