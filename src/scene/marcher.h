// Ray marching through the occupancy grid: emits the samples the field is evaluated at.
//
// Steps are `min_step` (sqrt(3)/1024 of the unit cube) near the scene and grow with distance
// t * cone_angle for large scenes, never beyond the cell size of the cascade being crossed.
// Empty space is crossed in one jump to the exit of the largest empty cube of cells around the
// ray's cell (OccupancyGrid::empty_radius) or of its empty 8^3 block. At most `max_samples`
// per ray. In an unbounded scene (far_sample) a ray that leaves the grid ends with one more
// sample "at infinity" (kFarSampleDistance along the ray, so its contracted position lies on
// the edge of contracted space in the ray's direction) whose step is so long that it takes all
// the light left: the background is part of the field, not a colour behind a box.
#pragma once

#include <cstddef>

#include "core/aligned.h"
#include "scene/camera.h"
#include "scene/composite.h"
#include "scene/occupancy_grid.h"

namespace radiant {

struct MarchConfig {
    float min_step = 1.7320508f / 1024.0f;
    float cone_angle = 0.0f;  // 1/256 for large (aabb_scale > 1) scenes
    size_t max_samples = 1024;
    bool far_sample = false;  // unbounded scenes: end every ray that leaves the grid at infinity
};

inline constexpr float kFarSampleDistance = 1e5f;  // unit-cube frame; its step: kFarSampleStep

struct RaySample {
    Vec3 position;  // unit-cube frame
    float t = 0;    // distance along the ray
    float dt = 0;   // step length represented by this sample
};

// Writes up to cfg.max_samples samples in increasing t; returns how many.
size_t march_ray(const Ray& ray, const OccupancyGrid& grid, const MarchConfig& cfg, RaySample* out);

// Incremental marching: repeated calls with one cursor return the ray's samples (the same ones
// march_ray gives, in order) at most `max_count` at a time, so a renderer can stop marching a
// ray once it is opaque. cursor.done tells when the ray has no more samples.
struct MarchCursor {
    float t = 0, t_end = 0;
    size_t emitted = 0;
    bool started = false, done = false;
    bool far_due = false;  // the far sample is still to be emitted
};
size_t march_ray_segment(const Ray& ray, const OccupancyGrid& grid, const MarchConfig& cfg,
                         MarchCursor& cursor, size_t max_count, RaySample* out);

// Entry and exit distances of the ray through the cube [lo, hi]^3; false if it misses.
bool intersect_box(const Ray& ray, float lo, float hi, float& t_enter, float& t_exit);

}  // namespace radiant
