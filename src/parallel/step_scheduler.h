// Where a training step's work runs, so that the trainer states its algorithm once.
//
// A step is phases of work items (hash levels, chunks, blocks of gradients, blocks of
// occupancy cells). Alone (one rank, or ranks that each train the chunks they marched and then
// exchange gradients as messages) a phase's items run over this rank's threads, on this rank's
// chunks. When the ranks of one machine share the step (SharedStepBuffers), every rank's
// threads claim the items of every rank's chunks as they come, so a rank on a slower core
// takes fewer; sync() is then a fence between phases, and the rank that claims a gradient item
// holds that part of the gradients whole (GradientExchange reads it where it lies).
//
// Chunks are global and fixed in number: rank r marches its contiguous share of them, from the
// images it staged.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>

#include "core/thread_pool.h"
#include "parallel/communicator.h"
#include "parallel/shared_step_buffers.h"

namespace radiant {

class StepScheduler {
  public:
    // `comm`: null for one rank. `shared`: the step's buffers in shared memory, or null (alone).
    // Occupancy cells are evaluated in blocks of `cell_block` cells alone (a multiple of
    // `tile`); shared, in larger blocks of whole tiles (see block_cells()).
    StepScheduler(ThreadPool& pool, Communicator* comm, size_t chunks,
                  std::unique_ptr<SharedStepBuffers> shared, size_t cell_block, size_t tile);

    ThreadPool& pool() { return m_pool; }
    size_t ranks() const { return m_comm ? size_t(m_comm->size()) : 1; }
    size_t rank() const { return m_comm ? size_t(m_comm->rank()) : 0; }
    bool distributed() const { return m_comm && m_comm->distributed(); }
    // The step's buffers when ranks share it, else null.
    SharedStepBuffers* shared() { return m_shared.get(); }

    // The chunks this rank marches: [marched_begin, marched_end).
    size_t marched_begin() const { return m_marched_begin; }
    size_t marched_end() const { return m_marched_end; }
    // The chunks the step's later phases cover: every rank's when they share the step.
    size_t chunks_begin() const { return m_shared ? 0 : m_marched_begin; }
    size_t chunks_end() const { return m_shared ? m_chunks : m_marched_end; }

    // Calls f(item, thread) once for every item in [0, n): over this rank's threads, each
    // taking the next item as it finishes, or claimed so over every rank's threads. Every rank
    // calls it with the same n; calls are separated by sync() when the step is shared.
    template <class F>
    void run(size_t n, F&& f) {
        if (m_shared)
            m_shared->claim_each(m_pool, n, f);
        else
            m_pool.parallel_for_dynamic(n, f);
    }
    // Between phases: every rank's writes visible to all when the step is shared; nothing alone.
    void sync() {
        if (m_shared) m_shared->fence();
    }
    // Records that this rank's gradient buffer holds item i this step (shared step only).
    void hold(size_t item) {
        if (m_shared) m_shared->holder(item) = uint32_t(rank());
    }
    // The rank whose gradient buffer alone holds item i, or -1 (alone, every rank holds its own).
    int holder(size_t item);

    // Values for n occupancy-grid cells, the same on every rank, into `out` on every rank.
    // `block(b0, nb, thread, dst)` writes cells [b0, b0 + nb) to dst[0, nb), for blocks of at
    // most block_cells() cells. Alone, each rank evaluates its shard of the cells and the shards
    // are swapped; shared, blocks are claimed over every rank's threads.
    template <class F>
    void evaluate_cells(size_t n, float* out, F&& block);
    // Most cells one block call gets: the callers' scratch per thread.
    size_t block_cells() const { return m_cell_block; }

  private:
    ThreadPool& m_pool;
    Communicator* m_comm;
    size_t m_chunks, m_marched_begin = 0, m_marched_end = 0;
    size_t m_cell_block;
    std::unique_ptr<SharedStepBuffers> m_shared;
};

template <class F>
void StepScheduler::evaluate_cells(size_t n, float* out, F&& block) {
    const size_t B = m_cell_block;
    if (m_shared) {
        RD_CHECK(n <= m_shared->sizes().grid_cells);
        float* density = m_shared->grid_density();
        m_shared->claim_each(m_pool, (n + B - 1) / B, [&](size_t i, int t) {
            const size_t b0 = i * B;
            block(b0, std::min(B, n - b0), t, density + b0);
        });
        m_shared->fence();  // every block written
        std::copy(density, density + n, out);
        // The next writer of the densities (the next update) first passes several fences of
        // the steps between, so no rank still copies them out then.
        return;
    }
    const ShardRange part = distributed() ? m_comm->my_shard(n) : ShardRange{0, n};
    m_pool.parallel_for_dynamic((part.size() + B - 1) / B, [&](size_t i, int t) {
        const size_t b0 = part.begin + i * B;
        block(b0, std::min(B, part.end - b0), t, out + b0);
    });
    if (distributed()) m_comm->allgather_shards(out, n);
}

}  // namespace radiant
