// Image-quality metrics of rendered views against staged images.
#pragma once

#include "io/image.h"
#include "io/staging.h"

namespace radiant {

class ThreadPool;

// The staged view's premultiplied colour composited on `background`, as an RGB image.
ImageF view_on_background(const ImageSet& set, size_t view, const float background[3]);

// PSNR (dB, values in [0, 1]) of `rendered` (RGB) against staged view `view`, whose
// premultiplied colour is composited on `background` first.
double psnr_against_view(const ImageF& rendered, const ImageSet& set, size_t view,
                         const float background[3]);

// PSNR of two RGB images of the same size (99 dB when identical).
double psnr(const ImageF& a, const ImageF& b);

// Structural similarity of two RGB images of the same size (values in [0, 1]): an 11x11
// Gaussian window (sigma 1.5), C1 = 0.01^2, C2 = 0.03^2, over the window positions that fit
// inside the image, averaged over positions and channels (the convention NeRF papers report).
// With a pool, rows are filtered in parallel; the value does not depend on the thread count.
double ssim(const ImageF& a, const ImageF& b, ThreadPool* pool = nullptr);

}  // namespace radiant
