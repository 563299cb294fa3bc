// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// The simulator's BDF integration (part of simulate.c's module, state in sim_internal.h): the state vector, the
// right-hand side, the Jacobian (rigid-body terms, the library's contact blocks, the force elements'), the contact
// predictor, step limits and app_sim_step_bdf.
#include "src/app/sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------
// BDF integration (see simulate.h)
// ---------------------------------------------------------------------------------------------------------------

typedef double mat3[3][3];

/// [v]x, the cross-product matrix.
static void skew(mc_vec3 v, mat3 out)
{
    out[0][0] = 0.0;
    out[0][1] = -v.z;
    out[0][2] = v.y;
    out[1][0] = v.z;
    out[1][1] = 0.0;
    out[1][2] = -v.x;
    out[2][0] = -v.y;
    out[2][1] = v.x;
    out[2][2] = 0.0;
}

static void mat3_mul(mat3 a, mat3 b, mat3 out)
{
    mat3 r;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            r[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    memcpy(out, r, sizeof r);
}

/// The left Jacobian of SO(3) at phi (inverse: `inverse`): a world angular velocity w = J(phi) dphi/dt for
/// R = exp(phi) R_ref. Series below 1e-4 rad, where the closed forms lose digits.
static void so3_left_jacobian(mc_vec3 phi, bool inverse, mat3 out)
{
    double th = mc_length(phi);
    double a, b; // J = I + a [phi]x + b [phi]x^2
    if (inverse)
    {
        a = -0.5;
        b = th < 1e-4 ? 1.0 / 12.0 + th * th / 720.0 : 1.0 / (th * th) - (1.0 + cos(th)) / (2.0 * th * sin(th));
    }
    else
    {
        a = th < 1e-4 ? 0.5 - th * th / 24.0 : (1.0 - cos(th)) / (th * th);
        b = th < 1e-4 ? 1.0 / 6.0 - th * th / 120.0 : (th - sin(th)) / (th * th * th);
    }
    mat3 k, k2;
    skew(phi, k);
    mat3_mul(k, k, k2);
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            out[i][j] = (i == j ? 1.0 : 0.0) + a * k[i][j] + b * k2[i][j];
        }
    }
}

static mc_vec3 mat3_vec(mat3 m, mc_vec3 v)
{
    return mc_v3(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
                 m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

static mc_quat quat_exp(mc_vec3 phi)
{
    double th = mc_length(phi);
    double sc = th > 1e-8 ? sin(0.5 * th) / th : 0.5 - th * th / 48.0;
    mc_quat q = {cos(0.5 * th), sc * phi.x, sc * phi.y, sc * phi.z};
    return q;
}

static mc_vec3 y_vec(const double* y, int k)
{
    return mc_v3(y[k], y[k + 1], y[k + 2]);
}

static void y_set(double* y, int k, mc_vec3 v)
{
    y[k] = v.x;
    y[k + 1] = v.y;
    y[k + 2] = v.z;
}

/// The part states of y (ground parts keep theirs): q = exp(phi) q_ref, a unit quaternion by construction.
static void unpack_state(const app_sim* s, const double* y, rb_state* out)
{
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m];
        const double* ym = y + 12 * m;
        out[i].p = y_vec(ym, 0);
        out[i].q = mc_quat_normalize(mc_quat_mul(quat_exp(y_vec(ym, 3)), s->q_ref[i]));
        out[i].v = y_vec(ym, 6);
        out[i].w = y_vec(ym, 9);
    }
}

/// y from the part states, with phi = 0: every part's orientation becomes its reference.
static void pack_state(app_sim* s)
{
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m];
        double* ym = s->y + 12 * m;
        s->q_ref[i] = s->state[i].q;
        y_set(ym, 0, s->state[i].p);
        y_set(ym, 3, mc_v3(0.0, 0.0, 0.0));
        y_set(ym, 6, s->state[i].v);
        y_set(ym, 9, s->state[i].w);
    }
}

/// Fraction of a contact's estimated impact penetration that a trial state of a BDF step may reach at a new contact
/// before the step is retaken (the contact predictor), and the fraction the retaken step aims to end at.
#define APP_SIM_ONSET_TRIGGER 0.1
#define APP_SIM_ONSET_LAND 0.02
/// Retakes of one step by the predictor before the error test is left to find the onset (each retake lands closer:
/// more would mean the rate estimate is far off, e.g. a contact that opens in a spin).
#define APP_SIM_ONSET_RETAKES 3

/// Adams' contact predictor. A trial state of the step in progress (time t) that finds a contact which was
/// separated at the step's start deeper than APP_SIM_ONSET_TRIGGER of its impact penetration stops the step: the
/// onset time is estimated from the depth and its rate, t - g / gdot, and app_sim_step_bdf retakes the step to end
/// APP_SIM_ONSET_LAND of the impact penetration past it, restarting the integrator at order one. Without it, the
/// error test finds the onset and halves the step again and again. @return true when the step must stop
static bool onset_check(app_sim* s, double t)
{
    if (s->onset_retakes >= APP_SIM_ONSET_RETAKES) // then the error test decides (a stop now failed the run with an
    {                                              // empty message)
        s->onset_stop = false;
        return false;
    }
    bool stop = false;
    double t_onset = INFINITY;
    for (int c = 0; c < s->scn->contact_count; ++c)
    {
        const app_sim_contact_summary* now = &s->stage_summary[2][c];
        double rate = now->dominant.rate;
        if (s->summary[c].regions > 0 || now->regions == 0 || !(rate > 0.0))
        {
            continue;
        }
        double gimp = sim_impact_penetration(s, c, rate);
        if (!(now->depth > APP_SIM_ONSET_TRIGGER * gimp))
        {
            continue;
        }
        double tc = t - now->depth / rate;
        if (tc < t_onset)
        {
            t_onset = tc;
            s->onset_rate = rate;
            s->onset_land = APP_SIM_ONSET_LAND * gimp;
        }
        stop = true;
    }
    s->onset_stop = stop;
    s->onset_time = t_onset;
    s->onset_trial = t;
    return stop;
}

