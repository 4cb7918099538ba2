#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/error.h"
#include "core/report.h"
#include "core/rng.h"
#include "core/system.h"
#include "core/thread_pool.h"
#include "test_util.h"

namespace radiant {
namespace {

TEST(Rng, ReseedReproducesSequence) {
    Pcg32 a(42, 7), b(42, 7), c(43, 7);
    std::vector<uint32_t> sa, sb, sc;
    for (int i = 0; i < 100; ++i) {
        sa.push_back(a.next_uint());
        sb.push_back(b.next_uint());
        sc.push_back(c.next_uint());
    }
    EXPECT_EQ(sa, sb);
    EXPECT_NE(sa, sc);
}

TEST(Rng, AdvanceEqualsDraws) {
    for (uint64_t n : {0ull, 1ull, 5ull, 1000ull, 123457ull}) {
        Pcg32 a(9, 3), b(9, 3);
        for (uint64_t i = 0; i < n; ++i) a.next_uint();
        b.advance(n);
        EXPECT_TRUE(a == b) << "n = " << n;
        EXPECT_EQ(a.next_uint(), b.next_uint());
    }
}

TEST(Rng, FloatsInUnitIntervalAndBoundedInts) {
    Pcg32 r(1);
    double sum = 0;
    for (int i = 0; i < 100000; ++i) {
        float f = r.next_float();
        ASSERT_GE(f, 0.0f);
        ASSERT_LT(f, 1.0f);
        sum += f;
        ASSERT_LT(r.next_below(7), 7u);
    }
    EXPECT_NEAR(sum / 100000, 0.5, 0.01);
}

TEST(Rng, StreamsDifferByStepAndChunk) {
    EXPECT_NE(stream_for(1, 0, 0).next_uint(), stream_for(1, 0, 1).next_uint());
    EXPECT_NE(stream_for(1, 0, 0).next_uint(), stream_for(1, 1, 0).next_uint());
    EXPECT_EQ(stream_for(1, 2, 3).next_uint(), stream_for(1, 2, 3).next_uint());
}

TEST(ThreadPool, EveryIndexOnceInContiguousBlocks) {
    for (int threads : {1, 2, 3, 8}) {
        ThreadPool pool(threads);
        for (size_t n : {0u, 1u, 2u, 7u, 1000u}) {
            std::vector<std::atomic<int>> hits(n);
            std::vector<int> owner(n, -1);
            pool.parallel_for(n, [&](size_t i, int t) {
                hits[i]++;
                owner[i] = t;
            });
            for (size_t i = 0; i < n; ++i) {
                EXPECT_EQ(hits[i].load(), 1);
                if (i > 0) {
                    EXPECT_LE(owner[i - 1], owner[i]) << "blocks must be contiguous";
                }
            }
        }
    }
}

// Uneven items: a slow first item must not hold back the rest of its thread's share.
TEST(ThreadPool, DynamicForRunsEveryIndexOnceAndSharesUnevenWork) {
    for (int threads : {1, 2, 3}) {
        ThreadPool pool(threads);
        for (size_t n : {0u, 1u, 2u, 7u, 1000u}) {
            std::vector<std::atomic<int>> hits(n);
            pool.parallel_for_dynamic(n, [&](size_t i, int t) {
                EXPECT_GE(t, 0);
                EXPECT_LT(t, threads);
                hits[i]++;
            });
            for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << i;
        }
    }
    ThreadPool pool(2);
    std::vector<int> owner(64, -1);
    pool.parallel_for_dynamic(owner.size(), [&](size_t i, int t) {
        if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
        owner[i] = t;
    });
    // Whoever took item 0 slept while the other thread worked through the rest.
    EXPECT_GT(std::count(owner.begin(), owner.end(), 1 - owner[0]), 32);
}

TEST(ThreadPool, ChunkedReductionIndependentOfThreadCount) {
    auto sum_with = [](int threads) {
        ThreadPool pool(threads);
        const size_t n = 100003, chunks = 16;
        std::vector<float> partial(chunks);
        parallel_chunks(pool, n, chunks, [&](size_t c, size_t b, size_t e, int) {
            float s = 0;
            for (size_t i = b; i < e; ++i) s += 1.0f / float(i + 1);
            partial[c] = s;
        });
        float total = 0;
        for (float p : partial) total += p;
        return total;
    };
    float one = sum_with(1);
    EXPECT_EQ(one, sum_with(2));
    EXPECT_EQ(one, sum_with(5));
}

TEST(ThreadPool, ManyBackToBackRegions) {
    ThreadPool pool(2);
    std::atomic<long> total{0};
    for (int r = 0; r < 2000; ++r) pool.parallel_for(4, [&](size_t, int) { total++; });
    EXPECT_EQ(total.load(), 8000);
}

TEST(Error, MessageNamesFileAndReason) {
    Error e("scene/transforms.json", "missing 'frames'");
    EXPECT_STREQ(e.what(), "scene/transforms.json: missing 'frames'");
    EXPECT_EQ(e.file(), "scene/transforms.json");
    EXPECT_EQ(e.reason(), "missing 'frames'");
}

TEST(Report, WritesDesignFields) {
    test::TempDir dir;
    Report r;
    r.command = "fit-image";
    r.psnr = 31.5;
    r.steps = 10;
    r.seconds = 2.0;
    r.samples_per_second = 1e6;
    r.threads = 2;
    r.history.push_back({5, 1.0, 0.01, std::nullopt});
    r.history.push_back({10, 2.0, 0.005, 31.5});
    r.extra["width"] = 64;
    r.write(dir / "r.json");
    auto j = nlohmann::json::parse(read_file(dir / "r.json"));
    EXPECT_EQ(j["command"], "fit-image");
    EXPECT_DOUBLE_EQ(j["psnr"].get<double>(), 31.5);
    EXPECT_EQ(j["steps"], 10);
    EXPECT_EQ(j["threads"], 2);
    for (const char* k : {"seconds", "samples_per_second", "rays_per_second", "peak_rss_mb"})
        EXPECT_TRUE(j.contains(k)) << k;
    ASSERT_EQ(j["history"].size(), 2u);
    EXPECT_FALSE(j["history"][0].contains("psnr"));
    EXPECT_DOUBLE_EQ(j["history"][1]["psnr"].get<double>(), 31.5);
    EXPECT_EQ(j["width"], 64);
    EXPECT_FALSE(j.contains("ssim"));
}

TEST(System, AtomicWriteLeavesNoTemporaryAndReadsBack) {
    test::TempDir dir;
    write_file_atomic(dir / "a.txt", "hello");
    EXPECT_EQ(read_file(dir / "a.txt"), "hello");
    int files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir.path())) (void)e, ++files;
    EXPECT_EQ(files, 1);
    EXPECT_THROW(write_file_atomic(dir / "missing_folder/a.txt", "x"), Error);
    EXPECT_THROW(read_file(dir / "nope.txt"), Error);
    EXPECT_GT(peak_rss_mb(), 0.0);
}

}  // namespace
}  // namespace radiant
