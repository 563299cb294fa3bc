// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Force elements of mechanisms for the simulator: marker kinematics, the marker measures of function expressions,
// VARIABLEs, SPLINE curves and surfaces, and the wrenches of SFORCE, VFORCE, VTORQUE and SPRINGDAMPER.
// Based on: MSC Adams/Solver statement and function reference (SFORCE, VFORCE, VTORQUE, SPRINGDAMPER, DX .. WZ).
#include "src/app/sim_forces.h"

#include "meshcontact/law.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A marker in the ground frame at the current motions.
typedef struct marker_frame
{
    mc_vec3 p; // origin
    mc_quat q; // axes
    mc_vec3 v; // velocity of the origin
    mc_vec3 w; // angular velocity
} marker_frame;

struct app_sim_forces
{
    const app_scenario* scn;
    const app_scenario_mech* mech;
    int part_count;
    app_part_motion* motion; // per part
    mc_wrench* wrench;       // per part
    mc_pose* marker_local;   // per marker: in the frame of the part's state (centre of mass)
    double* spring_length;   // per SPRINGDAMPER: LENGTH (ANGLE), or the value at time 0
    mc_curve** curves;       // per spline: 2 * nz curves (Akima then cubic per row)
    double* zvals;           // scratch: nz values across z (the largest nz)
    bool* var_busy;          // per VARIABLE: being evaluated (a cycle is an error)
    double* values;          // per element: its value(s) at the last app_sim_forces_apply (value_slots)
    int value_count;         // entries of values
    double time;
    // The element being evaluated (for the message of a failure).
    const app_scenario_expr* current;
    const char* fault_owner;
    char fault_detail[160];
};

static marker_frame marker_at(const app_sim_forces* f, int k)
{
    const app_scenario_marker* mk = &f->mech->markers[k];
    const app_part_motion* m = &f->motion[mk->part_index];
    mc_pose part = {m->p, m->q};
    marker_frame r;
    r.p = mc_pose_transform(&part, f->marker_local[k].p);
    r.q = mc_quat_mul(m->q, f->marker_local[k].q);
    r.w = m->w;
    r.v = mc_add(m->v, mc_cross(m->w, mc_sub(r.p, m->p)));
    return r;
}

static mc_vec3 axis(mc_quat q, int k)
{
    return mc_quat_rotate(q, mc_v3(k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0));
}

double app_sim_forces_measure(app_sim_forces* f, app_expr_measure kind, const int m[4])
{
    marker_frame i = marker_at(f, m[0]);
    marker_frame j = {mc_v3(0.0, 0.0, 0.0), mc_quat_identity(), mc_v3(0.0, 0.0, 0.0), mc_v3(0.0, 0.0, 0.0)};
    if (m[1] >= 0)
    {
        j = marker_at(f, m[1]);
    }
    mc_quat rk = m[2] >= 0 ? marker_at(f, m[2]).q : mc_quat_identity();
    mc_vec3 d = mc_sub(i.p, j.p);
    mc_vec3 v = mc_sub(i.v, j.v);
    if (m[3] >= 0)
    {
        // The time derivative taken in marker l's frame: remove the rotation of that frame.
        v = mc_sub(v, mc_cross(marker_at(f, m[3]).w, d));
    }
    mc_quat rk_inv = mc_quat_conj(rk);
    switch (kind)
    {
    case APP_EXPR_DX:
    case APP_EXPR_DY:
    case APP_EXPR_DZ:
    {
        mc_vec3 c = mc_quat_rotate(rk_inv, d);
        return kind == APP_EXPR_DX ? c.x : kind == APP_EXPR_DY ? c.y : c.z;
    }
    case APP_EXPR_DM:
        return mc_length(d);
    case APP_EXPR_VX:
    case APP_EXPR_VY:
    case APP_EXPR_VZ:
    {
        mc_vec3 c = mc_quat_rotate(rk_inv, v);
        return kind == APP_EXPR_VX ? c.x : kind == APP_EXPR_VY ? c.y : c.z;
    }
    case APP_EXPR_VR:
    {
        double l = mc_length(d);
        return l > 0.0 ? mc_dot(v, d) / l : 0.0;
    }
    case APP_EXPR_WX:
    case APP_EXPR_WY:
    case APP_EXPR_WZ:
    {
        mc_vec3 c = mc_quat_rotate(rk_inv, mc_sub(i.w, j.w));
        return kind == APP_EXPR_WX ? c.x : kind == APP_EXPR_WY ? c.y : c.z;
    }
    }
    return 0.0;
}

