// Data-parallel training under MPI: the collectives' known answers (run by ctest under
// `mpirun -np 3`), the split of images over ranks, and whole `mpirun -np 2 radiant train` runs:
// 2 ranks score like 1 rank, repeat bit for bit, resume on another rank count, and end
// together when a rank dies or the job is stopped. Tests that need mpirun skip without it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_test_util.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "io/staging.h"
#include "nerf/model_io.h"
#include "nn/adam.h"
#include "parallel/communicator.h"
#include "parallel/gradient_exchange.h"
#include "parallel/shared_segments.h"
#include "parallel/shared_step_buffers.h"
#include "small_demo_scene.h"
#include "test_util.h"

namespace radiant {
namespace {

namespace fs = std::filesystem;

bool have_mpirun() {
    return mpi_built_in() && std::system("command -v mpirun > /dev/null 2>&1") == 0;
}

#define SKIP_WITHOUT_MPIRUN()                                                                \
    if (!have_mpirun())                                                                      \
    GTEST_SKIP() << (mpi_built_in()                                                          \
                         ? "mpirun is not installed (scripts/setup.sh installs openmpi-bin)" \
                         : "built without MPI (install libopenmpi-dev and reconfigure)")

// `mpirun -np N radiant ARGS` with the flags CI needs (root, more ranks than cores).
std::string mpirun(int ranks, const std::string& args, const std::string& mpirun_flags = "") {
    return "mpirun " + mpirun_flags + " --oversubscribe --allow-run-as-root -np " +
           std::to_string(ranks) + " " + RADIANT_BINARY + " " + args;
}

struct JobResult {
    int exit_code;
    std::string err;
};

JobResult run_shell(const test::TempDir& dir, const std::string& cmd) {
    const int status =
        std::system((cmd + " > " + (dir / "out.txt") + " 2> " + (dir / "err.txt")).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1,
            read_file(dir / "out.txt") + read_file(dir / "err.txt")};
}

std::vector<float> snapshot_params(const std::string& path) {
    const LoadedModel m = load_model_snapshot(path);
    return {m.model->params().begin(), m.model->params().end()};
}

double report_psnr(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in)["psnr"].get<double>();
}

// ---- pieces that need no MPI ----

TEST(MpiShards, CoverTheBufferInOrderOnCacheLineBoundaries) {
    for (size_t n : {size_t(0), size_t(5), size_t(1000), size_t(12'345'679)})
        for (int ranks : {1, 2, 3, 7}) {
            size_t next = 0;
            for (int r = 0; r < ranks; ++r) {
                const ShardRange s = Communicator::shard(n, r, ranks);
                EXPECT_EQ(s.begin, next) << n << " " << ranks << " " << r;
                EXPECT_LE(s.begin, s.end);
                if (s.end != n) {
                    EXPECT_EQ(s.end % 16, 0u);
                }
                if (n >= size_t(1000)) {
                    EXPECT_NEAR(double(s.size()), double(n) / ranks, 16.0);
                }
                next = s.end;
            }
            EXPECT_EQ(next, n);
        }
}

TEST(MpiShards, RanksGetConsecutiveFramesBalancedByPixels) {
    Dataset d;
    d.json_path = "t.json";
    for (int i = 0; i < 10; ++i) {
        Frame f;
        f.image_path = "img" + std::to_string(i);
        f.camera.width = i < 2 ? 200 : 100;  // two frames hold 4x the pixels of the others
        f.camera.height = i < 2 ? 200 : 100;
        d.frames.push_back(f);
    }
    std::vector<std::string> order;
    double pixels[2] = {0, 0};
    for (int r = 0; r < 2; ++r) {
        Dataset share = d;
        keep_rank_share(share, r, 2);
        for (const Frame& f : share.frames) {
            order.push_back(f.image_path);
            pixels[r] += double(f.camera.width) * f.camera.height;
        }
    }
    ASSERT_EQ(order.size(), 10u);
    for (int i = 0; i < 10; ++i)
        EXPECT_EQ(order[size_t(i)], "img" + std::to_string(i));  // concatenate in order
    EXPECT_EQ(pixels[0], 80000.0);  // the two big frames (of 160000 pixels in all)
    EXPECT_EQ(pixels[1], 80000.0);
    Dataset few = d;
    few.frames.resize(2);
    for (int r = 0; r < 3; ++r)
        EXPECT_THROW(keep_rank_share(few, r, 3), Error) << r;  // 3 ranks, 2 frames
}

TEST(MpiShards, SrunWithoutMpiIsRefusedInsteadOfTrainingNCopies) {
    test::TempDir dir;
    const DemoScene scene = test::write_tiny_demo_scene(dir / "scene");
    test::expect_bad_input(
        dir, "train " + scene.train_json + " --steps 2 --snapshot " + (dir / "m.radiant"),
        "srun: started 4 tasks that cannot find each other", "SLURM_STEP_NUM_TASKS=4");
    EXPECT_FALSE(fs::exists(dir / "m.radiant"));
}

// ---- collectives: ctest runs these under mpirun -np 3; alone they check the one-rank case ----

float bf16_round(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7FFFu + ((u >> 16) & 1u);
    u &= 0xFFFF0000u;
    std::memcpy(&f, &u, 4);
    return f;
}

// Values whose float sum depends on the order they are added in.
float value_of(int rank, size_t i) {
    const float big[3] = {1e8f, 3.0f, -1e8f};
    return big[rank % 3] * (1.0f + float(i % 7) * 0.37f) + float(i % 11) * 0.013f;
}

TEST(MpiCollectives, ReduceScatterSumsInRankOrder) {
    Communicator* comm = &Communicator::world();
    const int N = comm->size(), me = comm->rank();
    for (WireFormat wire : {WireFormat::kFp32, WireFormat::kBf16}) {
        const size_t n = 1000;
        std::vector<float> data(n);
        for (size_t i = 0; i < n; ++i) data[i] = value_of(me, i);
        comm->reduce_scatter_sum(data.data(), n, wire);
        const ShardRange mine = comm->my_shard(n);
        for (size_t i = mine.begin; i < mine.end; ++i) {
            // ((rank 0 + rank 1) + rank 2): the others' parts as they travelled, mine as it was.
            float want = 0;
            for (int r = 0; r < N; ++r) {
                const float v = value_of(r, i);
                const float sent = wire == WireFormat::kBf16 && r != me ? bf16_round(v) : v;
                want = r == 0 ? sent : want + sent;
            }
            ASSERT_EQ(data[i], want) << "rank " << me << " element " << i;
        }
        // Untouched outside my shard.
        for (size_t i = 0; i < mine.begin; ++i) ASSERT_EQ(data[i], value_of(me, i));
    }
}

TEST(MpiCollectives, AllreduceGivesEveryRankTheSameBits) {
    Communicator* comm = &Communicator::world();
    const size_t n = 4099;
    std::vector<float> data(n);
    for (size_t i = 0; i < n; ++i) data[i] = value_of(comm->rank(), i);
    comm->allreduce_sum(data.data(), n, WireFormat::kFp32);
    // Every rank's checksum of the result bits is the same.
    double checksum = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t u;
        std::memcpy(&u, &data[i], 4);
        checksum += double(u % 1000003) * double(i + 1);
    }
    EXPECT_EQ(comm->max(checksum), checksum);
    EXPECT_EQ(-comm->max(-checksum), checksum);
    EXPECT_EQ(comm->sum(1.0), double(comm->size()));
    EXPECT_EQ(comm->any(comm->rank() == comm->size() - 1), true);
    EXPECT_EQ(comm->any(false), false);
    const std::vector<std::string> names =
        comm->allgather_strings(std::string(size_t(comm->rank()), 'x'));
    ASSERT_EQ(names.size(), size_t(comm->size()));
    for (int r = 0; r < comm->size(); ++r) EXPECT_EQ(names[size_t(r)], std::string(size_t(r), 'x'));
}

