// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A host with a flexible part: a simply supported Euler-Bernoulli beam (cubic Hermite finite elements, written here),
// whose surface is a meshcontact mesh that follows the beam's nodes every step (mc_mesh_set_positions), pressed at
// mid-span by a rigid wedge (a square bar turned edge down, held in place). Each step the host moves the mesh to the
// nodes, queries the contact regions, takes the IMPACT force of each region (mc_impact_force on the region's depth),
// spreads it over the mesh vertices (mc_nodal_forces), sums the vertex forces onto the beam's nodes, and integrates
// the nodes (implicit in the beam's stiffness, explicit in the contact force, mass-proportional damping) until they
// rest. At rest the beam carries the contact force P at mid-span: the elementary solution is the mid-span deflection
// P L^3 / (48 E I). An odd number of elements puts mid-span inside an element, where the wedge's edge meets no vertex
// (the vertex-free case of mc_nodal_forces: the force goes to the vertices of the face under it by barycentric
// weights, which is the linear split of the load onto the element's two end nodes); that lumping is the
// discretization error, which shrinks as the mesh is refined.
// Prints one line per mesh; exit status 0 when the deflection converges to the elementary one (see main).
#include "meshcontact/meshcontact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Beam: length 1 m, width 0.1 m, height 0.02 m (the surface mesh is that box), E I = 100 N m^2 (stiffness at mid-span
// 48 E I / L^3 = 4800 N/m), 1 kg/m. The wedge presses 2 mm into the undeformed beam; contact stiffness 1e4 N/m.
#define LENGTH 1.0
#define WIDTH 0.1
#define HEIGHT 0.02
#define EI 100.0
#define RHO_A 1.0
#define PRESS 0.002
#define K_CONTACT 1e4

typedef struct beam
{
    int n;          // elements
    int dofs;       // 2 (n + 1): w_i, theta_i per node
    double* system; // LU factors of M / dt^2 + C / dt + K (dense, row-major), constraints folded in
    int* pivot;     // row pivots of the factorization
    double* mass;   // lumped masses per dof
    double* k;      // stiffness matrix (dense), for the residual
    double dt, damping;
} beam;

// Dense LU with partial pivoting (a few dozen dofs).
static int lu_factor(double* a, int* piv, int n)
{
    for (int c = 0; c < n; ++c)
    {
        int p = c;
        for (int r = c + 1; r < n; ++r)
        {
            p = fabs(a[r * n + c]) > fabs(a[p * n + c]) ? r : p;
        }
        piv[c] = p;
        if (a[p * n + c] == 0.0)
        {
            return -1;
        }
        for (int k = 0; k < n; ++k)
        {
            double t = a[c * n + k];
            a[c * n + k] = a[p * n + k];
            a[p * n + k] = t;
        }
        for (int r = c + 1; r < n; ++r)
        {
            double f = a[r * n + c] / a[c * n + c];
            a[r * n + c] = f;
            for (int k = c + 1; k < n; ++k)
            {
                a[r * n + k] -= f * a[c * n + k];
            }
        }
    }
    return 0;
}

static void lu_solve(const double* a, const int* piv, int n, double* x)
{
    for (int c = 0; c < n; ++c)
    {
        double t = x[c];
        x[c] = x[piv[c]];
        x[piv[c]] = t;
    }
    for (int r = 0; r < n; ++r)
    {
        for (int k = 0; k < r; ++k)
        {
            x[r] -= a[r * n + k] * x[k];
        }
    }
    for (int r = n - 1; r >= 0; --r)
    {
        for (int k = r + 1; k < n; ++k)
        {
            x[r] -= a[r * n + k] * x[k];
        }
        x[r] /= a[r * n + r];
    }
}

static bool constrained(const beam* b, int d)
{
    return d == 0 || d == 2 * b->n; // w at both supports
}

