#include "core/thread_pool.h"

#include <algorithm>

namespace radiant {

int ThreadPool::hardware_threads() {
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(int n_threads) {
    m_size = n_threads > 0 ? n_threads : hardware_threads();
    m_workers.reserve(m_size - 1);
    for (int t = 1; t < m_size; ++t) m_workers.emplace_back([this, t] { worker_loop(t); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
        m_generation.fetch_add(1, std::memory_order_release);
    }
    m_wake.notify_all();
    for (auto& w : m_workers) w.join();
}

void ThreadPool::run_share(int thread) {
    size_t b = m_n * thread / m_size, e = m_n * (thread + 1) / m_size;
    if (b < e) m_fn(m_ctx, b, e, thread);
}

void ThreadPool::run(size_t n, RangeFn fn, void* ctx) {
    if (n == 0) return;
    if (m_size == 1 || n == 1) {
        fn(ctx, 0, n, 0);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_fn = fn;
        m_ctx = ctx;
        m_n = n;
        m_pending.store(m_size - 1, std::memory_order_relaxed);
        m_generation.fetch_add(1, std::memory_order_release);
    }
    m_wake.notify_all();
    run_share(0);
    // Spin briefly (steps are short, wake-ups are not), then sleep.
    for (int i = 0; i < 20000 && m_pending.load(std::memory_order_acquire) > 0; ++i) {
        std::this_thread::yield();
    }
    if (m_pending.load(std::memory_order_acquire) > 0) {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_done.wait(lock, [&] { return m_pending.load(std::memory_order_acquire) == 0; });
    }
}

void ThreadPool::worker_loop(int thread) {
    uint64_t seen = 0;
    for (;;) {
        // Spin a little for the next job before blocking: back-to-back parallel regions
        // in a training step then avoid a futex round trip.
        for (int i = 0; i < 2000 && m_generation.load(std::memory_order_acquire) == seen; ++i) {
            std::this_thread::yield();
        }
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [&] { return m_generation.load(std::memory_order_acquire) != seen; });
            seen = m_generation.load(std::memory_order_acquire);
            if (m_stop) return;
        }
        run_share(thread);
        if (m_pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_done.notify_one();
        }
    }
}

}  // namespace radiant
