// The small valid COLMAP model the colmap harness completes its inputs with, and its seeds.
#pragma once

#include "prepare/colmap_model.h"

namespace radiant::fuzz {

// Two cameras (OPENCV 64x48, SIMPLE_PINHOLE 32x32), three images with two 2D points each, four
// 3D points seen by images 10 and 11.
inline ColmapModel colmap_seed_model() {
    ColmapModel m;
    ColmapCamera a;
    a.id = 1;
    a.model_id = 4;  // OPENCV
    a.width = 64, a.height = 48;
    a.params = {60, 58, 33.5, 23.25, 0.02, -0.01, 0.001, -0.0005};
    ColmapCamera b;
    b.id = 2;
    b.model_id = 0;  // SIMPLE_PINHOLE
    b.width = 32, b.height = 32;
    b.params = {40, 16, 16};
    m.cameras = {a, b};
    for (uint32_t i = 0; i < 3; ++i) {
        ColmapImage im;
        im.id = 10 + i;
        im.camera_id = i == 2 ? 2 : 1;
        im.name = "img_" + std::to_string(i) + ".png";
        im.qvec = {0.9 + 0.01 * i, 0.1, -0.2 * i, 0.05};
        im.tvec = {0.5 * i, -1.0, 4.0};
        im.points2d = {{10.5, 11.5, int64_t(i + 1)}, {20.25, 5.0, -1}};
        m.images.push_back(im);
    }
    for (uint64_t i = 1; i <= 4; ++i) {
        ColmapPoint3D p;
        p.id = i;
        p.xyz = {0.1 * double(i), -0.2, 0.3 * double(i)};
        p.rgb = {uint8_t(10 * i), 20, 30};
        p.error = 0.5;
        p.track = {{10, 0}, {11, 0}};
        m.points.push_back(p);
    }
    return m;
}

// The selector byte of a colmap input: bit 0 binary, (byte >> 1) % 3 the file.
inline const char* const kColmapStems[3] = {"cameras", "images", "points3D"};
inline uint8_t colmap_selector(bool binary, int file) {
    return uint8_t((file << 1) | (binary ? 1 : 0));
}

}  // namespace radiant::fuzz