static int beam_init(beam* b, int n)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    b->dofs = 2 * (n + 1);
    int m = b->dofs;
    b->k = calloc((size_t)m * m, sizeof *b->k);
    b->system = calloc((size_t)m * m, sizeof *b->system);
    b->pivot = calloc((size_t)m, sizeof *b->pivot);
    b->mass = calloc((size_t)m, sizeof *b->mass);
    if (b->k == NULL || b->system == NULL || b->pivot == NULL || b->mass == NULL)
    {
        return -1;
    }
    double le = LENGTH / n, c = EI / (le * le * le);
    double ke[4][4] = {{12.0, 6.0 * le, -12.0, 6.0 * le},
                       {6.0 * le, 4.0 * le * le, -6.0 * le, 2.0 * le * le},
                       {-12.0, -6.0 * le, 12.0, -6.0 * le},
                       {6.0 * le, 2.0 * le * le, -6.0 * le, 4.0 * le * le}};
    for (int e = 0; e < n; ++e)
    {
        for (int r = 0; r < 4; ++r)
        {
            for (int q = 0; q < 4; ++q)
            {
                b->k[(2 * e + r) * m + 2 * e + q] += c * ke[r][q];
            }
        }
        // Lumped mass: half the element to each end node; a small rotary inertia (rho A le^3 / 78) per node.
        for (int s = 0; s < 2; ++s)
        {
            b->mass[2 * (e + s)] += 0.5 * RHO_A * le;
            b->mass[2 * (e + s) + 1] += RHO_A * le * le * le / 78.0;
        }
    }
    // Time step: the explicit contact spring on a mid-span node must stay far below its mass over dt^2.
    b->dt = 0.3 * sqrt(0.5 * RHO_A * le / K_CONTACT);
    // Mass-proportional damping near critical for the first mode, w1 = pi^2 sqrt(E I / (rho A)) / L^2.
    b->damping = 2.0 * 9.8696044010893586 * sqrt(EI / RHO_A) / (LENGTH * LENGTH);
    double in = 1.0 / (b->dt * b->dt) + b->damping / b->dt;
    for (int r = 0; r < m; ++r)
    {
        for (int q = 0; q < m; ++q)
        {
            double v = b->k[r * m + q] + (r == q ? in * b->mass[r] : 0.0);
            b->system[r * m + q] = constrained(b, r) || constrained(b, q) ? (r == q ? 1.0 : 0.0) : v;
        }
    }
    return lu_factor(b->system, b->pivot, m);
}

static void beam_free(beam* b)
{
    free(b->k);
    free(b->system);
    free(b->pivot);
    free(b->mass);
}

// The beam's surface: 4 vertices per node (the section's corners, counter-clockwise seen from +x), side quads between
// nodes, end caps. Vertex 4 i + k belongs to node i.
static mc_mesh* surface_mesh(int n)
{
    uint32_t nv = 4u * (uint32_t)(n + 1), nt = 8u * (uint32_t)n + 4u;
    double* p = malloc(3u * nv * sizeof *p);
    uint32_t* t = malloc(3u * nt * sizeof *t);
    const double cy[4] = {-0.5 * WIDTH, 0.5 * WIDTH, 0.5 * WIDTH, -0.5 * WIDTH};
    const double cz[4] = {-0.5 * HEIGHT, -0.5 * HEIGHT, 0.5 * HEIGHT, 0.5 * HEIGHT};
    for (int i = 0; i <= n; ++i)
    {
        for (int k = 0; k < 4; ++k)
        {
            double* v = &p[3 * (4 * i + k)];
            v[0] = LENGTH * i / n, v[1] = cy[k], v[2] = cz[k];
        }
    }
    uint32_t w = 0;
    for (uint32_t i = 0; i < (uint32_t)n; ++i)
    {
        for (uint32_t k = 0; k < 4u; ++k)
        {
            uint32_t k1 = (k + 1u) % 4u, a = 4u * i + k, b = 4u * i + k1, c = 4u * (i + 1u) + k1, d = 4u * (i + 1u) + k;
            uint32_t q[6] = {a, b, c, a, c, d};
            memcpy(&t[w], q, sizeof q);
            w += 6u;
        }
    }
    uint32_t e = 4u * (uint32_t)n;
    uint32_t caps[12] = {0, 2, 1, 0, 3, 2, e, e + 1u, e + 2u, e, e + 2u, e + 3u};
    memcpy(&t[w], caps, sizeof caps);
    mc_mesh_def md = mc_default_mesh_def();
    md.positions = p;
    md.vertex_count = nv;
    md.indices = t;
    md.triangle_count = nt;
    mc_mesh* m = NULL;
    mc_error err;
    if (mc_mesh_create(&md, &m, NULL, &err) != MC_OK)
    {
        fprintf(stderr, "beam mesh: %s\n", err.message);
    }
    free(p);
    free(t);
    return m;
}

