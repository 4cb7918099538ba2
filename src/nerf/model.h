// A trained (or training) NeRF: the field, its parameters, the occupancy grid, and how rays
// reach it (scene transform, marching). Everything rendering needs, and nothing training-only.
#pragma once

#include <span>

#include "core/aligned.h"
#include "io/transforms.h"
#include "nerf/field.h"
#include "scene/camera.h"
#include "scene/marcher.h"
#include "scene/occupancy_grid.h"

namespace radiant {

struct NerfModelConfig {
    FieldConfig field = FieldConfig::instant_ngp(1.0f);
    SceneTransform scene;
    MarchConfig march;
    int grid_resolution = 128;
    // A cell is occupied when its density exceeds min(grid_threshold, its cascade's mean):
    // optical thickness 0.01 over instant-ngp's minimal step sqrt(3)/1024, in every cascade
    // (instant-ngp halves it per cascade; that kept more fog and scored lower on fox) and
    // whatever step match_pixel_footprint() picks. Snapshots from before these fields used 0.01
    // over their own step and the mean over all cascades; model_io reads them back that way.
    float grid_threshold = 0.01f / MarchConfig{}.min_step;
    bool grid_threshold_per_cascade = true;

    // instant-ngp's choices for a dataset's aabb_scale: cascades, cone angle.
    static NerfModelConfig for_scene(float aabb_scale, const SceneTransform& scene,
                                     int log2_hashmap_size = 19);
    // The same, with the scene transform and aabb_scale a dataset's json gives.
    static NerfModelConfig for_dataset(const Dataset& dataset, int log2_hashmap_size = 19);

    // Matches the marching step to what the training views resolve: a step shorter than the
    // width of a pixel at the scene (`footprint`, unit-cube frame; pixel_footprint()) spends
    // samples on detail no view constrains, and the sample budget buys fewer rays. The step
    // becomes max(instant-ngp's sqrt(3)/1024, footprint): lego at 200x200 steps 2.8x further
    // (and trains +1 dB in the same steps), lego at 800x800 keeps instant-ngp's step. The
    // occupancy threshold stays: tied to the step, it fell 3x on 270x480 fox views and left
    // the fog of the young field occupied (about 200 samples a ray instead of about 120).
    void match_pixel_footprint(float footprint);

    // An unbounded scene: the encoding covers contracted space with an inner region of
    // `inner_radius` (unit-cube frame, max norm) around the cube's centre, and rays that leave
    // the occupancy grid end in a far sample (scene/marcher.h), so the background is learnt
    // where it is instead of as haze inside the box.
    void make_unbounded(float inner_radius);
    bool unbounded() const { return field.contraction.enabled(); }
};

class NerfModel {
  public:
    explicit NerfModel(const NerfModelConfig& config);

    const NerfModelConfig& config() const { return m_config; }
    const NerfField& field() const { return m_field; }
    OccupancyGrid& grid() { return m_grid; }
    const OccupancyGrid& grid() const { return m_grid; }

    NerfModel(const NerfModel& other);
    NerfModel& operator=(const NerfModel&) = delete;

    // Flat parameters (hash tables, density MLP, colour MLP) and the packed MLP weights the
    // kernels read; call repack() after changing params().
    std::span<float> params() { return {m_params, m_own_params.size()}; }
    std::span<const float> params() const { return {m_params, m_own_params.size()}; }
    const float* packed() const { return m_packed.data(); }
    void repack() { m_field.pack(m_params, m_packed.data()); }
    // Takes `other`'s parameters (repacked) and occupancy grid; the configs must match. A copy
    // to render from while `other` keeps training.
    void copy_state_from(const NerfModel& other);
    void init_params(uint64_t seed);

    // Keeps the parameters in `storage` (params().size() floats that outlive this use, e.g. one
    // array that the MPI ranks of a machine share, so they update it in place and hold one copy
    // in cache), having copied them there when `copy` (one rank copies; the others only point
    // at the result). return_params() copies them back into the model's own memory.
    void place_params(float* storage, bool copy);
    void return_params();

  private:
    NerfModelConfig m_config;
    NerfField m_field;
    OccupancyGrid m_grid;
    AlignedVector<float> m_own_params, m_packed;
    float* m_params = nullptr;  // m_own_params, or the storage place_params() was given
};

}  // namespace radiant
