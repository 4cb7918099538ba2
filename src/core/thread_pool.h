// One persistent thread pool and the only threading primitive hot code uses.
//
// Work is split into fixed, contiguous partitions: with T threads and n items, thread t gets
// items [t*n/T, (t+1)*n/T). Code that must not depend on the thread count splits its work
// into a fixed number of chunks itself (see `parallel_chunks`) and reduces them in order.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace radiant {

class ThreadPool {
  public:
    // n_threads <= 0 means one thread per hardware core. The calling thread is thread 0.
    explicit ThreadPool(int n_threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return m_size; }

    // Calls f(begin, end, thread) once per thread with that thread's contiguous share of
    // [0, n). Threads with an empty share are not called. Blocks until all are done.
    template <class F>
    void parallel_ranges(size_t n, F&& f) {
        auto trampoline = [](void* ctx, size_t b, size_t e, int t) {
            (*static_cast<std::remove_reference_t<F>*>(ctx))(b, e, t);
        };
        run(n, trampoline, &f);
    }

    // Calls f(i, thread) for every i in [0, n), contiguous blocks per thread.
    template <class F>
    void parallel_for(size_t n, F&& f) {
        parallel_ranges(n, [&](size_t b, size_t e, int t) {
            for (size_t i = b; i < e; ++i) f(i, t);
        });
    }

    // Calls f(i, thread) for every i in [0, n), each thread taking the next i as it finishes:
    // for items of uneven cost (an image's rows) whose results do not depend on the thread.
    template <class F>
    void parallel_for_dynamic(size_t n, F&& f) {
        std::atomic<size_t> next{0};
        parallel_ranges(std::min(n, size_t(m_size)), [&](size_t, size_t, int t) {
            for (size_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
                 i = next.fetch_add(1, std::memory_order_relaxed))
                f(i, t);
        });
    }

    static int hardware_threads();

  private:
    using RangeFn = void (*)(void* ctx, size_t begin, size_t end, int thread);
    void run(size_t n, RangeFn fn, void* ctx);
    void worker_loop(int thread);
    void run_share(int thread);

    int m_size = 1;
    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::atomic<uint64_t> m_generation{0};
    std::atomic<int> m_pending{0};
    bool m_stop = false;
    // The job being run (valid while m_pending > 0).
    RangeFn m_fn = nullptr;
    void* m_ctx = nullptr;
    size_t m_n = 0;
};

// Splits [0, n) into `n_chunks` fixed chunks (independent of the thread count) and calls
// f(chunk, begin, end, thread) for each. Use with per-chunk accumulators reduced in chunk
// order to get results that do not depend on how many threads ran.
template <class F>
void parallel_chunks(ThreadPool& pool, size_t n, size_t n_chunks, F&& f) {
    pool.parallel_for(n_chunks, [&](size_t c, int t) {
        size_t b = n * c / n_chunks, e = n * (c + 1) / n_chunks;
        f(c, b, e, t);
    });
}

}  // namespace radiant
