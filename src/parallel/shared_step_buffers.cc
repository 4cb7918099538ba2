#include "parallel/shared_step_buffers.h"

#include <new>

#include "parallel/communicator.h"

namespace radiant {

static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "the claim counter is shared between processes");

std::unique_ptr<SharedStepBuffers> SharedStepBuffers::allocate(Communicator& comm,
                                                               const ThreadPool& pool,
                                                               const SharedStepSizes& sizes) {
    auto round16 = [](size_t n) { return (n + 15) / 16 * 16; };  // 64-byte boundaries
    // Header: the claim counter on a line of its own, each chunk's sample and ray counts, the
    // gradient items' holders, then each chunk's loss.
    const size_t counts = round16(2 * sizes.chunks), holders = round16(sizes.gradient_items);
    const size_t losses = round16(2 * sizes.chunks);
    const size_t header = 16 + counts + holders + losses;
    const size_t S = sizes.samples_per_chunk, R = sizes.rays_per_chunk;
    const size_t chunk_stride = round16((6 + 2 * sizes.enc_dims) * S + (6 + sizes.view_dims) * R +
                                        sizes.mlp_params + R + 1);
    const size_t grid = round16(sizes.grid_cells);
    // Not zeroed: every buffer is written before it is read, and untouched pages of the window
    // cost no memory (the chunk capacity is a worst case several times the usual samples).
    std::unique_ptr<SharedSegments> window = SharedSegments::allocate(
        comm, header + sizes.chunks * chunk_stride + grid, SharedSegments::Layout::kOneCopy, false);
    if (!window) return nullptr;
    std::unique_ptr<SharedStepBuffers> b(new SharedStepBuffers());
    float* base = window->one_copy();
    b->m_sizes = sizes;
    b->m_claims = reinterpret_cast<std::atomic<uint64_t>*>(base);
    b->m_counts = reinterpret_cast<uint32_t*>(base + 16);
    b->m_holders = reinterpret_cast<uint32_t*>(base + 16 + counts);
    b->m_losses = reinterpret_cast<double*>(base + 16 + counts + holders);
    b->m_chunk_data = base + header;
    b->m_chunk_stride = chunk_stride;
    b->m_grid_data = b->m_chunk_data + sizes.chunks * chunk_stride;
    b->m_claimants = uint64_t(comm.sum(double(pool.size())));
    b->m_pool_size = size_t(pool.size());
    if (comm.is_root()) {
        new (b->m_claims) std::atomic<uint64_t>(0);
        for (size_t c = 0; c < sizes.chunks; ++c) b->samples(c) = b->rays(c) = 0, b->loss(c) = 0;
    }
    b->m_window = std::move(window);
    b->fence();
    return b;
}

}  // namespace radiant
