#include "parallel/gradient_exchange.h"

#include <algorithm>
#include <exception>

#include "core/thread_pool.h"
#include "nn/adam.h"

namespace radiant {

GradientExchange::GradientExchange(Communicator* comm, size_t n_params,
                                   const ExchangeOptions& options)
    : m_comm(comm), m_n(n_params), m_wire(options.wire) {
    if (m_comm && m_comm->distributed()) {
        m_kind =
            options.shard_optimizer ? ExchangeKind::kShardedMessages : ExchangeKind::kReplicated;
        // (every rank gets the same answer from the collective allocation)
        if (options.shard_optimizer && options.shared_memory && options.wire == WireFormat::kFp32)
            m_shared_grads = SharedSegments::allocate(*m_comm, n_params);
        if (m_shared_grads) m_kind = ExchangeKind::kSharedMemory;
    }
    if (m_shared_grads) {
        m_grads = m_shared_grads->mine();
    } else {
        m_own_grads.assign(n_params, 0.0f);
        m_grads = m_own_grads.data();
    }
}

GradientExchange::~GradientExchange() {
    if (!m_shared_params || std::uncaught_exceptions() > 0) return;  // unwinding: the process ends
    m_shared_params->fence();  // nobody frees the window while another rank still reads it
}

float* GradientExchange::share_parameters(const float* current) {
    if (m_kind != ExchangeKind::kSharedMemory) return nullptr;
    if (!m_shared_params)
        m_shared_params = SharedSegments::allocate(*m_comm, m_n, SharedSegments::Layout::kOneCopy);
    if (!m_shared_params) return nullptr;  // (all ranks agree; the parameters are gathered then)
    if (m_comm->is_root()) std::copy(current, current + m_n, m_shared_params->one_copy());
    m_shared_params->fence();
    return m_shared_params->one_copy();
}

void GradientExchange::update(float* params, Adam& adam, ThreadPool& pool, const Lap& lap,
                              const Holder& holder) {
    auto lap_of = [&](Phase p) {
        if (lap) lap(p);
    };
    switch (m_kind) {
        case ExchangeKind::kLocal:
            adam.step(params, m_grads, pool);
            lap_of(Phase::kOptimizer);
            return;
        case ExchangeKind::kSharedMemory: {
            // Each block of my shard is summed out of every rank's segment just before Adam
            // updates it (the other ranks' copies are zeroed as they are read), or, where one
            // rank alone holds the block, read and zeroed in place in that rank's segment.
            const ShardRange mine = m_comm->my_shard(m_n);
            m_shared_grads->fence();
            lap_of(Phase::kExchange);
            adam.step(params, m_grads, pool, mine.begin, mine.end, [&](size_t first, size_t n) {
                const int r = holder ? holder(first, first + n) : -1;
                if (r >= 0) return m_shared_grads->segment(r) + first;  // Adam zeroes it there
                m_shared_grads->sum_into_mine(first, n);
                return m_grads + first;
            });
            m_shared_grads->publish();
            lap_of(Phase::kOptimizer);
            if (m_shared_params && params == m_shared_params->one_copy())
                m_shared_params->fence();  // every shard updated in the one copy
            else
                m_comm->allgather_shards(params, m_n);
            lap_of(Phase::kExchange);
            return;
        }
        case ExchangeKind::kShardedMessages: {
            const ShardRange mine = m_comm->my_shard(m_n);
            m_comm->reduce_scatter_sum(m_grads, m_n, m_wire);
            lap_of(Phase::kExchange);
            adam.step(params, m_grads, pool, mine.begin, mine.end);
            // Adam zeroed my shard; the rest still holds what this rank sent.
            std::fill(m_grads, m_grads + mine.begin, 0.0f);
            std::fill(m_grads + mine.end, m_grads + m_n, 0.0f);
            lap_of(Phase::kOptimizer);
            m_comm->allgather_shards(params, m_n);
            lap_of(Phase::kExchange);
            return;
        }
        case ExchangeKind::kReplicated:
            m_comm->allreduce_sum(m_grads, m_n, m_wire);
            lap_of(Phase::kExchange);
            adam.step(params, m_grads, pool);
            lap_of(Phase::kOptimizer);
            return;
    }
}

void GradientExchange::gather_optimizer_state(Adam& adam) {
    if (m_kind != ExchangeKind::kSharedMemory && m_kind != ExchangeKind::kShardedMessages) return;
    m_comm->allgather_shards(adam.first_moment().data(), adam.first_moment().size());
    m_comm->allgather_shards(adam.second_moment().data(), adam.second_moment().size());
}

}  // namespace radiant
