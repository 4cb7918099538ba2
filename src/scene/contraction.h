// Scene contraction for unbounded captures (mip-NeRF 360's, with the max norm as MERF and
// nerfacto use it, so that contracted space is a cube a hash grid covers): the inner region,
// within `radius` of `center` in the max norm, keeps its shape, scaled to [-1, 1]^3; all of the
// rest of space, out to the horizon, is drawn into the shell between 1 and 2:
//   u = (p - center) / radius,  n = max_i |u_i|,  contract(p) = u if n <= 1, else (2 - 1/n) u / n.
// The hash grid encodes contracted positions, so its resolution is spent where the cameras are
// and the background still has a place, instead of being clipped by a box into haze.
#pragma once

#include "scene/camera.h"

namespace radiant {

struct SceneContraction {
    Vec3 center{0.5f, 0.5f, 0.5f};  // unit-cube frame
    float radius = 0.0f;            // of the inner region (unit-cube frame); 0: no contraction

    bool enabled() const { return radius > 0.0f; }
    // A point of the unit-cube frame into [-2, 2]^3.
    Vec3 contract(const Vec3& p) const;
    // The inverse, for a point of the open cube (-2, 2)^3.
    Vec3 uncontract(const Vec3& c) const;
    // d contract(p) / dp, row-major 3x3 (for tests and samplers that step in contracted space).
    void jacobian(const Vec3& p, float out[9]) const;
};

}  // namespace radiant