static double env_measure(void* user, app_expr_measure kind, const int m[4])
{
    return app_sim_forces_measure(user, kind, m);
}

static bool eval_expr(app_sim_forces* f, const app_scenario_expr* e, double* out, char* err, size_t cap,
                      const char* owner, int id, const char* key);

static bool env_variable(void* user, int index, double* out, const char** why)
{
    app_sim_forces* f = user;
    if (f->var_busy[index])
    {
        *why = "a VARIABLE that depends on itself (VARVAL cycle)";
        return false;
    }
    f->var_busy[index] = true;
    const app_scenario_variable* v = &f->mech->variables[index];
    char err[sizeof f->fault_detail];
    const app_scenario_expr* outer = f->current;
    bool ok = eval_expr(f, &v->function, out, err, sizeof err, "VARIABLE", v->id, "FUNCTION");
    f->current = outer;
    f->var_busy[index] = false;
    if (!ok)
    {
        snprintf(f->fault_detail, sizeof f->fault_detail, "%s", err);
        *why = f->fault_detail;
    }
    return ok;
}

static bool env_spline(void* user, int index, bool akima, double x, double z, int order, double* out, const char** why)
{
    app_sim_forces* f = user;
    const app_scenario_spline* s = &f->mech->splines[index];
    mc_curve* const* rows = &f->curves[index == 0 ? 0 : 0];
    int base = 0;
    for (int k = 0; k < index; ++k)
    {
        base += 2 * f->mech->splines[k].nz;
    }
    rows = &f->curves[base];
    if (rows[0] == NULL)
    {
        *why = "a SPLINE of fewer than 4 points (AKISPL and CUBSPL need 4)";
        return false;
    }
    if (s->z == NULL)
    {
        *out = mc_curve_eval(rows[akima ? 0 : 1], x, order);
        return true;
    }
    if (order != 0)
    {
        *why = "a derivative of a surface SPLINE (only the value is defined)";
        return false;
    }
    for (int r = 0; r < s->nz; ++r)
    {
        f->zvals[r] = mc_curve_eval(rows[2 * r + (akima ? 0 : 1)], x, 0);
    }
    mc_curve* across = NULL;
    mc_curve_method method = s->nz < 4 ? MC_CURVE_LINEAR : akima ? MC_CURVE_AKIMA : MC_CURVE_CUBIC;
    if (mc_curve_create(s->z, f->zvals, s->nz, method, &across, NULL) != MC_OK)
    {
        *why = "a surface SPLINE whose values are not finite, or memory ran out";
        return false;
    }
    *out = mc_curve_eval(across, z, 0);
    mc_curve_destroy(across);
    return true;
}

static bool eval_expr(app_sim_forces* f, const app_scenario_expr* e, double* out, char* err, size_t cap,
                      const char* owner, int id, const char* key)
{
    if (e->code == NULL)
    {
        *out = 0.0;
        return true;
    }
    f->current = e;
    app_expr_env env = {f->time, f, env_measure, env_variable, env_spline};
    app_expr_fault fault;
    if (app_expr_eval(e->code, &env, out, &fault))
    {
        return true;
    }
    int line = 0, column = 0;
    app_scenario_expr_where(e, fault.offset, &line, &column);
    snprintf(err, cap, "%s:%d:%d: %s/%d %s= at t = %.9g: %s (argument %g) in '%s'", f->scn->path, line, column, owner,
             id, key, f->time, fault.what, fault.value, e->text);
    return false;
}