// Mid-span deflection by the Hermite shape functions of the element that holds x = L / 2.
static double midspan(const beam* b, const double* x)
{
    double le = LENGTH / b->n, s = 0.5 * LENGTH / le;
    int e = (int)floor(s);
    e = e >= b->n ? b->n - 1 : e;
    double xi = s - e;
    double h1 = 1 - 3 * xi * xi + 2 * xi * xi * xi, h2 = le * (xi - 2 * xi * xi + xi * xi * xi);
    double h3 = 3 * xi * xi - 2 * xi * xi * xi, h4 = le * (-xi * xi + xi * xi * xi);
    return h1 * x[2 * e] + h2 * x[2 * e + 1] + h3 * x[2 * e + 2] + h4 * x[2 * e + 3];
}

typedef struct result
{
    double force;      // contact force on the beam at rest (N, downward positive)
    double deflection; // mid-span deflection at rest (m, downward positive)
    int steps;         // steps to rest
    int vertex_free;   // the contact had no inside vertex
} result;

static int run(int n, result* out)
{
    beam b;
    mc_mesh* mesh = surface_mesh(n);
    // The wedge: a square bar 0.1 x 0.4 (along y) x 0.1 turned 45 degrees about y, its lower edge PRESS below the top.
    mc_mesh* wedge = NULL;
    {
        double h = 0.05, l = 0.2;
        double p[24], ca = cos(0.7853981633974483), sa = sin(0.7853981633974483);
        uint32_t t[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                          2, 3, 7, 2, 7, 6, 1, 2, 6, 1, 6, 5, 3, 0, 4, 3, 4, 7};
        for (int v = 0; v < 8; ++v)
        {
            double x = (v == 1 || v == 2 || v == 5 || v == 6) ? h : -h,
                   y = (v == 2 || v == 3 || v == 6 || v == 7) ? l : -l;
            double z = v >= 4 ? h : -h;
            p[3 * v] = ca * x + sa * z, p[3 * v + 1] = y, p[3 * v + 2] = -sa * x + ca * z;
        }
        mc_mesh_def md = mc_default_mesh_def();
        md.positions = p;
        md.vertex_count = 8;
        md.indices = t;
        md.triangle_count = 12;
        if (mc_mesh_create(&md, &wedge, NULL, NULL) != MC_OK)
        {
            return -1;
        }
    }
    if (mesh == NULL || beam_init(&b, n) != 0)
    {
        return -1;
    }
    mc_pose beam_pose = mc_pose_identity(), wedge_pose = mc_pose_identity();
    wedge_pose.p = mc_v3(0.5 * LENGTH, 0.0, 0.5 * HEIGHT + 0.05 * sqrt(2.0) - PRESS);
    mc_workspace* ws = NULL;
    mc_workspace_create(&ws);
    uint32_t nv = mc_mesh_get_vertex_count(mesh);
    double* rest = malloc(3u * nv * sizeof *rest);
    double* pos = malloc(3u * nv * sizeof *pos);
    memcpy(rest, mc_mesh_get_positions(mesh), 3u * nv * sizeof *rest);
    int m = b.dofs;
    double *x = calloc((size_t)m, sizeof *x), *xp = calloc((size_t)m, sizeof *xp), *rhs = malloc(m * sizeof *rhs);
    double* f = malloc(m * sizeof *f);
    mc_nodal_force nodes[256];
    int step = 0, status = -1;
    out->vertex_free = 0;
    for (; step < 200000; ++step)
    {
        // 1. The mesh follows the nodes: vertex 4 i + k moves with node i's deflection.
        for (uint32_t v = 0; v < nv; ++v)
        {
            pos[3 * v] = rest[3 * v];
            pos[3 * v + 1] = rest[3 * v + 1];
            pos[3 * v + 2] = rest[3 * v + 2] + x[2 * (v / 4u)];
        }
        if (mc_mesh_set_positions(mesh, pos, nv, NULL) != MC_OK)
        {
            break;
        }
        // 2. Contact: regions, IMPACT force on the beam along each region's normal, nodal forces.
        mc_region reg[4];
        uint32_t nr = 0;
        if (mc_query_regions(wedge, &wedge_pose, mesh, &beam_pose, NULL, ws, reg, 4, &nr, NULL) != MC_OK)
        {
            break;
        }
        mc_vec3 fr[4];
        for (uint32_t r = 0; r < nr; ++r)
        {
            fr[r] = mc_scale(reg[r].normal, mc_impact_force(reg[r].depth, 0.0, K_CONTACT, 1.0, 0.0, 1e-3));
        }
        uint32_t count = 0;
        if (mc_nodal_forces(mesh, &beam_pose, wedge, &wedge_pose, reg, fr, nr, nodes, 256, &count, NULL) != MC_OK)
        {
            break;
        }
        memset(f, 0, m * sizeof *f);
        for (uint32_t k = 0; k < count; ++k)
        {
            f[2 * (nodes[k].vertex / 4u)] += nodes[k].force.z;
            out->vertex_free |= nodes[k].penetration == 0.0;
        }
        // 3. Integrate: (M / dt^2 + c M / dt + K) x+ = M / dt^2 (2 x - x-) + c M / dt x + f.
        double in2 = 1.0 / (b.dt * b.dt), in1 = b.damping / b.dt, change = 0.0, size = 0.0;
        for (int d = 0; d < m; ++d)
        {
            rhs[d] = constrained(&b, d) ? 0.0 : b.mass[d] * (in2 * (2.0 * x[d] - xp[d]) + in1 * x[d]) + f[d];
        }
        lu_solve(b.system, b.pivot, m, rhs);
        for (int d = 0; d < m; ++d)
        {
            change = fmax(change, fabs(rhs[d] - x[d]));
            size = fmax(size, fabs(rhs[d]));
            xp[d] = x[d];
            x[d] = rhs[d];
        }
        if (step > 10 && change <= 1e-13 * size)
        {
            double total = 0.0;
            for (int d = 0; d < m; d += 2)
            {
                total += f[d];
            }
            out->force = -total;
            out->deflection = -midspan(&b, x);
            status = 0;
            break;
        }
    }
    out->steps = step;
    free(x), free(xp), free(rhs), free(f), free(rest), free(pos);
    mc_workspace_destroy(ws);
    mc_mesh_destroy(wedge);
    mc_mesh_destroy(mesh);
    beam_free(&b);
    return status;
}

