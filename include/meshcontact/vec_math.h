// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Small inline vector, quaternion and pose math used by the API (double precision, quaternions w,x,y,z).
#pragma once

#include <math.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C"
{
#endif

/// pi to double precision (the library's only definition; math.h's M_PI is not ISO C).
#define MC_PI 3.14159265358979323846

/// The coordinate range of the library. Mesh coordinates (after scaling) must be 0 or between MC_COORDINATE_MIN and
/// MC_COORDINATE_MAX in magnitude, and pose translations at most MC_COORDINATE_MAX in magnitude; mesh creation,
/// import and the pose setters refuse anything else (MC_ERR_OUT_OF_RANGE, or an invalid pose). Why: the exact
/// predicates are error-free only while no product of three coordinate differences overflows or underflows (every
/// coordinate 0 or of magnitude in [2^-300, 2^300]), the OBB tree stores its boxes as floats (overflow at 3.4e38;
/// below FLT_MIN its rounding bounds are absolute, so a mesh that small gets boxes of at least 2^-126 and all its
/// triangle pairs go to the exact tests), and volumes, inertias and forces take up to fifth powers of lengths. With
/// this range a mesh placed at any valid pose has coordinates below 2^67 in the other body's frame, and a coordinate
/// that the frame change makes smaller than MC_COORDINATE_SNAP is rounded to 0 there, which keeps the predicates in
/// their exact range. The lower end
/// MC_COORDINATE_MIN = 2^-240 keeps that rounding far below the rounding of the rotation itself: it moves a point by
/// less than 2^-300, under 1/128 of an ulp of the smallest non-zero coordinate a mesh can have (with a lower end at
/// 2^-300 a mesh of size 2^-299 lost whole coordinates to it: its contact volume was 0 one way round and 1 % of the
/// tetrahedron the other). Pose translations need no lower end: below 2^-300 they are that same rounding.
/// 2^64 is about 1.8e19 (light-years in metres); 2^-240 is about 5.7e-73; 2^-300 about 4.9e-91.
#define MC_COORDINATE_MAX 0x1p64
/// See MC_COORDINATE_MAX.
#define MC_COORDINATE_MIN 0x1p-240
/// Coordinates the library derives (J's vertices in I's frame, query points) below this magnitude count as 0 (see
/// MC_COORDINATE_MAX).
#define MC_COORDINATE_SNAP 0x1p-300

    /// A 3-vector (position in metres or user units, or a direction).
    typedef struct mc_vec3
    {
        double x; ///< x component
        double y; ///< y component
        double z; ///< z component
    } mc_vec3;

    /// A rotation quaternion, scalar first (w, x, y, z) as in ODE, MuJoCo and Drake. Unit length where a rotation is
    /// meant.
    typedef struct mc_quat
    {
        double w; ///< scalar part
        double x; ///< vector part x
        double y; ///< vector part y
        double z; ///< vector part z
    } mc_quat;

    /// A rigid transform mapping body coordinates to world coordinates: x_world = p + q * x_body.
    typedef struct mc_pose
    {
        mc_vec3 p; ///< position of the body frame origin (reference point) in the world frame
        mc_quat q; ///< orientation of the body frame in the world frame (unit quaternion)
    } mc_pose;

    /// Rigid velocity of a body: world-frame linear velocity of its reference point and world-frame angular velocity.
    typedef struct mc_twist
    {
        mc_vec3 v; ///< linear velocity of the body reference point, world frame (length / s)
        mc_vec3 w; ///< angular velocity, world frame (rad / s)
    } mc_twist;

    /// Force and torque acting on a body, world frame, torque about the body's reference point.
    typedef struct mc_wrench
    {
        mc_vec3 force;  ///< force, world frame (N in SI)
        mc_vec3 torque; ///< torque about the body reference point, world frame (N m in SI)
    } mc_wrench;

    /// 3x3 matrix, row major: m[r][c].
    typedef struct mc_mat33
    {
        double m[3][3]; ///< entries, row major
    } mc_mat33;

    static inline mc_vec3 mc_v3(double x, double y, double z)
    {
        mc_vec3 r = {x, y, z};
        return r;
    }
    static inline mc_vec3 mc_add(mc_vec3 a, mc_vec3 b)
    {
        return mc_v3(a.x + b.x, a.y + b.y, a.z + b.z);
    }
    static inline mc_vec3 mc_sub(mc_vec3 a, mc_vec3 b)
    {
        return mc_v3(a.x - b.x, a.y - b.y, a.z - b.z);
    }
    static inline mc_vec3 mc_scale(mc_vec3 a, double s)
    {
        return mc_v3(a.x * s, a.y * s, a.z * s);
    }
    static inline mc_vec3 mc_neg(mc_vec3 a)
    {
        return mc_v3(-a.x, -a.y, -a.z);
    }
    static inline double mc_dot(mc_vec3 a, mc_vec3 b)
    {
        return a.x * b.x + a.y * b.y + a.z * b.z;
    }
    static inline mc_vec3 mc_cross(mc_vec3 a, mc_vec3 b)
    {
        return mc_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
    }
    static inline double mc_length(mc_vec3 a)
    {
        return sqrt(mc_dot(a, a));
    }
    /// @return the largest absolute component of a (the infinity norm; NaN propagates only through fmax's rules).
    static inline double mc_max_abs3(mc_vec3 a)
    {
        return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
    }
    /// |a| also where a . a underflows or overflows (mc_length's square keeps a few bits there, or none): then from a
    /// scaled by the power of two that brings its largest component into [1/2, 1) (exact); mc_length otherwise.
    static inline double mc_length_scaled(mc_vec3 a)
    {
        double l2 = mc_dot(a, a);
        if (l2 >= 0x1p-968 && l2 <= 0x1p+968)
        {
            return sqrt(l2);
        }
        double m = mc_max_abs3(a);
        if (!(m > 0.0) || !isfinite(m))
        {
            return m > 0.0 ? m : 0.0;
        }
        int e = 0;
        (void)frexp(m, &e);
        mc_vec3 b = {ldexp(a.x, -e), ldexp(a.y, -e), ldexp(a.z, -e)};
        return ldexp(sqrt(mc_dot(b, b)), e);
    }
    /// @return a / |a|, or the zero vector when |a| is zero (a unit vector also for tiny or huge a: mc_length_scaled).
    static inline mc_vec3 mc_normalize(mc_vec3 a)
    {
        double l2 = mc_dot(a, a);
        if (!(l2 >= 0x1p-968 && l2 <= 0x1p+968))
        {
            double m = mc_max_abs3(a);
            if (!(m > 0.0) || !isfinite(m))
            {
                return mc_v3(0.0, 0.0, 0.0);
            }
            int e = 0;
            (void)frexp(m, &e);
            a = mc_v3(ldexp(a.x, -e), ldexp(a.y, -e), ldexp(a.z, -e));
        }
        double l = mc_length(a);
        return l > 0.0 ? mc_scale(a, 1.0 / l) : mc_v3(0.0, 0.0, 0.0);
    }
    /// @return a + s * b
    static inline mc_vec3 mc_mul_add(mc_vec3 a, double s, mc_vec3 b)
    {
        return mc_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
    }

    static inline mc_quat mc_quat_identity(void)
    {
        mc_quat q = {1.0, 0.0, 0.0, 0.0};
        return q;
    }
    /// @return q / |q|; the identity when |q| is zero.
    static inline mc_quat mc_quat_normalize(mc_quat q)
    {
        double l2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
        if (l2 > 0.0 && (l2 < 0x1p-968 || l2 > 0x1p+968))
        {
            // The squares underflow into subnormals (or overflow) and the norm loses its precision (|q| = 2^-534 gave a
            // norm 0.08 % off: the meshes were scaled by the rotation): scale by the power of two that brings the
            // largest component into [1/2, 1) first (exact).
            int e = 0;
            (void)frexp(fmax(fmax(fabs(q.w), fabs(q.x)), fmax(fabs(q.y), fabs(q.z))), &e);
            q.w = ldexp(q.w, -e), q.x = ldexp(q.x, -e), q.y = ldexp(q.y, -e), q.z = ldexp(q.z, -e);
            l2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
        }
        double l = sqrt(l2);
        if (!(l > 0.0))
        {
            return mc_quat_identity();
        }
        mc_quat r = {q.w / l, q.x / l, q.y / l, q.z / l};
        return r;
    }
    static inline mc_quat mc_quat_conj(mc_quat q)
    {
        mc_quat r = {q.w, -q.x, -q.y, -q.z};
        return r;
    }
    /// Hamilton product a * b (apply b first, then a).
    static inline mc_quat mc_quat_mul(mc_quat a, mc_quat b)
    {
        mc_quat r = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
        return r;
    }
    /// Rotation matrix of a unit quaternion.
    static inline mc_mat33 mc_quat_to_mat33(mc_quat q)
    {
        double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
        double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
        double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
        mc_mat33 r = {{{1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)},
                       {2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)},
                       {2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)}}};
        return r;
    }
    static inline mc_vec3 mc_mat33_mul_vec(const mc_mat33* m, mc_vec3 v)
    {
        return mc_v3(m->m[0][0] * v.x + m->m[0][1] * v.y + m->m[0][2] * v.z,
                     m->m[1][0] * v.x + m->m[1][1] * v.y + m->m[1][2] * v.z,
                     m->m[2][0] * v.x + m->m[2][1] * v.y + m->m[2][2] * v.z);
    }
    /// Transposed product m^T v.
    static inline mc_vec3 mc_mat33_tmul_vec(const mc_mat33* m, mc_vec3 v)
    {
        return mc_v3(m->m[0][0] * v.x + m->m[1][0] * v.y + m->m[2][0] * v.z,
                     m->m[0][1] * v.x + m->m[1][1] * v.y + m->m[2][1] * v.z,
                     m->m[0][2] * v.x + m->m[1][2] * v.y + m->m[2][2] * v.z);
    }
    /// Rotate v by unit quaternion q.
    static inline mc_vec3 mc_quat_rotate(mc_quat q, mc_vec3 v)
    {
        mc_vec3 u = mc_v3(q.x, q.y, q.z);
        mc_vec3 t = mc_scale(mc_cross(u, v), 2.0);
        return mc_add(mc_add(v, mc_scale(t, q.w)), mc_cross(u, t));
    }
    static inline mc_pose mc_pose_identity(void)
    {
        mc_pose p = {{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}};
        return p;
    }
    /// x_world = pose.p + pose.q * x_body
    static inline mc_vec3 mc_pose_transform(const mc_pose* pose, mc_vec3 x)
    {
        return mc_add(pose->p, mc_quat_rotate(pose->q, x));
    }
    /// x_body = pose.q^-1 * (x_world - pose.p)
    static inline mc_vec3 mc_pose_inv_transform(const mc_pose* pose, mc_vec3 x)
    {
        return mc_quat_rotate(mc_quat_conj(pose->q), mc_sub(x, pose->p));
    }
    /// Composition a * b: first b, then a.
    static inline mc_pose mc_pose_mul(const mc_pose* a, const mc_pose* b)
    {
        mc_pose r;
        r.q = mc_quat_mul(a->q, b->q);
        r.p = mc_pose_transform(a, b->p);
        return r;
    }
    /// Inverse transform.
    static inline mc_pose mc_pose_inverse(const mc_pose* a)
    {
        mc_pose r;
        r.q = mc_quat_conj(a->q);
        r.p = mc_quat_rotate(r.q, mc_neg(a->p));
        return r;
    }
    /// True when a pose can be used: every position component within MC_COORDINATE_MAX in magnitude and a
    /// quaternion whose squared norm is finite and non-zero (it need not be normalised; the library normalises it).
    static inline bool mc_pose_is_valid(const mc_pose* p)
    {
        double l2 = p->q.w * p->q.w + p->q.x * p->q.x + p->q.y * p->q.y + p->q.z * p->q.z;
        return fabs(p->p.x) <= MC_COORDINATE_MAX && fabs(p->p.y) <= MC_COORDINATE_MAX &&
               fabs(p->p.z) <= MC_COORDINATE_MAX && isfinite(l2) && l2 > 0.0;
    }

#ifdef __cplusplus
}
#endif
