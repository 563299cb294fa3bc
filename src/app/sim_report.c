// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Contact outputs of `meshcontact simulate`: the per-contact CSV (state, dominant region and peaks at every output
// time), the incidents table (CSV) and the JSON summary (warnings, contacts, incidents).
#include "src/app/app_io.h"
#include "src/app/scenario_mech.h"
#include "src/app/simulate.h"

#include <math.h>
#include <string.h>

void app_sim_write_contacts_header(const app_sim* sim, FILE* f)
{
    (void)sim;
    fputs("time,contact,regions,rejected,fx,fy,fz,tx,ty,tz,fn,ft,depth,volume,"
          "point_x,point_y,point_z,normal_x,normal_y,normal_z,region_depth,rate,area,region_fn,fn_stiffness,"
          "fn_damping,region_ft,slip,fn_peak,fn_peak_time,ft_peak,depth_peak,slip_peak\n",
          f);
}

void app_sim_write_contacts_rows(const app_sim* sim, FILE* f, const app_sim_contact_peaks* peaks)
{
    const app_scenario* scn = app_sim_get_scenario(sim);
    double t = app_sim_get_time(sim);
    for (int c = 0; c < scn->contact_count; ++c)
    {
        app_sim_contact_summary sm = app_sim_get_contact(sim, c);
        const app_sim_region_view* d = &sm.dominant;
        const app_sim_contact_peaks* p = &peaks[c];
        double v[] = {sm.force_on_j.x,  sm.force_on_j.y,  sm.force_on_j.z, sm.torque_on_j.x,
                      sm.torque_on_j.y, sm.torque_on_j.z, sm.normal_force, mc_length(sm.friction_on_j),
                      sm.depth,         sm.volume,        d->point.x,      d->point.y,
                      d->point.z,       d->normal.x,      d->normal.y,     d->normal.z,
                      d->depth,         d->rate,          d->area,         d->fn,
                      d->fn_stiffness,  d->fn_damping,    d->ft,           d->slip,
                      p->fn_max,        p->fn_max_time,   p->ft_max,       p->depth_max,
                      p->slip_max};
        fprintf(f, "%.9g,%d,%d,%d", t, scn->contacts[c].id, sm.regions, sm.rejected);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k)
        {
            fprintf(f, ",%.9g", v[k]);
        }
        fputc('\n', f);
    }
}

void app_sim_write_tracks_header(const app_sim* sim, FILE* f)
{
    (void)sim;
    fputs("time,contact,track,x,y,z,fn,depth,area\n", f);
}

void app_sim_write_tracks_rows(const app_sim* sim, FILE* f)
{
    const app_scenario* scn = app_sim_get_scenario(sim);
    double t = app_sim_get_time(sim);
    app_sim_tracked_region r;
    for (int k = 0; app_sim_get_tracked_region(sim, k, &r); ++k)
    {
        fprintf(f, "%.9g,%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", t, scn->contacts[r.contact].id, r.track,
                r.region.region.centroid.x, r.region.region.centroid.y, r.region.region.centroid.z,
                r.region.normal_force, r.region.region.depth, r.region.region.area);
    }
}

void app_sim_write_incidents_csv(const app_sim* sim, FILE* f)
{
    const app_scenario* scn = app_sim_get_scenario(sim);
    int n = 0;
    const app_sim_incident* in = app_sim_get_incidents(sim, &n);
    fputs("contact,start,end,open,steps,max_depth,max_fn,max_fn_time,max_ft,normal_impulse,friction_impulse,"
          "impulse_x,impulse_y,impulse_z,onset_depth,impact_depth\n",
          f);
    for (int k = 0; k < n; ++k)
    {
        const app_sim_incident* i = &in[k];
        fprintf(f, "%d,%.9g,%.9g,%d,%lld,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
                scn->contacts[i->contact].id, i->start, i->end, i->open ? 1 : 0, (long long)i->steps, i->max_depth,
                i->max_fn, i->max_fn_time, i->max_ft, i->normal_impulse, i->friction_impulse, i->impulse.x,
                i->impulse.y, i->impulse.z, i->onset_depth, i->impact_depth);
    }
}

static void json_string(FILE* f, const char* s)
{
    app_json_string(f, s); // valid UTF-8, control bytes escaped (app_io.h)
}

