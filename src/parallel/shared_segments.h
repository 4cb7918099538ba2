// Node-local shared memory for the gradient exchange. When every rank of a job runs on this
// machine, each rank's gradient buffer is a segment of one MPI shared window, so rank r sums its
// shard straight out of the other ranks' segments: no copy travels, nothing waits in a receive
// buffer, and the reader zeroes what it has consumed (the owner would otherwise clear it).
// Across machines there is no such window and the communicator's messages carry gradients.
//
// The sum is in rank order, ((rank 0 + rank 1) + rank 2) + ..., exactly as
// Communicator::reduce_scatter_sum adds them, so both exchanges give the same bits.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace radiant {

class Communicator;

class SharedSegments {
  public:
    // kPerRank: one segment of n floats per rank (gradients). kOneCopy: a single array of n
    // floats that every rank maps (parameters: updated in place, one copy in cache).
    enum class Layout { kPerRank, kOneCopy };
    // Zeroed segments (`zeroed` false: left as the system maps them, so pages nobody writes cost
    // no memory); null when the ranks do not all share this machine, there is one rank, the
    // build has no MPI, /dev/shm lacks the room, or the window cannot be allocated.
    // Collective: every rank calls it with the same n and layout.
    static std::unique_ptr<SharedSegments> allocate(Communicator& comm, size_t n,
                                                    Layout layout = Layout::kPerRank,
                                                    bool zeroed = true);
    ~SharedSegments();  // collective, as the allocation (skipped while an exception unwinds)
    SharedSegments(const SharedSegments&) = delete;
    SharedSegments& operator=(const SharedSegments&) = delete;

    float* mine() { return m_segments[size_t(m_rank)]; }           // kPerRank
    float* segment(int rank) { return m_segments[size_t(rank)]; }  // kPerRank
    float* one_copy() { return m_segments[0]; }                    // kOneCopy

    // Every rank's writes to its segment so far are visible to every rank, and every rank has
    // arrived here (a barrier with the memory synchronisation MPI's shared windows ask for).
    void fence();
    // Makes this rank's writes (its sums and the zeros it left in other segments) visible;
    // a following collective orders them before the other ranks' next writes.
    void publish();
    // Between two fences, for [begin, begin + count) inside this rank's shard: my segment gets
    // the sum over ranks in rank order, and the other ranks' segments get zeros there (where
    // they hold only zeros, nothing is written: a block only this rank wrote keeps its values,
    // -0 included). Safe to call from several threads on disjoint ranges.
    void sum_into_mine(size_t begin, size_t count);

  private:
    SharedSegments() = default;

    int m_rank = 0;
    std::vector<float*> m_segments;  // every rank's segment, as this process maps it
    void* m_window = nullptr;        // MPI_Win, kept opaque so this header needs no mpi.h
};

}  // namespace radiant