bool app_sim_forces_create(const app_scenario* scn, const mc_vec3* cm, const app_part_motion* initial,
                           app_sim_forces** out, char* err, size_t cap)
{
    *out = NULL;
    const app_scenario_mech* m = scn->mech;
    if (!app_sim_forces_needed(scn))
    {
        return true;
    }
    app_sim_forces* f = calloc(1, sizeof *f);
    if (f == NULL)
    {
        snprintf(err, cap, "out of memory");
        return false;
    }
    f->scn = scn;
    f->mech = m;
    f->part_count = scn->part_count;
    int curves = 0, maxz = 1;
    for (int k = 0; k < m->spline_count; ++k)
    {
        curves += 2 * m->splines[k].nz;
        maxz = m->splines[k].nz > maxz ? m->splines[k].nz : maxz;
    }
    f->motion = calloc((size_t)scn->part_count, sizeof *f->motion);
    f->wrench = calloc((size_t)scn->part_count, sizeof *f->wrench);
    f->marker_local = calloc((size_t)m->marker_count + 1, sizeof *f->marker_local);
    f->spring_length = calloc((size_t)m->spring_count + 1, sizeof *f->spring_length);
    f->curves = calloc((size_t)curves + 1, sizeof *f->curves);
    f->zvals = calloc((size_t)maxz, sizeof *f->zvals);
    f->var_busy = calloc((size_t)m->variable_count + 1, sizeof *f->var_busy);
    f->value_count = m->sforce_count + 3 * m->vforce_count + m->spring_count;
    f->values = calloc((size_t)f->value_count + 1, sizeof *f->values);
    if (f->motion == NULL || f->wrench == NULL || f->marker_local == NULL || f->spring_length == NULL ||
        f->curves == NULL || f->zvals == NULL || f->var_busy == NULL || f->values == NULL)
    {
        app_sim_forces_destroy(f);
        snprintf(err, cap, "out of memory");
        return false;
    }
    for (int k = 0; k < m->marker_count; ++k)
    {
        f->marker_local[k] = m->markers[k].local;
        f->marker_local[k].p = mc_sub(m->markers[k].local.p, cm[m->markers[k].part_index]);
    }
    int c = 0;
    for (int k = 0; k < m->spline_count; ++k)
    {
        const app_scenario_spline* s = &m->splines[k];
        for (int r = 0; r < s->nz && s->nx < 4; ++r)
        {
            c += 2; // too short for AKISPL and CUBSPL (a LINEAR curve of a contact law): refused if they use it
        }
        for (int r = 0; r < s->nz && s->nx >= 4; ++r)
        {
            for (int method = 0; method < 2; ++method)
            {
                mc_error e;
                if (mc_curve_create(s->x, s->y + (size_t)r * (size_t)s->nx, s->nx,
                                    method == 0 ? MC_CURVE_AKIMA : MC_CURVE_CUBIC, &f->curves[c++], &e) != MC_OK)
                {
                    snprintf(err, cap, "%s:%d: SPLINE/%d: %s", scn->path, s->line, s->id, e.message);
                    app_sim_forces_destroy(f);
                    return false;
                }
            }
        }
    }
    memcpy(f->motion, initial, (size_t)scn->part_count * sizeof *f->motion);
    for (int k = 0; k < m->spring_count; ++k)
    {
        const app_scenario_springdamper* s = &m->springs[k];
        f->spring_length[k] = s->length;
        if (!s->length_given && !s->rotation)
        {
            f->spring_length[k] = mc_length(mc_sub(marker_at(f, s->i).p, marker_at(f, s->j).p));
        }
    }
    *out = f;
    return true;
}

app_part_motion* app_sim_forces_motions(app_sim_forces* f)
{
    return f->motion;
}

