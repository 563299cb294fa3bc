// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact Jacobian blocks by forward finite differences of mc_world_evaluate (see sim_jacobian.h).
#include "src/app/sim_jacobian.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim_jac_scratch_free(sim_jac_scratch* sc)
{
    free(sc->regions);
    free(sc->base);
    free(sc->moved);
    free(sc->pair_bodies);
    memset(sc, 0, sizeof *sc);
}

/// Index of a body id in the caller's array (bodies are usually in slot order), or UINT32_MAX.
static uint32_t body_index(const sim_jac_world* w, mc_body_id id)
{
    uint32_t k = id.index1 - 1;
    if (id.index1 > 0 && k < w->count && w->ids[k].index1 == id.index1)
    {
        return k;
    }
    for (k = 0; k < w->count && w->ids[k].index1 != id.index1; ++k)
    {
    }
    return k < w->count ? k : UINT32_MAX;
}

/// Fetch the region records of the last evaluation into the scratch. @return their count, or UINT32_MAX (no memory)
static uint32_t fetch_regions(const sim_jac_world* w, sim_jac_scratch* sc)
{
    uint32_t n = mc_world_get_regions(w->world, sc->regions, sc->region_cap);
    if (n > sc->region_cap)
    {
        uint32_t cap = n + n / 2 + 8;
        mc_contact_region* r = realloc(sc->regions, (size_t)cap * sizeof *r);
        if (r == NULL)
        {
            return UINT32_MAX;
        }
        sc->regions = r;
        sc->region_cap = cap;
        n = mc_world_get_regions(w->world, sc->regions, sc->region_cap);
    }
    return n;
}

/// The pair slot of bodies (a, b) in either order, or -1.
static int64_t find_pair(const sim_jac_scratch* sc, uint32_t pairs, uint32_t a, uint32_t b)
{
    for (uint32_t k = 0; k < pairs; ++k)
    {
        uint32_t x = sc->pair_bodies[2 * k], y = sc->pair_bodies[2 * k + 1];
        if ((x == a && y == b) || (x == b && y == a))
        {
            return (int64_t)k;
        }
    }
    return -1;
}

/// Sum the records' wrenches per pair into out (12 per pair: wrench of body a, then of body b; see the header),
/// bodies posed at w->poses except body `moved` (UINT32_MAX: none) at *moved_pose. Records of pairs not in the list
/// are skipped.
static void pair_wrenches(const sim_jac_world* w, const sim_jac_scratch* sc, uint32_t nrec, uint32_t pairs,
                          uint32_t moved, const mc_pose* moved_pose, double* out)
{
    memset(out, 0, (size_t)pairs * 12 * sizeof *out);
    for (uint32_t k = 0; k < nrec; ++k)
    {
        const mc_contact_region* r = &sc->regions[k];
        uint32_t i = body_index(w, r->body_i), j = body_index(w, r->body_j);
        int64_t slot = i == UINT32_MAX || j == UINT32_MAX ? -1 : find_pair(sc, pairs, i, j);
        if (slot < 0)
        {
            continue;
        }
        mc_vec3 f = mc_mul_add(r->friction_force, r->normal_force, r->region.normal); // on J
        mc_vec3 c = r->region.centroid;
        mc_vec3 pj = j == moved ? moved_pose->p : w->poses[j].p;
        mc_vec3 pi = i == moved ? moved_pose->p : w->poses[i].p;
        mc_vec3 tj = mc_add(mc_cross(mc_sub(c, pj), f), r->friction_torque);
        mc_vec3 ti = mc_neg(mc_add(mc_cross(mc_sub(c, pi), f), r->friction_torque));
        bool j_is_b = sc->pair_bodies[2 * slot + 1] == j;
        double* wa = out + 12 * slot;
        double* wj = j_is_b ? wa + 6 : wa;
        double* wi = j_is_b ? wa : wa + 6;
        const double vj[6] = {f.x, f.y, f.z, tj.x, tj.y, tj.z};
        const double vi[6] = {-f.x, -f.y, -f.z, ti.x, ti.y, ti.z};
        for (int m = 0; m < 6; ++m)
        {
            wj[m] += vj[m];
            wi[m] += vi[m];
        }
    }
}

/// Small rotation of a quaternion by the world-frame rotation vector `phi` (exact exponential).
static mc_quat rotate_by(mc_quat q, mc_vec3 phi)
{
    double th = mc_length(phi);
    double s = th > 0.0 ? sin(0.5 * th) / th : 0.5;
    mc_quat e = {cos(0.5 * th), s * phi.x, s * phi.y, s * phi.z};
    return mc_quat_mul(e, q);
}

static double* vec_slot(mc_vec3* v, int axis)
{
    return axis == 0 ? &v->x : axis == 1 ? &v->y : &v->z;
}

/// Grow the per-pair scratch to `pairs`. @return false when out of memory
static bool reserve_pairs(sim_jac_scratch* sc, uint32_t pairs)
{
    if (pairs <= sc->pair_cap)
    {
        return true;
    }
    uint32_t cap = pairs + pairs / 2 + 4;
    double* b = realloc(sc->base, (size_t)cap * 12 * sizeof *b);
    sc->base = b != NULL ? b : sc->base;
    double* m = realloc(sc->moved, (size_t)cap * 12 * sizeof *m);
    sc->moved = m != NULL ? m : sc->moved;
    uint32_t* pb = realloc(sc->pair_bodies, (size_t)cap * 2 * sizeof *pb);
    sc->pair_bodies = pb != NULL ? pb : sc->pair_bodies;
    if (b == NULL || m == NULL || pb == NULL)
    {
        return false;
    }
    sc->pair_cap = cap;
    return true;
}

