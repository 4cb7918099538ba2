// Small dense matrix products for the fused MLP: C (+)= A * B, float32.
//
// A is read element by element through strides, so the same kernel serves A, its transpose,
// and feature-major inputs: A(i, k) = A[i * a_row_stride + k * a_col_stride].
// B is row-major K x N with row stride ldb; C is row-major M x N with row stride ldc.
// N must be a multiple of 16 (the widest SIMD vector), so every target uses full vectors.
#pragma once

#include <cstddef>

#include "nn/simd.h"

namespace radiant {

struct GemmArgs {
    size_t M = 0, N = 0, K = 0;
    const float* A = nullptr;
    size_t a_row_stride = 0, a_col_stride = 1;
    const float* B = nullptr;
    size_t ldb = 0;
    float* C = nullptr;
    size_t ldc = 0;
    bool accumulate = false;  // C += A*B instead of C = A*B
    bool relu = false;        // store max(C, 0)
    // If set, C is zeroed where mask <= 0 (ReLU backward); mask has C's layout.
    const float* relu_mask = nullptr;
    size_t ld_mask = 0;
};

void gemm(const GemmArgs& args, KernelImpl impl = KernelImpl::kSimd);
void gemm_reference(const GemmArgs& args);

}  // namespace radiant
