// The end of a data-parallel training step: every rank's gradients summed over ranks (in rank
// order) and handed to Adam, every rank left holding the same updated parameters and a zeroed
// gradient buffer for the next step. Four ways, chosen once at start-up, all giving the same
// bits for a given seed, rank and thread count:
//
//   kLocal           one rank: Adam on this process's gradients.
//   kSharedMemory    every rank on this machine, sharded Adam, fp32 gradients: each rank sums
//                    its shard straight out of the others' gradient buffers (SharedSegments)
//                    block by block as Adam reaches it (or reads a block in place where one
//                    rank alone holds it), and updates one shared copy of the parameters in
//                    place; a fence replaces the allgather.
//   kShardedMessages reduce-scatter, Adam on this rank's shard, allgather of the parameters.
//   kReplicated      allreduce, the whole Adam on every rank.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "core/aligned.h"
#include "parallel/communicator.h"
#include "parallel/shared_segments.h"

namespace radiant {

class Adam;
class ThreadPool;

enum class ExchangeKind { kLocal, kSharedMemory, kShardedMessages, kReplicated };

struct ExchangeOptions {
    bool shard_optimizer = true;          // false: kReplicated
    bool shared_memory = true;            // false: never kSharedMemory
    WireFormat wire = WireFormat::kFp32;  // bf16 travels only as messages
};

class GradientExchange {
  public:
    // Collective when `comm` is distributed (null: one rank). `n_params`: the parameter count.
    GradientExchange(Communicator* comm, size_t n_params, const ExchangeOptions& options);
    // With kSharedMemory: waits until every rank is done with the shared parameters (collective;
    // skipped while an exception unwinds, the process is ending then).
    ~GradientExchange();
    GradientExchange(const GradientExchange&) = delete;
    GradientExchange& operator=(const GradientExchange&) = delete;

    ExchangeKind kind() const { return m_kind; }
    // This rank's gradient buffer (n_params floats), zero at the start of every step.
    float* gradients() { return m_grads; }

    // With kSharedMemory, the one copy of the parameters all ranks of the machine update:
    // root copies `current` into it, and every rank gets it back once it is there (collective).
    // Null (and nothing copied) for the other kinds: each rank keeps its own parameters.
    float* share_parameters(const float* current);

    // Which part of the exchange a lap of the step's clock belongs to.
    enum class Phase { kExchange, kOptimizer };
    using Lap = std::function<void(Phase)>;
    // With kSharedMemory: the rank whose gradient buffer alone holds [begin, end) this step
    // (every other rank's holds zeros there), or -1 when several may hold parts of it. Adam
    // then reads that rank's gradients in place instead of summing every rank's.
    using Holder = std::function<int(size_t begin, size_t end)>;
    // Sums the step's gradients over ranks, updates `params` (n_params floats, the same on every
    // rank) with `adam`, and zeroes the gradients. `lap` (may be empty) is called as each part
    // ends, for the trainer's phase times; `holder` may be empty.
    void update(float* params, Adam& adam, ThreadPool& pool, const Lap& lap = {},
                const Holder& holder = {});

    // Makes Adam's moments whole on every rank (a sharded optimiser keeps only its shard
    // current); collective, e.g. before a snapshot.
    void gather_optimizer_state(Adam& adam);

  private:
    Communicator* m_comm;
    size_t m_n;
    ExchangeKind m_kind = ExchangeKind::kLocal;
    WireFormat m_wire;
    float* m_grads = nullptr;
    AlignedVector<float> m_own_grads;                 // every kind but kSharedMemory
    std::unique_ptr<SharedSegments> m_shared_grads;   // kSharedMemory: one segment per rank
    std::unique_ptr<SharedSegments> m_shared_params;  // kSharedMemory: one copy, when it came
};

}  // namespace radiant