/// A finite number, or null.
static void json_number(FILE* f, double v)
{
    if (isfinite(v))
    {
        fprintf(f, "%.17g", v);
    }
    else
    {
        fputs("null", f);
    }
}

static void json_incident(FILE* f, const app_scenario* scn, const app_sim_incident* i)
{
    fprintf(f, "{\"contact\":%d,\"start\":", scn->contacts[i->contact].id);
    json_number(f, i->start);
    fputs(",\"end\":", f);
    json_number(f, i->end);
    fprintf(f, ",\"open\":%s,\"steps\":%lld,\"max_depth\":", i->open ? "true" : "false", (long long)i->steps);
    json_number(f, i->max_depth);
    fputs(",\"max_normal_force\":", f);
    json_number(f, i->max_fn);
    fputs(",\"max_normal_force_time\":", f);
    json_number(f, i->max_fn_time);
    fputs(",\"max_friction_force\":", f);
    json_number(f, i->max_ft);
    fputs(",\"normal_impulse\":", f);
    json_number(f, i->normal_impulse);
    fputs(",\"friction_impulse\":", f);
    json_number(f, i->friction_impulse);
    fputs(",\"impulse\":[", f);
    json_number(f, i->impulse.x);
    fputc(',', f);
    json_number(f, i->impulse.y);
    fputc(',', f);
    json_number(f, i->impulse.z);
    fputs("],\"onset_depth\":", f);
    json_number(f, i->onset_depth);
    fputs(",\"impact_depth\":", f);
    json_number(f, i->impact_depth);
    fputc('}', f);
}

void app_sim_write_json(const app_sim* sim, FILE* f)
{
    const app_scenario* scn = app_sim_get_scenario(sim);
    int nw = 0, ni = 0;
    const char* const* w = app_sim_get_warnings(sim, &nw);
    const app_sim_incident* in = app_sim_get_incidents(sim, &ni);
    fputs("{\"scenario\":", f);
    json_string(f, scn->path);
    fputs(",\"end\":", f);
    json_number(f, scn->end_time);
    // step: RK4's fixed step, or BDF's shortest accepted step, with the BDF's counters
    app_sim_step_stats st = app_sim_get_step_stats(sim);
    fputs(",\"step\":", f);
    json_number(f, st.min_step);
    fprintf(f, ",\"integrator\":\"%s\",\"integration_steps\":%llu,\"max_step\":",
            scn->mech != NULL && scn->mech->joint_count > 0 ? "SIMBODY_RKMERSON"
            : scn->integrator == APP_SCENARIO_RK4           ? "RK4"
                                                            : "BDF",
            (unsigned long long)st.steps);
    json_number(f, st.max_step);
    fprintf(f, ",\"rejected_steps\":%llu,\"newton_failures\":%llu,\"onset_rejections\":%llu,\"jacobians\":%llu",
            (unsigned long long)st.failed_steps, (unsigned long long)st.newton_failures,
            (unsigned long long)st.onset_rejections, (unsigned long long)st.jacobians);
    fputs(",\"warnings\":[", f);
    for (int k = 0; k < nw; ++k)
    {
        fputs(k > 0 ? "," : "", f);
        json_string(f, w[k]);
    }
    fputs("],\"contacts\":[", f);
    for (int c = 0; c < scn->contact_count; ++c)
    {
        char label[200];
        app_sim_contact_label(sim, c, label, sizeof label);
        double fn = 0.0, depth = 0.0, t = 0.0;
        int count = 0;
        for (int k = 0; k < ni; ++k)
        {
            if (in[k].contact == c)
            {
                ++count;
                t = in[k].max_fn > fn ? in[k].max_fn_time : t;
                fn = fmax(fn, in[k].max_fn);
                depth = fmax(depth, in[k].max_depth);
            }
        }
        fprintf(f, "%s{\"id\":%d,\"label\":", c > 0 ? "," : "", scn->contacts[c].id);
        json_string(f, label);
        fprintf(f, ",\"incidents\":%d,\"max_normal_force\":", count);
        json_number(f, fn);
        fputs(",\"max_normal_force_time\":", f);
        json_number(f, t);
        fputs(",\"max_depth\":", f);
        json_number(f, depth);
        fputc('}', f);
    }
    fputs("],\"incidents\":[", f);
    for (int k = 0; k < ni; ++k)
    {
        fputs(k > 0 ? "," : "", f);
        json_incident(f, scn, &in[k]);
    }
    fputs("]}\n", f);
}
