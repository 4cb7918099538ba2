// The ranks of a data-parallel run and the few collectives training needs. Under `mpirun` or
// `srun` it joins MPI (OpenMPI's UCX transport rides InfiniBand/RoCE where the cluster has
// it); started plainly it is one rank and never touches MPI, so one binary serves both.
//
// Every reduction sums in rank order (rank 0 + rank 1 + ...), whatever the MPI library's own
// algorithms would do, so a run is bit-identical for a given seed, rank and thread count:
// a reduce-scatter sends each rank the others' copies of its shard and sums them in order, and an
// allreduce is that reduce-scatter followed by an allgather of the summed shards. Both move
// 2 (N-1)/N of the buffer per rank, the same as a ring allreduce.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace radiant {

// What gradients travel as: fp32, or bf16 (half the bytes) summed in fp32 on arrival.
enum class WireFormat { kFp32, kBf16 };

struct ShardRange {
    size_t begin = 0, end = 0;
    size_t size() const { return end - begin; }
};

class Communicator {
  public:
    // One rank, no MPI.
    Communicator() = default;
    // This process's ranks, joined on first use: MPI when the process was started by an MPI
    // launcher (its environment says so and the build has MPI), else one rank. MPI is
    // finalised at exit. Throws Error when launched by mpirun without MPI built in.
    static Communicator& world();
    ~Communicator();
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    bool is_root() const { return m_rank == 0; }
    bool distributed() const { return m_size > 1; }
    // Ranks on this machine (for the default thread count).
    int local_size() const { return m_local_size; }

    // The part of [0, n) rank r owns: contiguous, split evenly, boundaries on 16 elements
    // (64 bytes) so shards do not share cache lines.
    static ShardRange shard(size_t n, int r, int size);
    ShardRange my_shard(size_t n) const { return shard(n, m_rank, m_size); }

    // On return my_shard(n) of `data` holds the sum over ranks of their `data`, in rank
    // order; the rest of `data` is unchanged.
    void reduce_scatter_sum(float* data, size_t n, WireFormat wire);
    // Every rank's shard of `data` to every rank (in place).
    void allgather_shards(float* data, size_t n);
    // reduce_scatter_sum then allgather_shards: every rank ends with the same sum.
    void allreduce_sum(float* data, size_t n, WireFormat wire);

    // Each rank's `mine` (the same length on every rank), concatenated in rank order.
    std::vector<double> allgather(const std::vector<double>& mine);
    // The same into `all` (k x size() values), allocating nothing: for every training step.
    void allgather(const double* mine, size_t k, double* all);
    // Sums in rank order / takes the maximum / ors a flag over ranks.
    double sum(double mine);
    double max(double mine);
    bool any(bool mine);
    // Each rank's string, in rank order (start-up only: two collectives).
    std::vector<std::string> allgather_strings(const std::string& mine);

    // Bytes this rank sent in collectives so far (for the communication share).
    uint64_t bytes_sent() const { return m_bytes_sent; }

    // Ends every rank of the job now (a failing rank must not leave the others waiting).
    [[noreturn]] void abort(int exit_code);

  private:
    void join_mpi();

    bool m_mpi = false;
    int m_rank = 0, m_size = 1, m_local_size = 1;
    uint64_t m_bytes_sent = 0;
    std::vector<float>
        m_recv;  // landing area for the other ranks' copies of my shard: size x shard
    std::vector<uint16_t> m_send16, m_recv16;  // bf16 wire buffers
    std::vector<int> m_counts, m_displs;       // per-rank counts and offsets for the v-collectives
    std::vector<char> m_requests;              // MPI_Request storage for the point-to-point sends
};

// Whether this build can join MPI.
bool mpi_built_in();

}  // namespace radiant