static int bdf_rhs(double t, const double* y, double* dydt, void* user)
{
    app_sim* s = user;
    s->force_time = t;
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        s->tmp[i] = s->state[i];
    }
    unpack_state(s, y, s->tmp);
    // The contacts of every trial state go to stage_summary[2]; stage_summary[3] keeps, per contact, the trial with
    // the largest normal force of the step in progress (for the message when the step fails).
    if (!sim_evaluate(s, s->tmp, s->k[1], false, s->stage_summary[2], s->bdf_err, sizeof s->bdf_err))
    {
        return 1;
    }
    if (onset_check(s, t))
    {
        return 1;
    }
    for (int c = 0; c < s->scn->contact_count; ++c)
    {
        const app_sim_contact_summary* now = &s->stage_summary[2][c];
        app_sim_contact_summary* kept = &s->stage_summary[3][c];
        if (now->regions > 0 && (kept->regions == 0 || now->normal_force > kept->normal_force))
        {
            *kept = *now;
        }
    }
    for (int m = 0; m < s->moving_count; ++m)
    {
        const rb_deriv* d = &s->k[1][s->moving[m]];
        const double* ym = y + 12 * m;
        double* f = dydt + 12 * m;
        mat3 jinv;
        so3_left_jacobian(y_vec(ym, 3), true, jinv);
        y_set(f, 0, y_vec(ym, 6));
        y_set(f, 3, mat3_vec(jinv, y_vec(ym, 9)));
        y_set(f, 6, d->dv);
        y_set(f, 9, d->dw);
    }
    return 0;
}

/// dfdy[row][col] += sign * m (3 x 3) at (r0, c0) of the block-sparse Jacobian (12 x 12 blocks, one per moving part).
static void add_block(sim_bsm* dfdy, int r0, int c0, mat3 m, double sign)
{
    double* b = sim_bsm_block(dfdy, r0 / 12, c0 / 12) + (r0 % 12) * 12 + c0 % 12;
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            b[i * 12 + j] += sign * m[i][j];
        }
    }
}

/// R A R^T of a body-frame matrix A (the world-frame inertia or its inverse) of orientation q.
static void world_matrix(mc_quat q, const mc_mat33* a, mat3 out)
{
    mc_mat33 r = mc_quat_to_mat33(q);
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            double v = 0.0;
            for (int k = 0; k < 3; ++k)
            {
                for (int l = 0; l < 3; ++l)
                {
                    v += r.m[i][k] * a->m[k][l] * r.m[j][l];
                }
            }
            out[i][j] = v;
        }
    }
}

/// The rigid-body part of the Jacobian of bdf_rhs (the contact part is added by add_contact_jacobian): dp/dt = v,
/// dphi/dt = J^-1(phi) w (its phi dependence taken at phi = 0: 1/2 [w]x), and dw/dt = I_w^-1 r, r = T - w x I_w w,
/// through w (gyroscopic term) and through the rotation of I_w = R I R^T (d(M x)/dtheta = M [x]x - [M x]x for
/// M = R A R^T, theta = J(phi) phi), T held fixed (its contact part comes from the blocks). Exactness is not needed
/// (the Jacobian only drives the corrector's Newton iteration, whose converged result and error test do not depend
/// on it), but a good one saves iterations and Jacobian updates.
static void rigid_jacobian(const app_sim* s, const double* y, sim_bsm* dfdy)
{
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m], o = 12 * m;
        const double* ym = y + o;
        mat3 eye = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}, jinv, wx, iw, iwinv, a, b;
        add_block(dfdy, o, o + 6, eye, 1.0);
        so3_left_jacobian(y_vec(ym, 3), true, jinv);
        add_block(dfdy, o + 3, o + 9, jinv, 1.0);
        mc_vec3 w = y_vec(ym, 9);
        skew(w, wx);
        add_block(dfdy, o + 3, o + 3, wx, 0.5);
        // d/dw of -I_w^-1 (w x I_w w) = -I_w^-1 ([w]x I_w - [I_w w]x)
        world_matrix(s->tmp[i].q, &s->inertia[i], iw);
        world_matrix(s->tmp[i].q, &s->inv_inertia[i], iwinv);
        mat3_mul(wx, iw, a);
        skew(mat3_vec(iw, w), b);
        for (int r = 0; r < 3; ++r)
        {
            for (int c = 0; c < 3; ++c)
            {
                a[r][c] -= b[r][c];
            }
        }
        mat3_mul(iwinv, a, a);
        add_block(dfdy, o + 9, o + 9, a, -1.0);
        // d/dtheta: I_w^-1 [r]x - [I_w^-1 r]x - I_w^-1 [w]x (I_w [w]x - [I_w w]x), then times J(phi)
        mc_vec3 iww = mat3_vec(iw, w);
        mc_vec3 r = mc_sub(s->stage_wrench[i].torque, mc_cross(w, iww));
        mat3 rx, irx, c, d, jl;
        skew(r, rx);
        skew(mat3_vec(iwinv, r), irx);
        mat3_mul(iwinv, rx, c);
        mat3_mul(iw, wx, d);
        skew(iww, b);
        for (int k = 0; k < 9; ++k)
        {
            d[k / 3][k % 3] -= b[k / 3][k % 3];
        }
        mat3_mul(wx, d, d);
        mat3_mul(iwinv, d, d);
        for (int k = 0; k < 9; ++k)
        {
            c[k / 3][k % 3] -= irx[k / 3][k % 3] + d[k / 3][k % 3];
        }
        so3_left_jacobian(y_vec(ym, 3), false, jl);
        mat3_mul(c, jl, c);
        add_block(dfdy, o + 9, o + 3, c, 1.0);
    }
}

