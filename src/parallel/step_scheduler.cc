#include "parallel/step_scheduler.h"

namespace radiant {

StepScheduler::StepScheduler(ThreadPool& pool, Communicator* comm, size_t chunks,
                             std::unique_ptr<SharedStepBuffers> shared, size_t cell_block,
                             size_t tile)
    : m_pool(pool),
      m_comm(comm),
      m_chunks(chunks),
      m_cell_block(cell_block),
      m_shared(std::move(shared)) {
    RD_CHECK(ranks() <= chunks && cell_block % tile == 0);
    m_marched_begin = chunks * rank() / ranks();
    m_marched_end = chunks * (rank() + 1) / ranks();
    if (m_shared) {
        // Large claimed blocks pay (on 2 ranks, lego-200's grid updates took 18 ms a step with
        // 256 K cells a claim, 32 ms with 16 K: BENCHMARKS.md, "Ranks on one machine share the
        // step's work"). The same size on every rank, whole tiles (so the density MLP's tiles
        // fall alike whatever the threads), 2^19 cells' scratch over all threads.
        m_cell_block =
            std::max(cell_block / 4, (size_t(1) << 19) / m_shared->claimants() / tile * tile);
    }
}

int StepScheduler::holder(size_t item) {
    if (!m_shared) return -1;
    const uint32_t r = m_shared->holder(item);
    RD_CHECK(r < ranks());
    return int(r);
}

}  // namespace radiant
