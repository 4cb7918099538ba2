// Real spherical-harmonics encoding of a unit direction, degree 4 (16 coefficients), with
// its gradient w.r.t. the direction. Same basis and signs as instant-ngp / tiny-cuda-nn.
//
// Layouts: directions row-major [n][3] (unit vectors, world frame); the encoding is
// row-major [n][16] at `out_stride`, so it can be written straight into an MLP input.
#pragma once

#include <cstddef>

#include "nn/simd.h"

namespace radiant {

constexpr int kShCoefficients = 16;

void sh_encode(const float* dirs, size_t n, float* out, size_t out_stride,
               KernelImpl impl = KernelImpl::kSimd);

// d_dirs[i][k] = sum_j d_out[i][j] * d(sh_j)/d(dir_k). Overwrites d_dirs.
void sh_encode_backward(const float* dirs, size_t n, const float* d_out, size_t d_out_stride,
                        float* d_dirs, KernelImpl impl = KernelImpl::kSimd);

}  // namespace radiant
