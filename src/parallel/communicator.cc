#include "parallel/communicator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

#ifdef RADIANT_HAVE_MPI
#include <mpi.h>
#endif

namespace radiant {

namespace {

// Launchers announce themselves in the environment: OpenMPI's mpirun (OMPI_*), PMIx (srun
// --mpi=pmix, OpenMPI 4's own launcher) and PMI-1/2 (srun --mpi=pmi2, MPICH's hydra).
bool launched_by_mpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(v)) return true;
    return false;
}

uint16_t to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest, ties to even
    return uint16_t(u >> 16);
}

float from_bf16(uint16_t h) {
    const uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

}  // namespace

bool mpi_built_in() {
#ifdef RADIANT_HAVE_MPI
    return true;
#else
    return false;
#endif
}

Communicator& Communicator::world() {
    static std::unique_ptr<Communicator> world = [] {
        auto c = std::make_unique<Communicator>();
        if (launched_by_mpi()) {
            c->join_mpi();
        } else if (const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
                   tasks && std::atoi(tasks) > 1) {
            // srun without an MPI plugin starts N independent copies, each training alone and
            // all writing the same snapshot.
            throw Error("srun",
                        std::string("started ") + tasks +
                            " tasks that cannot find each other (no PMI in their environment): "
                            "run srun --mpi=pmix (or --mpi=pmi2), or use one task");
        }
        return c;
    }();
    return *world;
}

void Communicator::join_mpi() {
    Communicator* c = this;
#ifdef RADIANT_HAVE_MPI
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    c->m_mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->m_size);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &c->m_local_size);
    MPI_Comm_free(&local);
#else
    const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
    if (!size) size = std::getenv("PMI_SIZE");
    if (size && std::atoi(size) > 1)
        throw Error("mpirun",
                    "this radiant was built without MPI (configure with -DRADIANT_MPI=ON and "
                    "libopenmpi-dev installed), so it cannot run as one of several ranks");
    (void)c;
#endif
}

Communicator::~Communicator() {
#ifdef RADIANT_HAVE_MPI
    if (m_mpi) MPI_Finalize();
#endif
}

