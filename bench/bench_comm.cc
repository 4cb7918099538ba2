// The collectives of data-parallel training, timed alone: `mpirun -np N bench-comm [FLOATS...]`.
// Per size and operation it prints the seconds per call (median of repeats, ranks in step)
// and the bus bandwidth, 2 (N-1)/N * bytes / s for an allreduce and (N-1)/N * bytes / s for
// its halves, the figure that scaling models use.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/timer.h"
#include "parallel/communicator.h"
#include "parallel/shared_segments.h"

using namespace radiant;

int main(int argc, char** argv) {
    Communicator* comm = &Communicator::world();
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(size_t(std::strtoull(argv[i], nullptr, 10)));
    if (sizes.empty()) sizes = {size_t(1) << 16, size_t(1) << 20, size_t(1) << 22, 12'200'000};
    const int N = comm->size();
    if (comm->is_root())
        std::printf("%d ranks\n%12s  %-22s %10s %10s\n", N, "floats", "operation", "ms/call",
                    "bus GB/s");
    for (size_t n : sizes) {
        std::vector<float> data(n);
        for (size_t i = 0; i < n; ++i)
            data[i] = float((i * 7 + size_t(comm->rank())) % 101) * 1e-3f;
        struct Op {
            const char* name;
            double bytes_factor;  // bytes on the wire per float per (N-1)/N
            std::function<void()> run;
        };
        // The shared-memory exchange: a fence, then my shard summed out of every rank's segment
        // (what the trainer fuses into Adam's blocks). Only when all ranks share this machine.
        std::unique_ptr<SharedSegments> shared = SharedSegments::allocate(*comm, n);
        if (shared) std::copy(data.begin(), data.end(), shared->mine());
        const ShardRange mine = comm->my_shard(n);
        std::vector<Op> ops = {
            {"reduce-scatter fp32", 4,
             [&] { comm->reduce_scatter_sum(data.data(), n, WireFormat::kFp32); }},
            {"reduce-scatter bf16", 2,
             [&] { comm->reduce_scatter_sum(data.data(), n, WireFormat::kBf16); }},
            {"allgather fp32", 4, [&] { comm->allgather_shards(data.data(), n); }},
            {"allreduce fp32", 8, [&] { comm->allreduce_sum(data.data(), n, WireFormat::kFp32); }},
            {"allreduce bf16", 6, [&] { comm->allreduce_sum(data.data(), n, WireFormat::kBf16); }},
        };
        if (shared)
            ops.push_back({"shared-memory sum", 4, [&] {
                               shared->fence();
                               shared->sum_into_mine(mine.begin, mine.size());
                               shared->publish();
                           }});
        for (const Op& op : ops) {
            std::vector<double> times;
            const int repeats = n > (size_t(1) << 21) ? 10 : 50;
            for (int k = 0; k < repeats + 2; ++k) {
                comm->max(0.0);  // start together
                Timer t;
                op.run();
                const double s = comm->max(t.seconds());
                if (k >= 2) times.push_back(s);
            }
            std::sort(times.begin(), times.end());
            const double s = times[times.size() / 2];
            const double bus = op.bytes_factor * double(n) * double(N - 1) / double(N) / s / 1e9;
            if (comm->is_root())
                std::printf("%12zu  %-22s %10.3f %10.2f\n", n, op.name, s * 1e3, bus);
        }
    }
    return 0;
}
