// Cache-line aligned storage for SIMD kernels.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace radiant {

template <class T, size_t kAlign = 64>
struct AlignedAllocator {
    using value_type = T;
    AlignedAllocator() = default;
    template <class U>
    AlignedAllocator(const AlignedAllocator<U, kAlign>&) {}
    template <class U>
    struct rebind {
        using other = AlignedAllocator<U, kAlign>;
    };
    T* allocate(size_t n) {
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kAlign)));
    }
    void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(kAlign)); }
    bool operator==(const AlignedAllocator&) const { return true; }
    bool operator!=(const AlignedAllocator&) const { return false; }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace radiant
