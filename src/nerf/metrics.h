// Image-quality metrics of rendered views against staged images.
#pragma once

#include "io/image.h"
#include "io/staging.h"

namespace radiant {

// PSNR (dB, values in [0, 1]) of `rendered` (RGB) against staged view `view`, whose
// premultiplied colour is composited on `background` first.
double psnr_against_view(const ImageF& rendered, const ImageSet& set, size_t view,
                         const float background[3]);

}  // namespace radiant