TEST(MpiCollectives, SharedSegmentsSumInRankOrderAndClearWhatWasRead) {
    Communicator* comm = &Communicator::world();
    const size_t n = 5003;  // not a multiple of the sum's block or the shard alignment
    std::unique_ptr<SharedSegments> shared = SharedSegments::allocate(*comm, n);
    if (!comm->distributed()) {
        EXPECT_EQ(shared, nullptr);  // one rank has nobody to share with
        return;
    }
    ASSERT_NE(shared, nullptr) << "all ranks of this test run on one machine";
    const int N = comm->size(), me = comm->rank();
    float* mine = shared->mine();
    // The sum is asked for in pieces of 1000 from each shard's start. In every shard: the first
    // piece written by the shard's owner alone (the others hold zeros, some -0: the sum skips
    // it, as a hash level one rank claimed), then a piece nobody wrote, then pieces written by
    // every rank or by one rank that may not be the owner (a sparse table's rows).
    auto written_by = [&](int rank, size_t i) {
        int owner = 0;
        while (Communicator::shard(n, owner, N).end <= i) ++owner;
        const size_t j = i - Communicator::shard(n, owner, N).begin;
        if (j < 1000) return rank == owner;
        if (j < 1300) return false;
        return (i / 700) % 2 == 0 || int((i / 1400) % size_t(N)) == rank;
    };
    auto value = [&](int rank, size_t i) {
        return written_by(rank, i) ? value_of(rank, i) : (i % 3 ? 0.0f : -0.0f);
    };
    for (size_t i = 0; i < n; ++i) mine[i] = value(me, i);
    // The same numbers through the messages' reduce-scatter, for the bits to match.
    std::vector<float> by_messages(mine, mine + n);
    comm->reduce_scatter_sum(by_messages.data(), n, WireFormat::kFp32);
    shared->fence();
    const ShardRange shard = comm->my_shard(n);
    // In uneven pieces, as Adam's blocks would ask for them.
    for (size_t b = shard.begin; b < shard.end; b += 1000)
        shared->sum_into_mine(b, std::min<size_t>(1000, shard.end - b));
    shared->publish();
    shared->fence();
    for (size_t i = 0; i < n; ++i) {
        if (i >= shard.begin && i < shard.end) {
            float want = 0;
            for (int r = 0; r < N; ++r) want = r == 0 ? value(r, i) : want + value(r, i);
            ASSERT_EQ(mine[i], want) << "rank " << me << " element " << i;
            ASSERT_EQ(mine[i], by_messages[i]);
        } else {
            ASSERT_EQ(mine[i], 0.0f)
                << "rank " << me << " element " << i << ": its owner read it and cleared it";
        }
    }
}

