// Cheap image measures for choosing photos and video frames: sharpness (variance of the
// Laplacian, as instant-ngp's colmap2nerf records it) and a tiny thumbnail to spot
// near-duplicate frames.
#pragma once

#include <vector>

#include "io/image.h"

namespace radiant {

struct GrayImage {
    int width = 0, height = 0;
    std::vector<float> values;  // luma in 0..255, row-major
};

// Rec. 601 luma of an 8- or 16-bit image (alpha ignored), on OpenCV's 0..255 scale.
GrayImage to_gray(const RawImage& image);

// Variance of the 4-neighbour Laplacian over the interior pixels (OpenCV's
// cv2.Laplacian(gray, CV_64F).var() up to the border handling). Higher is sharper.
double laplacian_variance(const GrayImage& gray);

// The image box-averaged onto a size x size grid (aspect ratio not kept).
std::vector<float> thumbnail(const GrayImage& gray, int size = 32);

// Mean absolute difference of two thumbnails of the same size, in luma units (0..255).
double thumbnail_difference(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace radiant
