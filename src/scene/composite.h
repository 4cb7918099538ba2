// Compositing: front-to-back volume rendering of one ray and its exact backward.
//
// Samples i = 0..n-1 along the ray have density sigma_i >= 0 (1/unit-cube length), colour
// c_i (3 values) and step length dt_i. With alpha_i = 1 - exp(-sigma_i dt_i) and transmittance
// T_0 = 1, T_{i+1} = T_i (1 - alpha_i):
//     C = sum_i T_i alpha_i c_i + T_n * background.
// Compositing stops early once T falls below `min_transmittance`; those later samples
// contribute nothing, in forward and backward alike.
//
// Every loop that walks a ray front to back (training's forward and backward, finding where a
// ray turns opaque, rendering, depth, mesh colours) steps through its samples with one
// Transmittance, so all of them weigh a sample alike, to the bit.
#pragma once

#include <cmath>
#include <cstddef>

namespace radiant {

// The step of an unbounded scene's far sample (scene/marcher.h): a sample at least this long
// is opaque whatever its density (alpha = 1, and no density gradient), the background at
// infinity that takes all the light left.
inline constexpr float kFarSampleStep = 1e10f;
inline bool is_far_sample(float dt) { return dt >= kFarSampleStep; }

// The transmittance recurrence, one sample at a time.
struct Transmittance {
    float value = 1.0f;  // T_i: the share of light that reaches the next sample

    // Absorbs the next sample (density sigma, step length dt): returns its compositing weight
    // T_i alpha_i and moves on to T_{i+1} = T_i (1 - alpha_i).
    float absorb(float sigma, float dt) {
        const float alpha = is_far_sample(dt) ? 1.0f : 1.0f - std::exp(-sigma * dt);
        const float weight = value * alpha;
        value *= 1.0f - alpha;
        return weight;
    }
    // Whether compositing goes on to the next sample: T has not fallen below `threshold` (the
    // early stop). A NaN transmittance stops.
    bool visible(float threshold) const { return value >= threshold; }
};

// Compositing (and training) stops once T falls below this; instant-ngp's value.
constexpr float kMinTransmittance = 1e-4f;

struct CompositeResult {
    float rgb[3] = {0, 0, 0};
    float transmittance = 1.0f;  // T after the last composited sample
    size_t samples_used = 0;     // samples before early termination
};

CompositeResult composite_forward(const float* sigma, const float* rgb, const float* dt, size_t n,
                                  const float background[3],
                                  float min_transmittance = kMinTransmittance);

// How many of the n samples composite_forward composites (its samples_used) from the
// densities alone: the trainer drops the rest before the colour is known.
size_t samples_in_front(const float* sigma, const float* dt, size_t n,
                        float min_transmittance = kMinTransmittance);

// Given dL/dC, writes dL/dsigma_i and dL/dc_i (3 per sample) for every sample (zero after
// early termination) and dL/dbackground (3) when d_background is not null.
void composite_backward(const float* sigma, const float* rgb, const float* dt, size_t n,
                        const float background[3], const CompositeResult& forward,
                        const float d_color[3], float* d_sigma, float* d_rgb, float* d_background,
                        float min_transmittance = kMinTransmittance);

// Gradient scaling near the camera (Philip and Deschaintre, "Floaters No More", EGSR 2023):
// multiplies dL/dsigma_i and dL/dc_i of the samples closer than `distance` to the ray's origin
// by (t_i / distance)^2. A camera's rays crowd the space in front of it (their density per
// volume falls as 1 / t^2), so without it that space gets far more gradient than the scene
// further away, and a photo's rays can explain themselves with fog just in front of their own
// camera: floaters a held-out view then looks through. distance <= 0: no scaling.
void scale_near_camera_gradients(const float* t, size_t n, float distance, float* d_sigma,
                                 float* d_rgb);

}  // namespace radiant