TEST(MpiCollectives, SharedStepBuffersHandEveryItemToOneThreadOfOneRank) {
    Communicator* comm = &Communicator::world();
    ThreadPool pool(1 + comm->rank() % 2);  // uneven pools: the claim count spans them all
    SharedStepSizes sizes;
    sizes.chunks = 4;
    sizes.samples_per_chunk = 100;
    sizes.rays_per_chunk = 10;
    sizes.enc_dims = 2;
    sizes.mlp_params = 30;
    sizes.grid_cells = 4096;
    std::unique_ptr<SharedStepBuffers> shared = SharedStepBuffers::allocate(*comm, pool, sizes);
    if (!comm->distributed()) {
        EXPECT_EQ(shared, nullptr);  // one rank shares nothing
        return;
    }
    ASSERT_NE(shared, nullptr) << "all ranks of this test run on one machine";
    EXPECT_EQ(shared->claimants(), size_t(comm->sum(double(pool.size()))));
    // Calls of several sizes (fewer items than threads over the ranks, and many more), each
    // item counted by whoever claims it in the shared density area; a fence between calls.
    // (No ASSERT before a fence: a rank leaving early would leave the others waiting.)
    float* marks = shared->grid_density();
    for (size_t n : {size_t(1), size_t(5), size_t(16), size_t(4096), size_t(3)}) {
        if (comm->is_root()) std::fill(marks, marks + n, 0.0f);
        shared->fence();
        std::atomic<size_t> claimed{0};
        shared->claim_each(pool, n, [&](size_t i, int) {
            marks[i] += 1.0f;
            claimed.fetch_add(1);
        });
        shared->fence();
        EXPECT_EQ(comm->sum(double(claimed.load())), double(n)) << n << " items";
        size_t not_once = 0;
        for (size_t i = 0; i < n; ++i) not_once += marks[i] != 1.0f;
        EXPECT_EQ(not_once, 0u) << "of " << n << " items, claimed by no one or by several";
        shared->fence();  // nobody clears the marks while another rank still checks them
    }
}