/// 3 x 3 sub-block (r0, c0) of a 12 x 12 contact block.
static void sub3(const double (*blk)[12], int r0, int c0, mat3 out)
{
    for (int i = 0; i < 3; ++i)
    {
        for (int j = 0; j < 3; ++j)
        {
            out[i][j] = blk[r0 + i][c0 + j];
        }
    }
}

/// Add d(wrench of body c) / d(state of its part Q) from one contact block (the body's rows `rc`, the other body's
/// columns `ck`, body k on part Q) into the rows of body c's part: the body's pose and twist follow the part's state
/// (rotation delta = J(phi) dphi, translation dp - [r_k]x delta, angular dw, linear dv - [r_k]x dw - [w]x [r_k]x
/// delta), and the part's wrench is the body's force and its torque plus r_c x force.
static void add_pair_terms(const app_sim* s, const sim_jac_block* blk, int rc, int ck, int c, int k, sim_bsm* dfdy)
{
    int pc = s->bodies[c].part, pk = s->bodies[k].part;
    int mc = s->moving_of_part[pc], mk = s->moving_of_part[pk];
    if (mc < 0 || mk < 0)
    {
        return;
    }
    const rb_state* xq = &s->tmp[pk];
    mc_vec3 rk = mc_sub(s->body_poses[k].p, xq->p), rcv = mc_sub(s->body_poses[c].p, s->tmp[pc].p);
    mat3 rkx, wx, rcx, jl, iwinv;
    skew(rk, rkx);
    skew(xq->w, wx);
    skew(rcv, rcx);
    so3_left_jacobian(y_vec(s->y_scratch_state + 12 * mk, 3), false, jl);
    world_matrix(s->tmp[pc].q, &s->inv_inertia[pc], iwinv);
    double inv_m = 1.0 / s->mass[pc];
    int oc = 12 * mc, ok = 12 * mk;
    // g[row: force 0, torque 1][column: p, phi, v, w] of body c's wrench (about its reference point)
    for (int row = 0; row < 2; ++row)
    {
        mat3 kr, kt, dr, dt, wrk, tmp;
        sub3(blk->stiffness, rc + 3 * row, ck, kr);     // d/d rotation
        sub3(blk->stiffness, rc + 3 * row, ck + 3, kt); // d/d translation
        sub3(blk->damping, rc + 3 * row, ck, dr);       // d/d angular velocity
        sub3(blk->damping, rc + 3 * row, ck + 3, dt);   // d/d linear velocity
        mat3 g[4];
        memcpy(g[0], kt, sizeof kt);
        // rotation: kr - kt [rk]x - dt [w]x [rk]x, then times J(phi)
        mat3_mul(kt, rkx, tmp);
        mat3_mul(wx, rkx, wrk);
        mat3_mul(dt, wrk, wrk);
        for (int i = 0; i < 3; ++i)
        {
            for (int j = 0; j < 3; ++j)
            {
                g[1][i][j] = kr[i][j] - tmp[i][j] - wrk[i][j];
            }
        }
        mat3_mul(g[1], jl, g[1]);
        memcpy(g[2], dt, sizeof dt);
        mat3_mul(dt, rkx, tmp);
        for (int i = 0; i < 3; ++i)
        {
            for (int j = 0; j < 3; ++j)
            {
                g[3][i][j] = dr[i][j] - tmp[i][j];
            }
        }
        for (int col = 0; col < 4; ++col)
        {
            if (row == 0)
            {
                // force rows: dv/dt = F / m; torque about the centre of mass gains r_c x F
                add_block(dfdy, oc + 6, ok + 3 * col, g[col], inv_m);
                mat3_mul(rcx, g[col], tmp);
                mat3_mul(iwinv, tmp, tmp);
                add_block(dfdy, oc + 9, ok + 3 * col, tmp, 1.0);
            }
            else
            {
                mat3_mul(iwinv, g[col], tmp);
                add_block(dfdy, oc + 9, ok + 3 * col, tmp, 1.0);
            }
        }
    }
}

