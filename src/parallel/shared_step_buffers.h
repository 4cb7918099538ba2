// A training step's chunks in one MPI shared window, for ranks that all run on this machine:
// each chunk's marched samples (mapped positions, step lengths, distances, rays), its rays'
// targets, backgrounds and encoded view directions, the hash-grid encoding and its gradient, the
// chunk's MLP gradient and loss, and a block of occupancy-grid cells. Every rank still marches its
// own chunks (only it staged their images), but the rest of the step is shared out like threads
// share it, by claiming work items from a counter in the window:
//   - the hash grid's levels, forward and backward, each over every rank's samples, so no
//     table is walked twice a step;
//   - the chunks' MLP forward, compositing, loss and backward, so a rank on a slower core (a
//     VM's vCPUs vary) takes fewer chunks instead of keeping the other waiting;
//   - the sum of the chunks' MLP gradients, block by block in chunk order;
//   - an occupancy update's densities, block by block of cells.
// Each gradient is then whole in the claiming rank's gradient segment and zero in the others,
// which the exchange's rank-order sum leaves exact: the bits do not depend on who claimed what.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/error.h"
#include "core/thread_pool.h"
#include "parallel/shared_segments.h"

namespace radiant {

class Communicator;

struct SharedStepSizes {
    size_t chunks = 0;
    size_t samples_per_chunk = 0;  // most samples a chunk can hold
    size_t rays_per_chunk = 0;     // most rays a chunk can hold
    size_t enc_dims = 0;           // encoding values per sample
    size_t view_dims = 0;          // encoded view-direction values per ray
    size_t mlp_params = 0;         // a chunk's MLP gradient
    size_t grid_cells = 0;         // most cells one occupancy update evaluates
    size_t gradient_items = 0;     // work items that each leave a part of the gradients whole
};

class SharedStepBuffers {
  public:
    // Null where SharedSegments::allocate gives no window (ranks on several machines, one rank,
    // no MPI, no room in /dev/shm). Collective; `pool` is this rank's pool, whose threads all
    // claim.
    static std::unique_ptr<SharedStepBuffers> allocate(Communicator& comm, const ThreadPool& pool,
                                                       const SharedStepSizes& sizes);

    const SharedStepSizes& sizes() const { return m_sizes; }
    // Threads that claim work, over all ranks.
    size_t claimants() const { return size_t(m_claimants); }

    // Chunk c. Per sample: positions as the encoding sees them [n][3], step lengths [n],
    // distances from the camera [n], the sample's ray [n], and the encoding and its gradient
    // feature-major with the chunk's sample count as the stride. Per ray: first sample (rays +
    // 1 entries), target and background colours, encoded view direction.
    float* mapped(size_t c) { return chunk(c); }
    float* dt(size_t c) { return mapped(c) + 3 * m_sizes.samples_per_chunk; }
    float* t(size_t c) { return dt(c) + m_sizes.samples_per_chunk; }
    uint32_t* sample_ray(size_t c) {
        return reinterpret_cast<uint32_t*>(t(c) + m_sizes.samples_per_chunk);
    }
    float* enc(size_t c) { return t(c) + 2 * m_sizes.samples_per_chunk; }
    float* d_enc(size_t c) { return enc(c) + m_sizes.enc_dims * m_sizes.samples_per_chunk; }
    float* target(size_t c) { return d_enc(c) + m_sizes.enc_dims * m_sizes.samples_per_chunk; }
    float* background(size_t c) { return target(c) + 3 * m_sizes.rays_per_chunk; }
    float* view(size_t c) { return background(c) + 3 * m_sizes.rays_per_chunk; }
    float* mlp_grad(size_t c) { return view(c) + m_sizes.view_dims * m_sizes.rays_per_chunk; }
    uint32_t* ray_begin(size_t c) {
        return reinterpret_cast<uint32_t*>(mlp_grad(c) + m_sizes.mlp_params);
    }
    uint32_t& samples(size_t c) { return m_counts[2 * c]; }  // set by the rank that marched it
    uint32_t& rays(size_t c) { return m_counts[2 * c + 1]; }
    double& loss(size_t c) { return m_losses[c]; }  // set by the rank that trained it
    // The rank that claimed gradient item i this step, whose gradient buffer alone holds it.
    uint32_t& holder(size_t i) { return m_holders[i]; }

    // The densities of an occupancy update's cells.
    float* grid_density() { return m_grid_data; }

    // Calls f(i, thread) for every i in [0, n) once over all ranks, each of every rank's
    // threads claiming the next i as it finishes. Every rank calls it with the same n, and two
    // calls are separated by a fence (a rank must not claim the next call's items while
    // another still claims this call's).
    template <class F>
    void claim_each(ThreadPool& pool, size_t n, F&& f) {
        RD_CHECK(size_t(pool.size()) == m_pool_size);  // the claimants counted at allocation
        pool.parallel_for(size_t(pool.size()), [&](size_t, int t) {
            for (uint64_t i = m_claims->fetch_add(1, std::memory_order_relaxed) - m_base; i < n;
                 i = m_claims->fetch_add(1, std::memory_order_relaxed) - m_base)
                f(size_t(i), t);
        });
        // Every item was claimed once, and every claiming loop of every rank ended on one
        // claim past the end: where the counter stands now on every rank.
        m_base += n + m_claimants;
    }

    // Every rank's writes so far visible to all, and every rank arrived (a barrier).
    void fence() { m_window->fence(); }

  private:
    SharedStepBuffers() = default;
    float* chunk(size_t c) { return m_chunk_data + c * m_chunk_stride; }

    std::unique_ptr<SharedSegments> m_window;
    SharedStepSizes m_sizes;
    std::atomic<uint64_t>* m_claims = nullptr;
    uint64_t m_base = 0;       // the counter's value when the current claim_each began
    uint64_t m_claimants = 0;  // claiming loops over all ranks (their threads)
    size_t m_pool_size = 0;    // this rank's threads
    uint32_t* m_counts = nullptr;
    uint32_t* m_holders = nullptr;
    double* m_losses = nullptr;
    float* m_chunk_data = nullptr;
    float* m_grid_data = nullptr;
    size_t m_chunk_stride = 0;
};

}  // namespace radiant