/// Force `force` at point `at` on the part of marker k (ground parts take nothing).
static void add_force(app_sim_forces* f, int k, mc_vec3 at, mc_vec3 force)
{
    int part = f->mech->markers[k].part_index;
    mc_wrench* w = &f->wrench[part];
    w->force = mc_add(w->force, force);
    w->torque = mc_add(w->torque, mc_cross(mc_sub(at, f->motion[part].p), force));
}

static void add_torque(app_sim_forces* f, int k, mc_vec3 torque)
{
    mc_wrench* w = &f->wrench[f->mech->markers[k].part_index];
    w->torque = mc_add(w->torque, torque);
}

static bool apply_sforce(app_sim_forces* f, const app_scenario_sforce* s, double* value_out, char* err, size_t cap)
{
    double value = 0.0;
    if (!eval_expr(f, &s->function, &value, err, cap, "SFORCE", s->id, "FUNCTION"))
    {
        return false;
    }
    *value_out = value;
    marker_frame i = marker_at(f, s->i), j = marker_at(f, s->j);
    mc_vec3 zj = axis(j.q, 2);
    if (s->rotation)
    {
        add_torque(f, s->i, mc_scale(zj, value));
        if (!s->action_only)
        {
            add_torque(f, s->j, mc_scale(zj, -value));
        }
        return true;
    }
    if (s->action_only)
    {
        add_force(f, s->i, i.p, mc_scale(zj, value));
        return true;
    }
    mc_vec3 d = mc_sub(i.p, j.p);
    double l = mc_length(d);
    if (!(l > 0.0))
    {
        snprintf(err, cap,
                 "%s:%d: SFORCE/%d at t = %.9g: the I and J markers coincide, the line of action is "
                 "undefined",
                 f->scn->path, s->line, s->id, f->time);
        return false;
    }
    mc_vec3 force = mc_scale(d, value / l);
    add_force(f, s->i, i.p, force);
    add_force(f, s->j, j.p, mc_neg(force));
    return true;
}

static bool apply_vforce(app_sim_forces* f, const app_scenario_vforce* s, double* c, char* err, size_t cap)
{
    static const char* const keys[2][3] = {{"FX", "FY", "FZ"}, {"TX", "TY", "TZ"}};
    for (int k = 0; k < 3; ++k)
    {
        if (!eval_expr(f, &s->component[k], &c[k], err, cap, s->torque ? "VTORQUE" : "VFORCE", s->id,
                       keys[s->torque][k]))
        {
            return false;
        }
    }
    marker_frame i = marker_at(f, s->i);
    mc_vec3 v = mc_quat_rotate(marker_at(f, s->rm).q, mc_v3(c[0], c[1], c[2]));
    if (s->torque)
    {
        add_torque(f, s->i, v);
        add_torque(f, s->jfloat, mc_neg(v));
    }
    else
    {
        add_force(f, s->i, i.p, v);
        add_force(f, s->jfloat, i.p, mc_neg(v)); // the floating marker sits at I
    }
    return true;
}

static double apply_spring(app_sim_forces* f, int k)
{
    const app_scenario_springdamper* s = &f->mech->springs[k];
    marker_frame i = marker_at(f, s->i), j = marker_at(f, s->j);
    if (s->rotation)
    {
        mc_vec3 xi = axis(i.q, 0), xj = axis(j.q, 0), yj = axis(j.q, 1), zj = axis(j.q, 2);
        double a = atan2(mc_dot(xi, yj), mc_dot(xi, xj));
        double w = mc_dot(mc_sub(i.w, j.w), zj);
        double t = -s->c * w - s->k * (a - f->spring_length[k]) + s->preload;
        add_torque(f, s->i, mc_scale(zj, t));
        add_torque(f, s->j, mc_scale(zj, -t));
        return t;
    }
    mc_vec3 d = mc_sub(i.p, j.p);
    double r = mc_length(d);
    if (!(r > 0.0))
    {
        return 0.0; // coincident markers: no line of action (the spring passes through zero length)
    }
    mc_vec3 u = mc_scale(d, 1.0 / r);
    double rdot = mc_dot(mc_sub(i.v, j.v), u);
    double value = -s->c * rdot - s->k * (r - f->spring_length[k]) + s->preload;
    add_force(f, s->i, i.p, mc_scale(u, value));
    add_force(f, s->j, j.p, mc_scale(u, -value));
    return value;
}