/// The contact part of the Jacobian: sim_contact_jacobian's blocks at the state s->tmp (evaluated), assembled over
/// the parts, plus the turning of each body's lever arm with its part ([F_c]x [r_c]x on the torque).
/// To use the library's analytic mc_world_get_jacobian instead, fill s->blocks from it here: the assembly is the same.
/// The index of body `id` in s->jworld.ids, or -1.
static int jacobian_body(const app_sim* s, mc_body_id id)
{
    for (uint32_t b = 0; b < s->jworld.count; ++b)
    {
        if (s->jworld.ids[b].index1 == id.index1 && s->jworld.ids[b].generation == id.generation)
        {
            return (int)b;
        }
    }
    return -1;
}

/// The library's blocks (mc_world_get_jacobian: the force laws differentiated exactly, the region geometry by central
/// differences of each pair's query: the simulator sets MC_JACOBIAN_DIFFERENCES, see app_sim_create) at the evaluated
/// state, in sim_jac_block's layout: per body the library orders its columns translation, rotation (pose) and linear,
/// angular (twist); sim_jac_block rotation, translation and angular, linear. @return MC_OK, MC_ERR_UNSUPPORTED
/// (stiction or a user law: the caller differences the world instead) or another failure.
static mc_status library_jacobian(app_sim* s, uint32_t* count)
{
    mc_status st = mc_world_get_jacobian(s->world, s->lib_blocks, s->lib_block_cap, count);
    if (st == MC_ERR_CAPACITY || *count > s->block_cap)
    {
        mc_jacobian_block* lb = realloc(s->lib_blocks, (size_t)*count * sizeof *lb);
        sim_jac_block* nb = lb != NULL ? realloc(s->blocks, (size_t)*count * sizeof *nb) : NULL;
        s->lib_blocks = lb != NULL ? lb : s->lib_blocks;
        if (lb == NULL || nb == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        s->blocks = nb;
        s->lib_block_cap = s->block_cap = *count;
        st = mc_world_get_jacobian(s->world, s->lib_blocks, s->lib_block_cap, count);
    }
    if (st != MC_OK)
    {
        return st;
    }
    static const int col[12] = {3, 4, 5, 0, 1, 2, 9, 10, 11, 6, 7, 8}; // library column of each sim_jac column
    for (uint32_t p = 0; p < *count; ++p)
    {
        const mc_jacobian_block* lb = &s->lib_blocks[p];
        sim_jac_block* b = &s->blocks[p];
        int ia = jacobian_body(s, lb->body_i), ib = jacobian_body(s, lb->body_j);
        if (ia < 0 || ib < 0)
        {
            return MC_ERR_INVALID_ARGUMENT;
        }
        b->body_a = (uint32_t)ia;
        b->body_b = (uint32_t)ib;
        for (int r = 0; r < 12; ++r)
        {
            for (int c = 0; c < 12; ++c)
            {
                b->stiffness[r][c] = lb->stiffness[r][col[c]];
                b->damping[r][c] = lb->damping[r][col[c]];
            }
        }
    }
    return MC_OK;
}

static bool add_contact_jacobian(app_sim* s, sim_bsm* dfdy)
{
    uint32_t count = 0;
    // the library does not differentiate stiction (and would log each refusal)
    // Without contacts there is nothing to differentiate (the world of parts without geometry is never evaluated).
    mc_status st = sim_has_stiction(s->scn) ? MC_ERR_UNSUPPORTED
                   : s->wcontact_count == 0 ? MC_OK
                                            : library_jacobian(s, &count);
    if (st != MC_ERR_UNSUPPORTED && st != MC_OK)
    {
        return sim_set_err(s->bdf_err, sizeof s->bdf_err, "contact Jacobian failed at t = %g: %s", s->time,
                           mc_status_string(st));
    }
    if (st == MC_ERR_UNSUPPORTED)
    {
        s->fd_jacobians += 1;
        st = sim_contact_jacobian(&s->jworld, &s->jscratch, s->blocks, s->block_cap, &count, &s->evaluations);
    }
    if (st == MC_OK && count > s->block_cap)
    {
        sim_jac_block* nb = realloc(s->blocks, (size_t)count * sizeof *nb);
        if (nb == NULL)
        {
            return sim_set_err(s->bdf_err, sizeof s->bdf_err, "out of memory");
        }
        s->blocks = nb;
        s->block_cap = count;
        st = sim_contact_jacobian(&s->jworld, &s->jscratch, s->blocks, s->block_cap, &count, &s->evaluations);
    }
    if (st != MC_OK)
    {
        return sim_set_err(s->bdf_err, sizeof s->bdf_err, "contact evaluation failed at t = %g: %s", s->time,
                           mc_status_string(st));
    }
    s->stats.jacobians += 1;
    for (uint32_t p = 0; p < count; ++p)
    {
        const sim_jac_block* b = &s->blocks[p];
        int body[2] = {(int)b->body_a, (int)b->body_b};
        for (int rc = 0; rc < 2; ++rc)
        {
            for (int ck = 0; ck < 2; ++ck)
            {
                add_pair_terms(s, b, 6 * rc, 6 * ck, body[rc], body[ck], dfdy);
            }
        }
    }
    for (int b = 0; b < s->body_count; ++b)
    {
        int pc = s->bodies[b].part, mc = s->moving_of_part[pc];
        if (mc < 0)
        {
            continue;
        }
        mat3 fx, rx, iwinv, t;
        skew(s->body_wrenches[b].force, fx);
        skew(mc_sub(s->body_poses[b].p, s->tmp[pc].p), rx);
        mat3_mul(fx, rx, t);
        world_matrix(s->tmp[pc].q, &s->inv_inertia[pc], iwinv);
        mat3_mul(iwinv, t, t);
        add_block(dfdy, 12 * mc + 9, 12 * mc + 3, t, 1.0);
    }
    return true;
}

/// The accelerations (dv, dw; 6 per moving part) the mechanism's force elements give at the state in s->tmp.
static bool force_accelerations(app_sim* s, double* acc)
{
    const mc_wrench* fw = sim_mech_forces(s, s->tmp, s->bdf_err, sizeof s->bdf_err);
    if (fw == NULL)
    {
        return false;
    }
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m];
        mat3 iwinv;
        world_matrix(s->tmp[i].q, &s->inv_inertia[i], iwinv);
        y_set(acc, 6 * m, mc_scale(fw[i].force, 1.0 / s->mass[i]));
        y_set(acc, 6 * m + 3, mat3_vec(iwinv, fw[i].torque));
    }
    return true;
}

