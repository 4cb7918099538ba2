#include "parallel/shared_segments.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>

#include "parallel/communicator.h"

#ifdef RADIANT_HAVE_MPI
#include <mpi.h>
#include <sys/statvfs.h>
#endif

namespace radiant {

namespace {
// Whether any of n floats is non-zero (-0 counts as zero: it adds nothing to a sum).
bool any_nonzero(const float* x, size_t n) {
    uint32_t bits = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t u;
        std::memcpy(&u, x + i, sizeof u);
        bits |= u & 0x7FFFFFFFu;
    }
    return bits != 0;
}
}  // namespace

void SharedSegments::sum_into_mine(size_t begin, size_t count) {
    float* out = mine() + begin;
    const size_t ranks = m_segments.size();
    // A block at a time, so each block is read and written while it sits in L1.
    constexpr size_t kBlock = 2048;
    float acc[kBlock];
    for (size_t b = 0; b < count; b += kBlock) {
        const size_t m = std::min(kBlock, count - b);
        // A block that only this rank wrote (most of a sparse table's, and every level this rank
        // claimed when ranks split the hash levels) already holds its sum: skipping it saves the
        // copy and, above all, dirtying the other segments' zeros.
        bool others_wrote = false;
        for (size_t r = 0; r < ranks && !others_wrote; ++r)
            others_wrote = int(r) != m_rank && any_nonzero(m_segments[r] + begin + b, m);
        if (!others_wrote) continue;
        for (size_t r = 0; r < ranks; ++r) {
            float* in = m_segments[r] + begin + b;
            if (r == 0)
                std::memcpy(acc, in, m * sizeof(float));
            else
                for (size_t i = 0; i < m; ++i) acc[i] += in[i];
            if (int(r) != m_rank && any_nonzero(in, m)) std::memset(in, 0, m * sizeof(float));
        }
        std::memcpy(out + b, acc, m * sizeof(float));
    }
}

#ifdef RADIANT_HAVE_MPI

namespace {

MPI_Win& window_of(void*& w) { return *static_cast<MPI_Win*>(w); }

// OpenMPI backs shared windows with a file in /dev/shm, and a tmpfs too small for it (a
// container's default is 64 MB) would not fail the allocation but kill the job with SIGBUS on
// the first page past its end. So the job asks first, with room to spare for everything else.
bool shm_has_room_for(size_t bytes) {
    struct statvfs fs {};
    if (statvfs("/dev/shm", &fs) != 0) return true;  // no /dev/shm: OpenMPI picks another place
    const double free_bytes = double(fs.f_bavail) * double(fs.f_frsize);
    return free_bytes > 1.25 * double(bytes) + 64.0 * 1024 * 1024;
}

}  // namespace

std::unique_ptr<SharedSegments> SharedSegments::allocate(Communicator& comm, size_t n,
                                                         Layout layout, bool zeroed) {
    if (!comm.distributed() || comm.local_size() != comm.size() || n == 0) return nullptr;
    const size_t copies = layout == Layout::kPerRank ? size_t(comm.size()) : 1;
    if (comm.any(!shm_has_room_for(copies * n * sizeof(float)))) return nullptr;  // messages, then
    std::unique_ptr<SharedSegments> s(new SharedSegments());
    s->m_rank = comm.rank();
    // Every rank is on this machine, so the node communicator is the world in rank order.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig",
                 "true");  // each segment page-aligned, near its rank
    // A failed allocation (a small /dev/shm) falls back to messages instead of aborting the job.
    MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    float* base = nullptr;
    auto* win = new MPI_Win;
    const size_t mine =
        layout == Layout::kPerRank || comm.rank() == 0 ? n : 0;  // one copy: rank 0 hosts it
    const int rc = MPI_Win_allocate_shared(MPI_Aint(mine * sizeof(float)), int(sizeof(float)), info,
                                           node, &base, win);
    MPI_Info_free(&info);
    MPI_Comm_free(&node);
    // Every rank must agree on the outcome, or one would wait in a fence the others never reach.
    if (!comm.any(rc != MPI_SUCCESS)) {
        s->m_window = win;
        for (int r = 0; r < comm.size(); ++r) {
            MPI_Aint bytes = 0;
            int unit = 0;
            float* p = nullptr;
            MPI_Win_shared_query(*win, layout == Layout::kPerRank ? r : 0, &bytes, &unit, &p);
            s->m_segments.push_back(p);
        }
        if (mine && zeroed) std::memset(base, 0, n * sizeof(float));
        MPI_Win_lock_all(MPI_MODE_NOCHECK, *win);  // the passive epoch MPI_Win_sync needs
        s->fence();
        return s;
    }
    // Freeing is collective over ranks some of which hold no window: a rank whose allocation
    // succeeded keeps it unused rather than wait for them.
    if (rc != MPI_SUCCESS) delete win;
    return nullptr;
}

SharedSegments::~SharedSegments() {
    // Freeing is collective: while an exception unwinds (on its way to Communicator::abort) the
    // other ranks are not here, so the window is left to the process's end.
    if (!m_window || std::uncaught_exceptions() > 0) return;
    MPI_Win_unlock_all(window_of(m_window));
    MPI_Win_free(&window_of(m_window));
    delete static_cast<MPI_Win*>(m_window);
}

void SharedSegments::fence() {
    MPI_Win_sync(window_of(m_window));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(window_of(m_window));
}

void SharedSegments::publish() { MPI_Win_sync(window_of(m_window)); }

#else  // no MPI: never allocated

std::unique_ptr<SharedSegments> SharedSegments::allocate(Communicator&, size_t, Layout, bool) {
    return nullptr;
}
SharedSegments::~SharedSegments() = default;
void SharedSegments::fence() {}
void SharedSegments::publish() {}

#endif

}  // namespace radiant