// Where one rank alone holds a block of gradients, Adam reads it in place in that rank's
// segment: the same parameters as summing every rank's gradients by messages, and every
// segment zero afterwards, ready for the next step.
TEST(MpiCollectives, SharedExchangeReadsABlockInPlaceFromTheRankHoldingIt) {
    Communicator* comm = &Communicator::world();
    if (!comm->distributed())
        GTEST_SKIP() << "needs several ranks (ctest runs it under mpirun -np 3)";
    const int N = comm->size(), me = comm->rank();
    ThreadPool pool(1);
    // Blocks of "levels" larger than Adam's blocks (16 K) and not aligned to them or to shards:
    // most of Adam's blocks lie within one and are read in place, a few straddle two and are
    // summed.
    const size_t n = 300000, block = 50000 + 1000;
    auto holder_of = [&](size_t i) { return int((i / block) % size_t(N)); };
    // Sparse "hash" range then a dense "MLP" range, as the trainer's.
    const std::vector<ParamRange> ranges{{0, 260000, false, true},
                                         {260000, n - 260000, true, false}};
    size_t in_place = 0;
    std::vector<float> start(n);
    for (size_t i = 0; i < n; ++i) start[i] = 0.01f * float(i % 97) - 0.3f;
    auto gradient = [&](size_t i) { return i % 5 == 0 ? 0.0f : value_of(holder_of(i), i) * 1e-9f; };

    GradientExchange shared_exchange(comm, n, ExchangeOptions{true, true, WireFormat::kFp32});
    ASSERT_EQ(shared_exchange.kind(), ExchangeKind::kSharedMemory);
    GradientExchange messages(comm, n, ExchangeOptions{true, false, WireFormat::kFp32});
    Adam adam_shared(AdamConfig{}, ranges, n), adam_messages(AdamConfig{}, ranges, n);
    std::vector<float> p_shared = start, p_messages = start;
    for (int step = 0; step < 2; ++step) {
        float* mine = shared_exchange.gradients();
        float* sent = messages.gradients();
        for (size_t i = 0; i < n; ++i) mine[i] = sent[i] = holder_of(i) == me ? gradient(i) : 0.0f;
        shared_exchange.update(p_shared.data(), adam_shared, pool, {}, [&](size_t b, size_t e) {
            const bool whole = b / block == (e - 1) / block;
            in_place += whole;
            return whole ? holder_of(b) : -1;
        });
        messages.update(p_messages.data(), adam_messages, pool);
        // Every rank's Adam done: check every rank's gradients are zero again.
        comm->sum(0.0);
        size_t left = 0;
        for (size_t i = 0; i < n; ++i) left += mine[i] != 0.0f;
        EXPECT_EQ(left, 0u) << "rank " << me << " step " << step;
        comm->sum(0.0);
    }
    EXPECT_GT(in_place, 0u);
    // This rank's shard was updated by it in both; the rest arrived by gather in both.
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i)
        differ += std::memcmp(&p_shared[i], &p_messages[i], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0u);
}

// ---- whole runs under mpirun ----

// A small scene where 400 steps reach a stable PSNR in a few seconds per run.
struct MpiScene {
    test::TempDir dir;
    DemoScene scene;
    MpiScene() {
        DemoSceneOptions o;
        o.width = o.height = 64;
        o.train_views = 24;
        o.test_views = 6;
        o.supersampling = 1;
        scene = write_demo_scene(dir / "scene", o);
    }
    std::string train_args(const std::string& snapshot, uint64_t seed = 3) const {
        return "train " + scene.train_json + " --val " + scene.test_json +
               " --log2-table 15 --target-samples 16384 --threads 1 --val-every 0 "
               "--checkpoint-every 0 --seed " +
               std::to_string(seed) + " --snapshot " + snapshot;
    }
};