/// The force elements' terms of the Jacobian (sim_forces.c does not differentiate its expressions): forward
/// differences of their accelerations over every state component, n + 1 evaluations of the elements alone.
static bool add_force_jacobian(app_sim* s, const double* y, sim_bsm* dfdy, int n)
{
    int na = 6 * s->moving_count;
    double* buf = malloc((size_t)(n + 2 * na) * sizeof *buf);
    if (buf == NULL)
    {
        return sim_set_err(s->bdf_err, sizeof s->bdf_err, "out of memory");
    }
    double *yp = buf, *a0 = buf + n, *a1 = buf + n + na;
    memcpy(yp, y, (size_t)n * sizeof *y);
    bool ok = force_accelerations(s, a0);
    for (int c = 0; ok && c < n; ++c)
    {
        double h = 1.5e-8 * fmax(fabs(y[c]), 1.0); // about sqrt(eps) relative: the forward difference's best step
        yp[c] = y[c] + h;
        unpack_state(s, yp, s->tmp);
        ok = force_accelerations(s, a1);
        yp[c] = y[c];
        for (int r = 0; ok && r < na; ++r)
        {
            if (a1[r] != a0[r]) // only the parts an element couples: the Jacobian stays sparse
            {
                sim_bsm_add(dfdy, 12 * (r / 6) + 6 + r % 6, c, (a1[r] - a0[r]) / h);
            }
        }
    }
    unpack_state(s, y, s->tmp);
    free(buf);
    return ok;
}

static int bdf_jac(double t, const double* y, sim_bsm* dfdy, void* user)
{
    app_sim* s = user;
    s->force_time = t;
    int n = 12 * s->moving_count;
    for (int i = 0; i < s->scn->part_count; ++i)
    {
        s->tmp[i] = s->state[i];
    }
    unpack_state(s, y, s->tmp);
    memcpy(s->y_scratch_state, y, (size_t)n * sizeof *y);
    // The world at y (the corrector may have evaluated elsewhere last).
    if (!sim_evaluate(s, s->tmp, s->k[1], false, NULL, s->bdf_err, sizeof s->bdf_err))
    {
        return 1;
    }
    rigid_jacobian(s, y, dfdy);
    if (s->forces != NULL && !add_force_jacobian(s, y, dfdy, n))
    {
        return 1;
    }
    return s->body_count == 0 || add_contact_jacobian(s, dfdy) ? 0 : 1;
}

/// 1: also limit BDF steps by the library's contact prediction, mc_world_get_step_hint. Off: with it the knob drop
/// took 5.24 s of CPU instead of 1.34 and data/ball_pile.scn 1.00 s instead of 0.31 (RK4: 0.44), the distance
/// queries of every step costing more than they save; the thickness guard below keeps the thin plate test passing.
#ifndef APP_SIM_USE_STEP_HINT
#define APP_SIM_USE_STEP_HINT 0
#endif

/// The largest step that cannot step over a contact onset: a guard, no part point moves relative to another by more
/// than half the thinnest contact geometry's smallest extent (mesh frame bounding box) in one step, at the current
/// speeds plus what gravity adds; with APP_SIM_USE_STEP_HINT also the library's step hint (see above).
static double step_limit(app_sim* s)
{
    double limit = INFINITY;
    double vmax = 0.0;
    for (int m = 0; m < s->moving_count; ++m)
    {
        int i = s->moving[m];
        vmax = fmax(vmax, mc_length(s->state[i].v) + mc_length(s->state[i].w) * s->part_radius[i]);
    }
    double dt_out = s->scn->end_time / s->scn->steps;
    double speed = 2.0 * vmax + mc_length(s->scn->gravity) * fmin(dt_out, s->hmax);
#if APP_SIM_USE_STEP_HINT
    // Not below the time to close a tenth of the smallest estimated impact penetration: a step may enter a contact
    // that far (the onset rule accepts it), and a pair a rounding error apart would otherwise stall the run.
    double hint = INFINITY;
    if (s->body_count > 0 && speed > 0.0 && mc_world_get_step_hint(s->world, &hint) == MC_OK)
    {
        limit = fmax(hint, 0.1 * s->gscale / speed);
    }
#endif
    if (isfinite(s->thin) && speed > 0.0)
    {
        limit = fmin(limit, 0.5 * s->thin / speed);
    }
    for (int c = 0; c < s->scn->contact_count; ++c) // RecurDyn's and DYMORE's contact step control (scenario_laws.h)
    {
        const app_sim_contact_summary* sm = &s->summary[c];
        limit = fmin(limit,
                     app_laws_step_limit(s->scn->contacts[c].laws, s->hmax, sm->regions, sm->depth, sm->dominant.rate));
    }
    return limit;
}