const mc_wrench* app_sim_forces_apply(app_sim_forces* f, double t, char* err, size_t cap)
{
    f->time = t;
    memset(f->wrench, 0, (size_t)f->part_count * sizeof *f->wrench);
    const app_scenario_mech* m = f->mech;
    double* v = f->values;
    for (int k = 0; k < m->sforce_count; ++k)
    {
        if (!apply_sforce(f, &m->sforces[k], v++, err, cap))
        {
            return NULL;
        }
    }
    for (int k = 0; k < m->vforce_count; ++k, v += 3)
    {
        if (!apply_vforce(f, &m->vforces[k], v, err, cap))
        {
            return NULL;
        }
    }
    for (int k = 0; k < m->spring_count; ++k)
    {
        *v++ = apply_spring(f, k);
    }
    return f->wrench;
}

void app_sim_forces_destroy(app_sim_forces* f)
{
    if (f == NULL)
    {
        return;
    }
    int curves = 0;
    for (int k = 0; k < f->mech->spline_count; ++k)
    {
        curves += 2 * f->mech->splines[k].nz;
    }
    for (int k = 0; f->curves != NULL && k < curves; ++k)
    {
        mc_curve_destroy(f->curves[k]);
    }
    free(f->curves);
    free(f->motion);
    free(f->wrench);
    free(f->marker_local);
    free(f->spring_length);
    free(f->zvals);
    free(f->var_busy);
    free(f->values);
    free(f);
}

bool app_sim_forces_needed(const app_scenario* scn)
{
    const app_scenario_mech* m = scn->mech;
    return m != NULL && (m->sforce_count > 0 || m->vforce_count > 0 || m->spring_count > 0 || m->variable_count > 0);
}

void app_sim_forces_csv_header(const app_scenario* scn, FILE* out)
{
    if (!app_sim_forces_needed(scn))
    {
        return;
    }
    const app_scenario_mech* m = scn->mech;
    for (int k = 0; k < m->sforce_count; ++k)
    {
        fprintf(out, ",sforce%d", m->sforces[k].id);
    }
    for (int k = 0; k < m->vforce_count; ++k)
    {
        const char* n = m->vforces[k].torque ? "vtorque" : "vforce";
        const char* c = m->vforces[k].torque ? "t" : "f";
        int id = m->vforces[k].id;
        fprintf(out, ",%s%d_%sx,%s%d_%sy,%s%d_%sz", n, id, c, n, id, c, n, id, c);
    }
    for (int k = 0; k < m->spring_count; ++k)
    {
        fprintf(out, ",springdamper%d", m->springs[k].id);
    }
    for (int k = 0; k < m->variable_count; ++k)
    {
        fprintf(out, ",variable%d", m->variables[k].id);
    }
}

void app_sim_forces_csv_row(app_sim_forces* f, double t, FILE* out)
{
    char err[8];
    bool ok = app_sim_forces_apply(f, t, err, sizeof err) != NULL; // the run stopped already if this fails
    for (int k = 0; k < f->value_count; ++k)
    {
        fprintf(out, ok ? ",%.9g" : ",nan", f->values[k]);
    }
    for (int k = 0; k < f->mech->variable_count; ++k)
    {
        double v = 0.0;
        const char* why = NULL;
        bool vok = env_variable(f, k, &v, &why);
        fprintf(out, vok ? ",%.9g" : ",nan", v);
    }
}