TEST(MpiTrain, TwoRanksScoreLikeOneRankInTheSameStepsAndSamples) {
    SKIP_WITHOUT_MPIRUN();
    MpiScene s;
    // Mean over two seeds: one seed's PSNR moves by a few tenths of a dB on this small scene.
    double one = 0, two = 0;
    for (uint64_t seed : {1, 2}) {
        const std::string r1 = s.dir / "one.json", r2 = s.dir / "two.json";
        JobResult a = run_shell(s.dir, std::string(RADIANT_BINARY) + " " +
                                           s.train_args(s.dir / "one.radiant", seed) +
                                           " --steps 400 --report " + r1);
        ASSERT_EQ(a.exit_code, 0) << a.err;
        JobResult b = run_shell(s.dir, mpirun(2, s.train_args(s.dir / "two.radiant", seed) +
                                                     " --steps 400 --report " + r2));
        ASSERT_EQ(b.exit_code, 0) << b.err;
        one += report_psnr(r1) / 2;
        two += report_psnr(r2) / 2;
        std::ifstream in(r2);
        const nlohmann::json rep = nlohmann::json::parse(in);
        EXPECT_EQ(rep["ranks"], 2);
        EXPECT_EQ(rep["mpi_exchange"], "shared memory");  // both ranks on this machine
        EXPECT_EQ(rep["phase_seconds"].size(), 2u);
        EXPECT_EQ(rep["steps"], 400);
    }
    std::printf("mean PSNR over seeds 1, 2: 1 rank %.2f dB, 2 ranks %.2f dB\n", one, two);
    EXPECT_GT(one, 20.0);  // it learnt the scene at all
    EXPECT_NEAR(two, one, 0.3) << "1 rank " << one << " dB, 2 ranks " << two << " dB";
}

TEST(MpiTrain, TwoRankRunsRepeatBitForBitAndResumeExactly) {
    SKIP_WITHOUT_MPIRUN();
    MpiScene s;
    const std::string a = s.dir / "a.radiant", b = s.dir / "b.radiant", c = s.dir / "c.radiant";
    ASSERT_EQ(run_shell(s.dir, mpirun(2, s.train_args(a) + " --steps 60")).exit_code, 0);
    ASSERT_EQ(run_shell(s.dir, mpirun(2, s.train_args(b) + " --steps 60")).exit_code, 0);
    const std::vector<float> pa = snapshot_params(a), pb = snapshot_params(b);
    ASSERT_EQ(pa.size(), pb.size());
    EXPECT_EQ(std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(float)), 0);
    // The ranks share the step's work (the default on one machine): hash levels, chunks and
    // gradient blocks go to whichever thread of whichever rank claims them first. Two threads
    // per rank: the same bits.
    const std::string t = s.dir / "t.radiant", report_a = s.dir / "t.json";
    std::string two_threads = s.train_args(t);
    two_threads.replace(two_threads.find("--threads 1"), 11, "--threads 2");
    ASSERT_EQ(
        run_shell(s.dir, mpirun(2, two_threads + " --steps 60 --report " + report_a)).exit_code, 0);
    const std::vector<float> pt = snapshot_params(t);
    ASSERT_EQ(pt.size(), pa.size());
    EXPECT_EQ(std::memcmp(pa.data(), pt.data(), pa.size() * sizeof(float)), 0)
        << "the claimed work depends on threads";
    std::ifstream in_a(report_a);
    EXPECT_EQ(nlohmann::json::parse(in_a)["mpi_split"], "work");
    // Gradients sent as messages instead of summed in shared memory: the same bits as shared
    // memory with each rank training its own samples (as messages always do).
    const std::string m = s.dir / "m.radiant", report = s.dir / "m.json", sm = s.dir / "s.radiant";
    ASSERT_EQ(
        run_shell(s.dir, mpirun(2, s.train_args(m) +
                                       " --steps 60 --mpi-exchange messages --report " + report))
            .exit_code,
        0);
    ASSERT_EQ(
        run_shell(s.dir, mpirun(2, s.train_args(sm) + " --steps 60 --mpi-split samples")).exit_code,
        0);
    const std::vector<float> pm = snapshot_params(m), ps = snapshot_params(sm);
    ASSERT_EQ(pm.size(), pa.size());
    ASSERT_EQ(ps.size(), pa.size());
    EXPECT_EQ(std::memcmp(ps.data(), pm.data(), pa.size() * sizeof(float)), 0)
        << "the exchanges disagree";
    std::ifstream in(report);
    const nlohmann::json rm = nlohmann::json::parse(in);
    EXPECT_EQ(rm["mpi_exchange"], "messages");
    EXPECT_EQ(rm["mpi_split"], "samples");
    // Stopped at step 25 (the sharded optimiser's state gathered into the snapshot), resumed.
    JobResult first =
        run_shell(s.dir, mpirun(2, s.train_args(c) + " --steps 60 --stop-at-step 25"));
    ASSERT_EQ(first.exit_code, 0) << first.err;
    JobResult rest = run_shell(s.dir, mpirun(2, s.train_args(c) + " --steps 60 --resume"));
    ASSERT_EQ(rest.exit_code, 0) << rest.err;
    const std::vector<float> pc = snapshot_params(c);
    EXPECT_EQ(std::memcmp(pa.data(), pc.data(), pa.size() * sizeof(float)), 0)
        << "resumed run differs";
}

