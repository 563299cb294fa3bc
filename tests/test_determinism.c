// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Determinism of the pair stage: the same pairs, in the same order, with bitwise the same crossing points and the
// same counters, for 1, 2, 3 and 4 worker threads, over generated scenes and many poses.
#include "meshcontact/meshcontact.h"
#include "scenes.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void check_leaks(void)
{
    cr_assert(mc_get_byte_count() == 0, "leaked %lld bytes", (long long)mc_get_byte_count());
}

TestSuite(determinism, .fini = check_leaks);

// FNV-1a over the bytes of the meaningful fields (no padding).
static uint64_t hash_pairs(const mc_triangle_pair* p, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t k = 0; k < n; ++k)
    {
        unsigned char buf[2 * sizeof(uint32_t) + 2 * (sizeof(mc_vec3) + 4)];
        size_t o = 0;
        memcpy(buf + o, &p[k].i, sizeof p[k].i), o += sizeof p[k].i;
        memcpy(buf + o, &p[k].j, sizeof p[k].j), o += sizeof p[k].j;
        for (int c = 0; c < 2; ++c)
        {
            memcpy(buf + o, &p[k].crossing[c].point, sizeof(mc_vec3)), o += sizeof(mc_vec3);
            buf[o++] = p[k].crossing[c].body;
            buf[o++] = p[k].crossing[c].edge;
            buf[o++] = (unsigned char)p[k].crossing[c].entering;
            buf[o++] = p[k].crossing[c].degenerate;
        }
        for (size_t b = 0; b < o; ++b)
        {
            h = (h ^ buf[b]) * 1099511628211ull;
        }
    }
    return h;
}

Test(determinism, pairs_are_identical_for_one_to_four_threads)
{
    const uint32_t cap = 200000;
    mc_triangle_pair* ref = malloc(cap * sizeof *ref);
    mc_triangle_pair* got = malloc(cap * sizeof *got);
    cr_assert(ref != NULL && got != NULL);
    mc_workspace* ws = NULL;
    cr_assert(mc_workspace_create(&ws) == MC_OK);
    uint64_t seed = 2026;
    uint64_t total_pairs = 0;
    int parallel_runs = 0;
    for (int k = 0; k < SCENE_KIND_COUNT; ++k)
    {
        scene_pair s;
        cr_assert(scene_make((scene_kind)k, 40000, &s) == 0); // above the library's threshold for threads
        for (int pose = 0; pose < 6; ++pose)
        {
            mc_pose pj = s.pose_j;
            if (pose > 0)
            {
                // Small random perturbations of the scene's pose: different pair sets, still in contact.
                pj.p = mc_add(pj.p, mc_v3(0.05 * (scene_random(&seed) - 0.5), 0.05 * (scene_random(&seed) - 0.5),
                                          0.02 * (scene_random(&seed) - 0.5)));
                mc_quat dq = {1.0, 0.05 * (scene_random(&seed) - 0.5), 0.05 * (scene_random(&seed) - 0.5),
                              0.05 * (scene_random(&seed) - 0.5)};
                pj.q = mc_quat_normalize(mc_quat_mul(mc_quat_normalize(dq), pj.q));
            }
            uint32_t n_ref = 0;
            mc_query_stats st_ref;
            memset(&st_ref, 0, sizeof st_ref);
            for (int threads = 1; threads <= 4; ++threads)
            {
                mc_query_options opt = mc_default_query_options();
                opt.worker_count = threads;
                uint32_t n = 0;
                mc_query_stats st;
                mc_triangle_pair* out = threads == 1 ? ref : got;
                cr_assert(mc_query_triangle_pairs(s.mesh_i, &s.pose_i, s.mesh_j, &pj, &opt, ws, out, cap, &n, &st) ==
                          MC_OK);
                if (threads == 1)
                {
                    n_ref = n;
                    st_ref = st;
                    cr_assert(n > 0, "%s pose %d: no contact", s.name, pose);
                    total_pairs += n;
                    continue;
                }
                cr_assert(n == n_ref, "%s: %u pairs with %d threads, %u with 1", s.name, n, threads, n_ref);
                cr_assert(memcmp(got, ref, (size_t)n * sizeof *got) == 0 || hash_pairs(got, n) == hash_pairs(ref, n),
                          "%s: pairs differ with %d threads", s.name, threads);
                // The traversal does not depend on the thread count, so neither do the counters.
                cr_assert(st.box_tests == st_ref.box_tests && st.triangle_tests == st_ref.triangle_tests &&
                          st.triangle_pairs == st_ref.triangle_pairs);
                cr_assert(st.threads >= 1 && st.threads <= threads);
                parallel_runs += st.threads > 1;
            }
        }
        scene_pair_destroy(&s);
    }
    cr_assert(total_pairs > 1000);
    // The parallel path must have been exercised (OpenMP may give fewer threads than asked, not always one).
    cr_assert(parallel_runs > 0);
    mc_workspace_destroy(ws);
    free(ref);
    free(got);
}