/// Evaluate with body k at (pose, twist) and sum the pair wrenches into sc->moved. @return the world's status
static mc_status evaluate_moved(const sim_jac_world* w, sim_jac_scratch* sc, uint32_t k, const mc_pose* pose,
                                const mc_twist* twist, uint32_t pairs, uint64_t* evaluations)
{
    mc_status st = mc_world_set_poses(w->world, &w->ids[k], pose, 1);
    st = st == MC_OK ? mc_world_set_velocities(w->world, &w->ids[k], twist, 1) : st;
    st = st == MC_OK ? mc_world_evaluate(w->world) : st;
    *evaluations += 1;
    if (st != MC_OK)
    {
        return st;
    }
    uint32_t nrec = fetch_regions(w, sc);
    if (nrec == UINT32_MAX)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    pair_wrenches(w, sc, nrec, pairs, k, pose, sc->moved);
    return MC_OK;
}

mc_status sim_contact_jacobian(const sim_jac_world* w, sim_jac_scratch* sc, sim_jac_block* blocks, uint32_t capacity,
                               uint32_t* count, uint64_t* evaluations)
{
    uint32_t nrec = fetch_regions(w, sc);
    if (nrec == UINT32_MAX)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    // The touching pairs, in the order of their first record.
    uint32_t pairs = 0;
    for (uint32_t k = 0; k < nrec; ++k)
    {
        uint32_t i = body_index(w, sc->regions[k].body_i), j = body_index(w, sc->regions[k].body_j);
        if (i == UINT32_MAX || j == UINT32_MAX || find_pair(sc, pairs, i, j) >= 0)
        {
            continue;
        }
        if (!reserve_pairs(sc, pairs + 1))
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        sc->pair_bodies[2 * pairs] = i;
        sc->pair_bodies[2 * pairs + 1] = j;
        ++pairs;
    }
    *count = pairs;
    if (pairs == 0)
    {
        return MC_OK;
    }
    pair_wrenches(w, sc, nrec, pairs, UINT32_MAX, NULL, sc->base);
    uint32_t filled = pairs < capacity ? pairs : capacity;
    for (uint32_t p = 0; p < filled; ++p)
    {
        memset(&blocks[p], 0, sizeof blocks[p]);
        blocks[p].body_a = sc->pair_bodies[2 * p];
        blocks[p].body_b = sc->pair_bodies[2 * p + 1];
    }
    mc_status st = MC_OK;
    for (uint32_t k = 0; st == MC_OK && k < w->count; ++k)
    {
        bool touching = false;
        for (uint32_t p = 0; p < pairs && !touching; ++p)
        {
            touching = sc->pair_bodies[2 * p] == k || sc->pair_bodies[2 * p + 1] == k;
        }
        if (!touching || !w->movable[k])
        {
            continue;
        }
        const sim_jac_steps* eps = &w->steps[k];
        for (int c = 0; st == MC_OK && c < 12; ++c)
        {
            mc_pose pose = w->poses[k];
            mc_twist twist = w->twists[k];
            int axis = c % 3;
            double h;
            if (c < 3)
            {
                h = eps->rotation;
                mc_vec3 phi = mc_v3(0.0, 0.0, 0.0);
                *vec_slot(&phi, axis) = h;
                pose.q = rotate_by(pose.q, phi);
            }
            else if (c < 6)
            {
                h = eps->translation;
                *vec_slot(&pose.p, axis) += h;
            }
            else if (c < 9)
            {
                h = eps->angular;
                *vec_slot(&twist.w, axis) += h;
            }
            else
            {
                h = eps->linear;
                *vec_slot(&twist.v, axis) += h;
            }
            st = evaluate_moved(w, sc, k, &pose, &twist, pairs, evaluations);
            for (uint32_t p = 0; st == MC_OK && p < filled; ++p)
            {
                bool is_a = sc->pair_bodies[2 * p] == k, is_b = sc->pair_bodies[2 * p + 1] == k;
                if (!is_a && !is_b)
                {
                    continue;
                }
                int col = (is_a ? 0 : 6) + c % 6;
                double(*m)[12] = c < 6 ? blocks[p].stiffness : blocks[p].damping;
                for (int r = 0; r < 12; ++r)
                {
                    m[r][col] = (sc->moved[12 * p + (uint32_t)r] - sc->base[12 * p + (uint32_t)r]) / h;
                }
            }
        }
        // Body k back where it was.
        mc_status rs = mc_world_set_poses(w->world, &w->ids[k], &w->poses[k], 1);
        rs = rs == MC_OK ? mc_world_set_velocities(w->world, &w->ids[k], &w->twists[k], 1) : rs;
        st = st == MC_OK ? rs : st;
    }
    if (st == MC_OK)
    {
        st = mc_world_evaluate(w->world);
        *evaluations += 1;
    }
    return st;
}