/// The contact carrying the largest normal force in the summaries `sums`, as its label and force, or false.
static bool busiest_contact(const app_sim* s, const app_sim_contact_summary* sums, const char* when, char* out,
                            size_t cap)
{
    int best = -1;
    for (int c = 0; c < s->scn->contact_count; ++c)
    {
        if (sums[c].regions > 0 && (best < 0 || sums[c].normal_force > sums[best].normal_force))
        {
            best = c;
        }
    }
    if (best < 0)
    {
        return false;
    }
    char label[400];
    app_sim_contact_label(s, best, label, sizeof label);
    snprintf(out, cap, "%s carries the largest normal force %s, %.3g", label, when, sums[best].normal_force);
    return true;
}

/// Stop with the tolerance message.
static bool tolerance_failure(app_sim* s, double h, char* err, size_t cap)
{
    // The contact that made the step fail: the busiest one over the failed step's trial states, else now.
    char who[600] = "no contact is active";
    if (!busiest_contact(s, s->stage_summary[3], "in the failed step", who, sizeof who))
    {
        busiest_contact(s, s->summary, "now", who, sizeof who);
    }
    return sim_set_err(err, cap,
                       "the BDF integrator cannot meet INTEGRATOR/ERROR=%g at t = %.9g: its step fell to %.3g, below "
                       "HMIN=%.3g (%s); raise ERROR=, lower HMIN=, soften the contact or use INTEGRATOR/RK4",
                       s->error, s->time, h, s->hmin, who);
}

bool app_sim_step_bdf(app_sim* s, double t_end, char* err, size_t cap)
{
    if (s->mb != NULL)
    {
        return sim_mechanism_step(s, t_end - s->time, err, cap); // JOINT, MOTION: the multibody library integrates
    }
    const app_scenario* scn = s->scn;
    int n = 12 * s->moving_count;
    double t0 = s->time;
    if (s->bdf == NULL)
    {
        // Nothing moves: the state is constant, one step to t_end.
        s->time = t_end;
        s->stats.steps += 1;
        return sim_evaluate(s, s->state, s->k[0], true, s->stage_summary[0], err, cap) &&
               sim_commit_state(s, s->stage_summary[0], err, cap) && sim_finish_step(s, t_end - t0, t0, err, cap);
    }
    memcpy(s->y_start, s->y, (size_t)n * sizeof *s->y);
    memset(s->stage_summary[3], 0, (size_t)scn->contact_count * sizeof *s->stage_summary[3]);
    int predictions = 0; // retakes of this step by the contact predictor
    s->onset_retakes = 0;
    for (;;)
    {
        double limit = fmin(s->hmax, step_limit(s));
        // Equal steps to t_end, each at most the proposed step: a step cut short to land on an output time makes
        // GSL's msbdf restart at order 1 from its first step (measured: a free fall with outputs every 0.5 ms took
        // 504 steps and erred by 1.1e-5 m in 63 ms; with equal steps 132 steps and 1.8e-7 m).
        double rem = t_end - t0;
        double m = ceil(rem / fmin(s->bdf_h, limit) * (1.0 - 1e-12));
        double h = m > 1.0 ? rem / m : rem;
        double t = t0;
        // t_end, not t0 + h, as the bound: GSL keeps the step of a step it had to shorten to land on its bound.
        s->onset_stop = false;
        sim_bdf_status st = sim_bdf_step(s->bdf, &t, t_end, &h, s->y);
        if (st == SIM_BDF_STOPPED && s->onset_stop && predictions < APP_SIM_ONSET_RETAKES)
        {
            // The predictor: back to the step's start, retake it to land just past the estimated onset.
            s->stats.onset_rejections += 1;
            predictions += 1;
            s->onset_retakes = predictions;
            memcpy(s->y, s->y_start, (size_t)n * sizeof *s->y);
            unpack_state(s, s->y, s->state);
            s->time = t0;
            sim_bdf_reset(s->bdf);
            // From the start (or the onset, when it is later) to the landing depth; at least halved.
            double trial = s->onset_trial - t0;
            double land = fmax(s->onset_time - t0, 0.0) + s->onset_land / s->onset_rate;
            s->bdf_h = fmax(s->hmin, land < trial ? land : 0.5 * trial);
            continue;
        }
        if (st == SIM_BDF_STOPPED)
        {
            return sim_set_err(err, cap, "%s", s->bdf_err);
        }
        if (st == SIM_BDF_TOO_LARGE) // the Newton matrix's factors (issue 41, sim_guard.h)
        {
            return sim_set_err(err, cap, "%s: at t = %.9g %s; use INTEGRATOR/RK4", scn->path, s->time,
                               sim_bdf_message(s->bdf));
        }
        double taken = t - t0;
        if (st == SIM_BDF_FAILED || (taken < s->hmin && t < t_end))
        {
            return tolerance_failure(s, st == SIM_BDF_FAILED ? h : taken, err, cap);
        }
        s->bdf_h = h;
        unpack_state(s, s->y, s->state);
        s->time = t;
        if (!sim_evaluate(s, s->state, s->k[0], true, s->stage_summary[0], err, cap))
        {
            return false;
        }
        // Contact onset: a step that starts separated and ends deeper than a tenth of the contact's estimated
        // impact penetration is retried shorter (after a reset: the history before the onset is of another ODE).
        double worst = 0.0;
        for (int c = 0; c < scn->contact_count; ++c)
        {
            double limit_depth = 0.1 * s->contact_gmax[c];
            double depth = s->stage_summary[0][c].depth;
            if (s->summary[c].regions == 0 && limit_depth > 0.0 && depth > limit_depth)
            {
                worst = fmax(worst, depth / limit_depth);
            }
        }
        if (worst > 0.0 && taken > s->hmin)
        {
            s->stats.onset_rejections += 1;
            memcpy(s->y, s->y_start, (size_t)n * sizeof *s->y);
            unpack_state(s, s->y, s->state);
            s->time = t0;
            pack_state(s);
            sim_bdf_reset(s->bdf);
            s->bdf_h = fmax(s->hmin, taken * fmin(0.5, 0.5 / worst));
            continue;
        }
        break;
    }
    // The step is accepted: the contact state (stiction anchors) advances to it.
    if (!sim_commit_state(s, s->stage_summary[0], err, cap))
    {
        return false;
    }
    s->stats.steps += 1;
    double h = s->time - t0;
    s->stats.min_step = s->stats.steps == 1 ? h : fmin(s->stats.min_step, h);
    s->stats.max_step = fmax(s->stats.max_step, h);
    // A rotation vector past 1 rad is moved into the reference (the exponential map stays far from its 2 pi
    // singularity); the history then restarts.
    for (int m = 0; m < s->moving_count; ++m)
    {
        if (mc_length(y_vec(s->y + 12 * m, 3)) > 1.0)
        {
            pack_state(s);
            sim_bdf_reset(s->bdf);
            s->stats.rebases += 1;
            break;
        }
    }
    s->stats.failed_steps = sim_bdf_failed_steps(s->bdf);
    s->stats.newton_failures = sim_bdf_get_counts(s->bdf).corrector_failures;
    return sim_finish_step(s, h, t0, err, cap);
}