// Each rank stages only its share of the cameras, yet every rank must kill the same unseen
// grid cells (grid_visibility.h), the ones one rank kills with all the cameras.
TEST(MpiTrain, RanksKillTheSameUnseenGridCellsAsOneRank) {
    SKIP_WITHOUT_MPIRUN();
    MpiScene s;
    {  // A large scene (3 cascades): the orbit's cameras leave much of the outer cascades unseen.
        std::ifstream in(s.scene.train_json);
        nlohmann::json j = nlohmann::json::parse(in);
        j["aabb_scale"] = 4;
        std::ofstream(s.scene.train_json) << j.dump();
    }
    const std::string one = s.dir / "one.radiant", two = s.dir / "two.radiant";
    JobResult a =
        run_shell(s.dir, std::string(RADIANT_BINARY) + " " + s.train_args(one) + " --steps 2");
    ASSERT_EQ(a.exit_code, 0) << a.err;
    JobResult b = run_shell(s.dir, mpirun(2, s.train_args(two) + " --steps 2"));
    ASSERT_EQ(b.exit_code, 0) << b.err;
    const LoadedModel m1 = load_model_snapshot(one), m2 = load_model_snapshot(two);
    const std::vector<float>&d1 = m1.model->grid().densities(), &d2 = m2.model->grid().densities();
    ASSERT_EQ(d1.size(), d2.size());
    size_t dead = 0, differ = 0;
    for (size_t i = 0; i < d1.size(); ++i) {
        dead += d1[i] < 0;
        differ += (d1[i] < 0) != (d2[i] < 0);
    }
    EXPECT_EQ(differ, 0u);
    // More than the outer cascades' covered eighths (2 of 3 cascades): unseen cells died too.
    EXPECT_GT(dead, d1.size() / 3 * 2 / 8 + d1.size() / 100);
}

TEST(MpiTrain, TwoRanksResumeOnOneRank) {
    SKIP_WITHOUT_MPIRUN();
    MpiScene s;
    const std::string snap = s.dir / "m.radiant", rep = s.dir / "r.json";
    JobResult first =
        run_shell(s.dir, mpirun(2, s.train_args(snap) + " --steps 300 --stop-at-step 150"));
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(load_model_snapshot(snap).file.header()["training"]["step"], 150);
    JobResult rest = run_shell(s.dir, std::string(RADIANT_BINARY) + " " + s.train_args(snap) +
                                          " --steps 300 --resume --report " + rep);
    ASSERT_EQ(rest.exit_code, 0) << rest.err;
    EXPECT_NE(rest.err.find("resuming at step 150"), std::string::npos) << rest.err;
    EXPECT_EQ(load_model_snapshot(snap).file.header()["training"]["step"], 300);
    EXPECT_GT(report_psnr(rep), 20.0);
}