int main(void)
{
    // Odd element counts: mid-span inside an element (the wedge's edge between nodes).
    const int counts[] = {3, 5, 9, 17, 33};
    const int runs = (int)(sizeof counts / sizeof counts[0]);
    double err[8];
    int failures = 0;
    printf("elements  steps  force_N      deflection_m   P_L3/48EI_m    rel_error  vertex_free\n");
    for (int k = 0; k < runs; ++k)
    {
        result r;
        if (run(counts[k], &r) != 0)
        {
            printf("%d elements: did not come to rest\n", counts[k]);
            return 1;
        }
        double elementary = r.force * LENGTH * LENGTH * LENGTH / (48.0 * EI);
        err[k] = fabs(r.deflection - elementary) / elementary;
        printf("%8d %6d  %.6e  %.6e  %.6e  %.2e  %d\n", counts[k], r.steps, r.force, r.deflection, elementary, err[k],
               r.vertex_free);
        failures += !(r.force > 0.0) || !r.vertex_free;
    }
    // The error must fall with every refinement, like h^2 (the linear split of a mid-element load onto the element's
    // two end nodes: measured 1.44 to 1.5 h^2 / L^2 from 9 elements on, so below 2 h^2 / L^2 there), and end below
    // 0.5 % at 33 elements (measured 0.14 %).
    for (int k = 1; k < runs; ++k)
    {
        failures += !(err[k] < err[k - 1]);
        failures += counts[k] >= 9 && !(err[k] * counts[k] * counts[k] < 2.0);
    }
    failures += !(err[runs - 1] < 5e-3);
    printf("%s\n", failures == 0 ? "ok: converges to P L^3 / (48 E I)" : "FAIL");
    return failures == 0 ? 0 : 1;
}