void Communicator::abort(int exit_code) {
#ifdef RADIANT_HAVE_MPI
    if (m_mpi && m_size > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
#endif
    std::exit(exit_code);
}

ShardRange Communicator::shard(size_t n, int r, int size) {
    auto edge = [&](int k) -> size_t {
        if (k >= size) return n;
        return std::min(n, (n * size_t(k) / size_t(size)) & ~size_t(15));
    };
    return {edge(r), edge(r + 1)};
}

#ifdef RADIANT_HAVE_MPI

void Communicator::reduce_scatter_sum(float* data, size_t n, WireFormat wire) {
    if (m_size == 1) return;
    const ShardRange mine = my_shard(n);
    const size_t s = mine.size(), ranks = size_t(m_size), me = size_t(m_rank);
    // Point to point: my copy of rank r's shard goes to r; the other ranks' copies of my shard
    // land in slots of m_recv. My own copy never moves (an all-to-all would copy it).
    const bool bf16 = wire == WireFormat::kBf16;
    if (bf16) {
        m_send16.resize(n);
        m_recv16.resize(s * ranks);
        for (size_t i = 0; i < mine.begin; ++i) m_send16[i] = to_bf16(data[i]);
        for (size_t i = mine.end; i < n; ++i) m_send16[i] = to_bf16(data[i]);
    } else {
        m_recv.resize(s * ranks);
    }
    m_requests.resize(2 * ranks * sizeof(MPI_Request));
    MPI_Request* requests = reinterpret_cast<MPI_Request*>(m_requests.data());
    int n_requests = 0;
    for (size_t r = 0; r < ranks; ++r) {
        if (r == me) continue;
        MPI_Request* q = &requests[n_requests++];
        if (bf16)
            MPI_Irecv(m_recv16.data() + s * r, int(s), MPI_UINT16_T, int(r), 7, MPI_COMM_WORLD, q);
        else
            MPI_Irecv(m_recv.data() + s * r, int(s), MPI_FLOAT, int(r), 7, MPI_COMM_WORLD, q);
    }
    for (size_t k = 1; k < ranks; ++k) {  // staggered, so rank pairs do not all hit one rank first
        const size_t r = (me + k) % ranks;
        const ShardRange sh = shard(n, int(r), m_size);
        MPI_Request* q = &requests[n_requests++];
        if (bf16)
            MPI_Isend(m_send16.data() + sh.begin, int(sh.size()), MPI_UINT16_T, int(r), 7,
                      MPI_COMM_WORLD, q);
        else
            MPI_Isend(data + sh.begin, int(sh.size()), MPI_FLOAT, int(r), 7, MPI_COMM_WORLD, q);
        m_bytes_sent += sh.size() * (bf16 ? sizeof(uint16_t) : sizeof(float));
    }
    MPI_Waitall(n_requests, requests, MPI_STATUSES_IGNORE);
    // Sum in rank order, ((rank 0 + rank 1) + rank 2) + ..., a cache-sized block at a time so
    // the shard is read and written once.
    float* out = data + mine.begin;
    constexpr size_t kBlock = 2048;
    float acc[kBlock];
    for (size_t b = 0; b < s; b += kBlock) {
        const size_t m = std::min(kBlock, s - b);
        for (size_t r = 0; r < ranks; ++r) {
            if (r == me) {
                const float* in = out + b;
                if (r == 0)
                    for (size_t i = 0; i < m; ++i) acc[i] = in[i];
                else
                    for (size_t i = 0; i < m; ++i) acc[i] += in[i];
            } else if (bf16) {
                const uint16_t* in = m_recv16.data() + s * r + b;
                if (r == 0)
                    for (size_t i = 0; i < m; ++i) acc[i] = from_bf16(in[i]);
                else
                    for (size_t i = 0; i < m; ++i) acc[i] += from_bf16(in[i]);
            } else {
                const float* in = m_recv.data() + s * r + b;
                if (r == 0)
                    for (size_t i = 0; i < m; ++i) acc[i] = in[i];
                else
                    for (size_t i = 0; i < m; ++i) acc[i] += in[i];
            }
        }
        std::memcpy(out + b, acc, m * sizeof(float));
    }
}

void Communicator::allgather_shards(float* data, size_t n) {
    if (m_size == 1) return;
    m_counts.resize(size_t(m_size));
    m_displs.resize(size_t(m_size));
    for (int r = 0; r < m_size; ++r) {
        const ShardRange sh = shard(n, r, m_size);
        m_counts[size_t(r)] = int(sh.size());
        m_displs[size_t(r)] = int(sh.begin);
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, m_counts.data(), m_displs.data(),
                   MPI_FLOAT, MPI_COMM_WORLD);
    m_bytes_sent += my_shard(n).size() * sizeof(float) * size_t(m_size - 1);
}

std::vector<double> Communicator::allgather(const std::vector<double>& mine) {
    std::vector<double> all(mine.size() * size_t(m_size));
    allgather(mine.data(), mine.size(), all.data());
    return all;
}

void Communicator::allgather(const double* mine, size_t k, double* all) {
    if (m_size == 1) {
        std::copy(mine, mine + k, all);
        return;
    }
    MPI_Allgather(mine, int(k), MPI_DOUBLE, all, int(k), MPI_DOUBLE, MPI_COMM_WORLD);
}

std::vector<std::string> Communicator::allgather_strings(const std::string& mine) {
    if (m_size == 1) return {mine};
    int len = int(mine.size());
    const size_t ranks = size_t(m_size);
    std::vector<int> lens(ranks), displs(ranks);
    MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (int r = 0; r < m_size; ++r)
        displs[size_t(r)] = int(total), total += size_t(lens[size_t(r)]);
    std::string all(total, '\0');
    MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR,
                   MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int r = 0; r < m_size; ++r)
        out.push_back(all.substr(size_t(displs[size_t(r)]), size_t(lens[size_t(r)])));
    return out;
}

#else  // one rank: nothing to exchange

void Communicator::reduce_scatter_sum(float*, size_t, WireFormat) {}
void Communicator::allgather_shards(float*, size_t) {}
std::vector<double> Communicator::allgather(const std::vector<double>& mine) { return mine; }
void Communicator::allgather(const double* mine, size_t k, double* all) {
    std::copy(mine, mine + k, all);
}
std::vector<std::string> Communicator::allgather_strings(const std::string& mine) { return {mine}; }

#endif

void Communicator::allreduce_sum(float* data, size_t n, WireFormat wire) {
    reduce_scatter_sum(data, n, wire);
    allgather_shards(data, n);
}

double Communicator::sum(double mine) {
    double s = 0;
    for (double v : allgather({mine})) s += v;
    return s;
}

double Communicator::max(double mine) {
    const std::vector<double> all = allgather({mine});
    return *std::max_element(all.begin(), all.end());
}

bool Communicator::any(bool mine) { return max(mine ? 1.0 : 0.0) > 0; }

}  // namespace radiant