// Children of a process, from /proc.
std::vector<pid_t> children_of(pid_t pid) {
    std::vector<pid_t> out;
    for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
        std::ifstream in(task.path() / "children");
        for (pid_t c; in >> c;) out.push_back(c);
    }
    return out;
}

pid_t spawn_shell(const std::string& cmd) {
    const pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), nullptr);
        _exit(127);
    }
    return pid;
}

// Waits up to `seconds` for `pid` to end; its exit status, or -1 if it did not end.
int wait_for(pid_t pid, double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) return status;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
}

// Waits until `text` shows up in the file (training started), up to 60 s.
bool wait_for_text(const std::string& path, const std::string& text) {
    for (int i = 0; i < 1200; ++i) {
        if (fs::exists(path) && read_file(path).find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

TEST(MpiTrain, AKilledRankEndsTheJobWithAnError) {
    SKIP_WITHOUT_MPIRUN();
    MpiScene s;
    const std::string log = s.dir / "log.txt";
    const pid_t job = spawn_shell(mpirun(2, s.train_args(s.dir / "m.radiant") + " --steps 100000") +
                                  " > " + log + " 2>&1");
    ASSERT_TRUE(wait_for_text(log, "step ")) << read_file(log);
    const std::vector<pid_t> ranks = children_of(job);
    ASSERT_GE(ranks.size(), 2u);
    ASSERT_EQ(kill(ranks.back(), SIGKILL), 0);
    const int status = wait_for(job, 30);
    if (status == -1) kill(job, SIGKILL), waitpid(job, nullptr, 0);
    ASSERT_NE(status, -1) << "the job still runs 30 s after a rank died";
    EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(log);
}

TEST(MpiTrain, CtrlCStopsEveryRankAfterTheSameStepAndSaves) {
    SKIP_WITHOUT_MPIRUN();
    MpiScene s;
    const std::string log = s.dir / "log.txt", snap = s.dir / "m.radiant";
    // mpirun passes Ctrl-C on as SIGTERM to every rank odls_base_sigkill_timeout seconds later,
    // and SIGKILLs them as long again after that (1 s by default: too short for a step and a
    // save on a loaded machine; the README says to raise it).
    const pid_t job = spawn_shell(
        mpirun(2, s.train_args(snap) + " --steps 100000", "--mca odls_base_sigkill_timeout 5") +
        " > " + log + " 2>&1");
    ASSERT_TRUE(wait_for_text(log, "step ")) << read_file(log);
    ASSERT_EQ(kill(job, SIGINT), 0);
    const int status = wait_for(job, 30);
    if (status == -1) kill(job, SIGKILL), waitpid(job, nullptr, 0);
    ASSERT_NE(status, -1) << "the job still runs 30 s after Ctrl-C";
    const std::string out = read_file(log);
    EXPECT_NE(out.find("stopped by SIGTERM at step"), std::string::npos) << out;
    // The snapshot holds the step the ranks stopped at, and resumes.
    const auto at = out.find("stopped by SIGTERM at step ");
    ASSERT_NE(at, std::string::npos);
    const uint64_t step = std::stoull(out.substr(at + 27));
    EXPECT_EQ(load_model_snapshot(snap).file.header()["training"]["step"].get<uint64_t>(), step);
}

TEST(MpiTrain, BadInputOnEveryRankIsOneClearError) {
    SKIP_WITHOUT_MPIRUN();
    MpiScene s;
    JobResult r =
        run_shell(s.dir, mpirun(2, s.train_args(s.dir / "m.radiant") + " --steps 10 --view"));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("the training viewer runs with one rank, not 2"), std::string::npos)
        << r.err;
    r = run_shell(s.dir, mpirun(2, "train " + (s.dir / "nowhere") + " --steps 10"));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("nowhere"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace radiant