int app_sim_ode_size(const app_sim* s)
{
    return s->bdf != NULL ? 12 * s->moving_count : 0;
}

void app_sim_ode_state(const app_sim* s, double* y)
{
    memcpy(y, s->y, (size_t)app_sim_ode_size(s) * sizeof *y);
}

bool app_sim_ode_rhs(app_sim* s, const double* y, double* dydt)
{
    return s->bdf != NULL && bdf_rhs(s->time, y, dydt, s) == 0;
}

bool app_sim_ode_jacobian(app_sim* s, const double* y, double* dfdy)
{
    sim_bsm* j = s->bdf != NULL ? sim_bsm_create(s->moving_count, 12) : NULL;
    bool ok = j != NULL && bdf_jac(s->time, y, j, s) == 0 && !sim_bsm_failed(j);
    if (ok)
    {
        sim_bsm_to_dense(j, dfdy);
    }
    sim_bsm_destroy(j);
    return ok;
}

/// Set up the BDF integrator after the bodies and contacts exist. @return false with a message
bool sim_implicit_create(app_sim* s, char* err, size_t cap)
{
    const app_scenario* scn = s->scn;
    double dt_out = scn->end_time / scn->steps;
    s->moving = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->moving);
    s->moving_of_part = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->moving_of_part);
    s->q_ref = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->q_ref);
    s->part_radius = calloc((size_t)(scn->part_count > 0 ? scn->part_count : 1), sizeof *s->part_radius);
    size_t nb = (size_t)(s->body_count > 0 ? s->body_count : 1);
    s->movable = calloc(nb, sizeof *s->movable);
    s->jsteps = calloc(nb, sizeof *s->jsteps);
    if (!s->moving || !s->moving_of_part || !s->q_ref || !s->part_radius || !s->movable || !s->jsteps)
    {
        return sim_set_err(err, cap, "out of memory");
    }
    for (int i = 0; i < scn->part_count; ++i)
    {
        s->moving_of_part[i] = scn->parts[i].ground ? -1 : s->moving_count;
        if (!scn->parts[i].ground)
        {
            s->moving[s->moving_count++] = i;
        }
    }
    // Geometry sizes: the parts' radii (for the speed of their points) and the thinnest contact geometry.
    s->thin = INFINITY;
    double len = 0.0;
    for (int b = 0; b < s->body_count; ++b)
    {
        const sim_body* sb = &s->bodies[b];
        const mc_mesh* mesh = s->meshes[sb->graphics];
        mc_vec3 lo = mc_v3(INFINITY, INFINITY, INFINITY), hi = mc_neg(lo);
        double radius = 0.0;
        uint32_t nv = 0;
        if (mesh != NULL)
        {
            const mc_vec3* pos = mc_mesh_get_positions(mesh);
            nv = mc_mesh_get_vertex_count(mesh);
            for (uint32_t v = 0; v < nv; ++v)
            {
                lo = mc_v3(fmin(lo.x, pos[v].x), fmin(lo.y, pos[v].y), fmin(lo.z, pos[v].z));
                hi = mc_v3(fmax(hi.x, pos[v].x), fmax(hi.y, pos[v].y), fmax(hi.z, pos[v].z));
                radius = fmax(radius, mc_length(mc_pose_transform(&sb->local, pos[v])));
            }
        }
        else
        {
            // An analytic body: its exact extents (the library's cylinder is centred on its frame; a plane is
            // unbounded: no size, and never the thinnest geometry).
            const app_scenario_graphics* g = &scn->graphics[sb->graphics];
            bool bounded = g->shape == APP_SCENARIO_SPHERE || g->shape == APP_SCENARIO_CYLINDER;
            double r = g->size[0], half = g->shape == APP_SCENARIO_CYLINDER ? 0.5 * g->size[1] : r;
            if (bounded)
            {
                nv = 1;
                lo = mc_v3(-r, -r, -half);
                hi = mc_v3(r, r, half);
                radius = mc_length(sb->local.p) + sqrt(r * r + half * half);
            }
        }
        s->part_radius[sb->part] = fmax(s->part_radius[sb->part], radius);
        if (nv > 0 && !sb->flip)
        {
            s->thin = fmin(s->thin, fmin(hi.x - lo.x, fmin(hi.y - lo.y, hi.z - lo.z)));
        }
        len = fmax(len, radius);
        s->movable[b] = !scn->parts[sb->part].ground;
    }
    // Error scales: lengths in units of the smallest estimated impact penetration, speeds in units of the largest
    // approach speed bound (without contacts: a thousandth of the largest part and its speed over an output interval).
    double gscale = 0.0;
    for (int c = 0; c < scn->contact_count; ++c)
    {
        gscale =
            s->contact_gmax[c] > 0.0 && (gscale == 0.0 || s->contact_gmax[c] < gscale) ? s->contact_gmax[c] : gscale;
    }
    len = len > 0.0 ? len : 1.0;
    gscale = gscale > 0.0 ? gscale : 1e-3 * len;
    s->gscale = gscale;
    double vscale = s->vel_scale > 0.0 ? s->vel_scale : len / dt_out;
    int n = 12 * s->moving_count;
    size_t nn = (size_t)(n > 0 ? n : 1);
    s->y = calloc(nn, sizeof *s->y);
    s->y_start = calloc(nn, sizeof *s->y_start);
    s->y_scale = calloc(nn, sizeof *s->y_scale);
    s->y_scratch_state = calloc(nn, sizeof *s->y_scratch_state);
    if (!s->y || !s->y_start || !s->y_scale || !s->y_scratch_state)
    {
        return sim_set_err(err, cap, "out of memory");
    }
    for (int m = 0; m < s->moving_count; ++m)
    {
        double r = s->part_radius[s->moving[m]] > 0.0 ? s->part_radius[s->moving[m]] : len;
        double sc[4] = {gscale, gscale / r, vscale, vscale / r};
        for (int k = 0; k < 12; ++k)
        {
            s->y_scale[12 * m + k] = sc[k / 3];
        }
    }
    for (int b = 0; b < s->body_count; ++b)
    {
        double r = s->part_radius[s->bodies[b].part] > 0.0 ? s->part_radius[s->bodies[b].part] : len;
        // Forward differences: steps of 1e-6 of the error scales (a relative 1e-6 change of the depth is far above
        // the rounding of the exact geometry, 1e-16 of the coordinates, and far below the penetration itself).
        s->jsteps[b] = (sim_jac_steps){1e-6 * gscale / r, 1e-6 * gscale, 1e-6 * vscale / r, 1e-6 * vscale};
    }
    s->jworld = (sim_jac_world){s->world,   s->ids,    s->body_poses,          s->body_twists,
                                s->movable, s->jsteps, (uint32_t)s->body_count};
    s->error = scn->error > 0.0 ? scn->error : APP_SIM_DEFAULT_ERROR;
    s->hmax = scn->hmax > 0.0 ? fmin(scn->hmax, dt_out) : dt_out;
    double ts = s->time_scale > 0.0 ? s->time_scale : dt_out;
    s->hmin = scn->hmin > 0.0 ? scn->hmin : 1e-9 * ts;
    s->bdf_h = scn->hinit > 0.0 ? scn->hinit : fmin(s->hmax, 0.1 * ts);
    s->h = s->bdf_h;
    s->substeps = 1;
    pack_state(s);
    if (n > 0)
    {
        sim_bdf_def def = sim_bdf_default_def();
        def.n = (size_t)n;
        def.rhs = bdf_rhs;
        def.jac = bdf_jac;
        def.user = s;
        def.abs_scale = s->y_scale;
        def.error = s->error;
        def.hinit = s->bdf_h;
        def.hmin = s->hmin;
        def.max_bytes = app_sim_bdf_limit(0.0);
        def.method = app_sim_bdf_method();
        s->bdf = sim_bdf_create(&def);
        if (s->bdf == NULL)
        {
            return sim_set_err(err, cap, "out of memory");
        }
    }
    return true;
}
