// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Tree-vs-tree collision under a relative pose: conservative 15-axis OBB tests, exact triangle pairs at the leaves,
// parallel over a frontier of node pairs, output sorted by (i, j) and identical for any thread count.
// Based on: S. Gottschalk, M. C. Lin, D. Manocha, "OBBTree: A Hierarchical Structure for Rapid Interference
// Detection", SIGGRAPH 1996 (separating axis test and tree traversal).
#include "bvh/bvh_internal.h"
#include "src/base/array.h"
#include "src/base/core.h"
#include "src/base/parallel.h"
#include "src/base/predicates.h"
#include "src/base/tri_tri.h"
#include "src/base/tri_tri_sides.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
// AVX2 kernels picked at run time (x86-64, GCC): eight box tests per instruction, leaf culling on 8-lane registers;
// bitwise the same outcomes as the SSE2 kernels.
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define MC_COLLIDE_AVX 1
#include <immintrin.h>
#else
#define MC_COLLIDE_AVX 0
#endif

// The batched box tests get a second clone compiled for x86-64-v4, picked once at load time by GCC's target_clones
// (ifunc): its 32 vector registers remove most spills of the 4-lane box test (~5-10% per query measured on the bench
// scenes). Both clones compute the same values: the same IEEE operations in the same order
// (the build uses -ffp-contract=off, so nothing is fused). Plain single version elsewhere and under sanitizers.
// The certified replay (front_replay, scalar plane values and points) and the leaf tests (leaf_tris_test) get an
// x86-64-v3 clone: their three-operand AVX forms need fewer register copies than the default x86-64 code (the replay
// 8.0 M -> 6.9 M instructions per coherent step, 216 spheres; the chain's tests 1.91 M -> 1.72 M).
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11 &&         \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define MC_HOT_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))
#define MC_SCALAR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MC_HOT_CLONES
#define MC_SCALAR_CLONES
#endif

/// Node pair of a traversal: a in I's tree, b in J's tree.
typedef struct node_pair
{
    uint32_t a, b;
} node_pair;

/// A front entry of temporal coherence (see mc_collide_front below): node pair (a in I's tree, b in J's).
/// A separated node pair (near == FRONT_NODE): `gap` is a lower bound of the gap between the two boxes at the front's
/// pose. A leaf pair: its near list (near_count triangle pairs at `near` in the front's pool, one byte each: I's
/// position in the leaf << 4 | J's) holds the triangle pairs whose exact bounding boxes were within the margin when
/// it was recorded, and `gap` a lower bound of the gap between the boxes of every other triangle pair.
/// Gaps are floats rounded down (half the memory of doubles).
typedef struct front_entry
{
    uint32_t a, b;
    float gap;
    uint32_t near;
    uint32_t near_count;
} front_entry;
#define FRONT_NODE UINT32_MAX

/// A separated node pair of a front as the front keeps it (mc_pair_front.nodes): front_entry without the near list
/// (12 bytes, not 20: most of a front's entries are separated node pairs).
typedef struct front_node
{
    uint32_t a, b;
    float gap;
} front_node;

/// Growable array of node pairs.
typedef struct pair_vec
{
    node_pair* data;
    uint32_t count, capacity;
} pair_vec;

/// Per-worker scratch, padded to its own cache lines.
typedef struct pair_worker
{
    pair_vec stack;              // traversal: current level
    pair_vec level;              // traversal: next level
    pair_vec leaves;             // traversal: its leaf pairs, tested at its end grouped by I's leaf (see traverse)
    mc_triangle_pair* pairs;     // found pairs (unsorted)
    uint32_t pair_count;         // used entries
    uint32_t pair_capacity;      // allocated entries
    uint64_t* coplanar;          // exactly coplanar triangle pairs that overlap, i << 32 | j (unsorted)
    uint32_t coplanar_count;     // used entries
    uint32_t coplanar_capacity;  // allocated entries
    uint64_t box_tests;          // OBB tests done by this worker
    uint64_t triangle_tests;     // triangle pairs tested
    uint64_t culled_in;          // triangles left by the leaf culling (both sides, summed over leaf pairs)
    uint64_t axis_rejected;      // triangle pairs rejected by an edge axis or a slab (AVX2 pair loops)
    uint64_t inside;             // crossing pairs decided by the inside test (in_frame_avx2)
    struct leaf_a_cache* leaf_a; // the last I leaf met, with its prepared data (SSE2 kernels; see leaf_a_cache)
    int failed;                  // an allocation failed
    char pad[64];                // keep workers' counters on separate cache lines
} pair_worker;

/// Sort record: (i, j) key and the index of the pair in the gathered array.
typedef struct sort_key
{
    uint64_t key;
    uint32_t index;
} sort_key;

struct mc_pair_scratch
{
    // Lazy J vertex cache: stamp[v] == 2 * epoch + 1 when jv[v] holds the mapped vertex of this query;
    // 2 * epoch while one thread writes it.
    mc_vec3* jv;                // mapped J vertices (I frame)
    atomic_uint* stamp;         // per-vertex stamps
    uint32_t jv_capacity;       // entries of jv and stamp
    uint32_t epoch;             // current query
    const mc_vec3* j_pos;       // J's positions (body frame) of the current query
    uint32_t j_vertex_count;    // vertices of J in the current query
    double rot[3][3];           // rotation J -> I of the current query
    double trans[3];            // translation J -> I
    pair_worker* workers;       // per-worker scratch
    int worker_capacity;        // allocated workers
    pair_vec frontier[2];       // frontier expansion (current and next level)
    mc_triangle_pair* out;      // merged, sorted output
    uint32_t out_capacity;      // entries of out
    uint64_t* coplanar;         // the workers' coplanar pairs, merged and sorted (mc_pair_result.coplanar)
    uint32_t coplanar_capacity; // entries of coplanar
    sort_key* keys;             // sort keys
    sort_key* keys_tmp;         // merge sort scratch
    uint32_t key_capacity;      // entries of keys and keys_tmp
    uint64_t culled_in;         // the last query's culling survivors (tests: the kernels of every width agree)
    uint64_t axis_rejected;     // the last query's triangle pairs rejected by an edge axis (tests: the path ran)
    uint64_t inside;            // the last query's crossing pairs decided by the inside test (tests: the path ran)
    front_entry* fresh;         // front entries found by the current front query's descents (mc_collide_front)
    uint32_t fresh_count;       // used
    uint32_t fresh_cap;         // allocated
    uint8_t* pool;              // near lists of the front being built (copied into the front at the end)
    float* pool_gap;            // each near-list pair's own gap bound (see front_entry)
    uint32_t pool_count;        // used
    uint32_t pool_cap;          // allocated
    uint32_t pool_gap_cap;      // entries of pool_gap allocated
    uint64_t near_measures;     // the last front query's near-list gaps measured again (near_pair_refresh; tests)
};

// Node pairs per worker the serial expansion aims for before the parallel loop: enough items for the dynamic
// schedule to balance, few enough to keep the serial part small. The set of tested node pairs (and so the counters
// and the result) does not depend on where the frontier is cut: an item's traversal expands exactly as the
// frontier expansion would.
#define FRONTIER_PER_WORKER 64u
// Both nodes of an internal pair are split at once (four child pairs, one SIMD test) when neither node's largest extent
// exceeds this many times the other's; otherwise the larger one is split. Callgrind over the 1k scenes and the real
// meshes: 1.5 to 3 all beat splitting only the larger (the 1k spheres and tori by 10-14%), 2 was best overall.
#define BOTH_RATIO 2.0f
// Frontier items traversed together by one task of the parallel loop.
#define ITEMS_PER_CHUNK 4u
// Pair sets from this size on are sorted by radix (below it the merge sort's fewer passes win).
#define RADIX_MIN 256u
// Parallel traversal only with at least this many internal node pairs left in the frontier...
#define PARALLEL_MIN_INTERNAL 32u
// ... and at least this many triangles in both meshes together.
#define PARALLEL_MIN_TRIANGLES 50000u

// ---------------------------------------------------------------------------------------------------------------
// Scratch

static void pair_vec_free(pair_vec* v)
{
    mc_free(v->data);
    memset(v, 0, sizeof *v);
}

static int pair_vec_reserve(pair_vec* v, uint32_t need)
{
    return mc_array_reserve((void**)&v->data, &v->capacity, need, sizeof *v->data, 64);
}

void mc_pair_scratch_destroy(struct mc_pair_scratch* s)
{
    if (s == NULL)
    {
        return;
    }
    mc_free(s->jv);
    mc_free((void*)s->stamp);
    for (int w = 0; w < s->worker_capacity; ++w)
    {
        pair_vec_free(&s->workers[w].stack);
        pair_vec_free(&s->workers[w].level);
        pair_vec_free(&s->workers[w].leaves);
        mc_free(s->workers[w].pairs);
        mc_free(s->workers[w].coplanar);
        mc_free(s->workers[w].leaf_a);
    }
    mc_free(s->workers);
    pair_vec_free(&s->frontier[0]);
    pair_vec_free(&s->frontier[1]);
    mc_free(s->out);
    mc_free(s->coplanar);
    mc_free(s->keys);
    mc_free(s->keys_tmp);
    mc_free(s->fresh);
    mc_free(s->pool);
    mc_free(s->pool_gap);
    mc_free(s);
}

size_t mc_pair_scratch_byte_count(const struct mc_pair_scratch* s)
{
    if (s == NULL)
    {
        return 0;
    }
    size_t n = sizeof *s + (size_t)s->jv_capacity * (sizeof *s->jv + sizeof *s->stamp);
    for (int w = 0; w < s->worker_capacity; ++w)
    {
        n += sizeof s->workers[w] +
             (size_t)(s->workers[w].stack.capacity + s->workers[w].level.capacity + s->workers[w].leaves.capacity) *
                 sizeof(node_pair) +
             (size_t)s->workers[w].pair_capacity * sizeof(mc_triangle_pair) +
             (size_t)s->workers[w].coplanar_capacity * sizeof(uint64_t) + mc_alloc_size(s->workers[w].leaf_a);
    }
    n += (size_t)(s->frontier[0].capacity + s->frontier[1].capacity) * sizeof(node_pair);
    n += (size_t)s->out_capacity * sizeof(mc_triangle_pair) + 2u * (size_t)s->key_capacity * sizeof(sort_key);
    n += (size_t)s->coplanar_capacity * sizeof(uint64_t);
    n += (size_t)s->fresh_cap * sizeof(front_entry) + s->pool_cap + (size_t)s->pool_gap_cap * sizeof(float);
    return n;
}

#if defined(__SSE2__)
struct leaf_a_cache;
static struct leaf_a_cache* leaf_a_cache_new(void);
static void leaf_a_cache_forget(struct leaf_a_cache* c);
#endif

static mc_status scratch_prepare(struct mc_pair_scratch** slot, const struct mc_mesh* mj, int workers)
{
    if (*slot == NULL)
    {
        *slot = mc_calloc(1, sizeof **slot);
        if (*slot == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
    }
    struct mc_pair_scratch* s = *slot;
    if (mj->vertex_count > s->jv_capacity)
    {
        mc_free(s->jv);
        mc_free((void*)s->stamp);
        s->jv_capacity = 0;
        s->jv = mc_alloc_array(mj->vertex_count, sizeof *s->jv);
        s->stamp = mc_alloc_array(mj->vertex_count, sizeof *s->stamp);
        if (s->jv == NULL || s->stamp == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        for (uint32_t v = 0; v < mj->vertex_count; ++v)
        {
            atomic_init(&s->stamp[v], 0u);
        }
        s->jv_capacity = mj->vertex_count;
        // The epoch goes on (new stamps are 0, below every live epoch's 2e, as epochs start at 1): the workers' leaf
        // caches are tagged with it, and restarting it would let one take an earlier query's leaf for this one's.
    }
    // Stamps 2e and 2e + 1 belong to epoch e; clear everything when the counter would wrap (the workers' leaf caches
    // are tagged with the epoch too).
    if (s->epoch >= 0x7ffffff0u)
    {
        for (uint32_t v = 0; v < s->jv_capacity; ++v)
        {
            atomic_store_explicit(&s->stamp[v], 0u, memory_order_relaxed);
        }
#if defined(__SSE2__)
        for (int w = 0; w < s->worker_capacity; ++w)
        {
            leaf_a_cache_forget(s->workers[w].leaf_a);
        }
#endif
        s->epoch = 0;
    }
    s->epoch += 1u;
    if (workers > s->worker_capacity)
    {
        pair_worker* w = mc_realloc(s->workers, (size_t)workers * sizeof *w);
        if (w == NULL)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        memset(w + s->worker_capacity, 0, (size_t)(workers - s->worker_capacity) * sizeof *w);
        s->workers = w;
#if defined(__SSE2__)
        for (int k = s->worker_capacity; k < workers; ++k)
        {
            w[k].leaf_a = leaf_a_cache_new();
            if (w[k].leaf_a == NULL)
            {
                for (int f = s->worker_capacity; f < k; ++f)
                {
                    mc_free(w[f].leaf_a);
                    w[f].leaf_a = NULL;
                }
                return MC_ERR_OUT_OF_MEMORY;
            }
        }
#endif
        s->worker_capacity = workers;
    }
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// J vertices in I's frame

// A mapped coordinate below MC_COORDINATE_SNAP in magnitude becomes 0 (mc_snap_tiny), so that the predicates stay in
// their exact range (vec_math.h): products of three differences of such values could underflow. The change is below
// 2^-300, far under the rounding of the rotation for any in-range vertex.

// The mapping is a pure function of (pose, vertex) evaluated with a fixed operation order (-ffp-contract=off), so
// any thread computing it gets bitwise the same value.
static inline mc_vec3 map_j(const struct mc_pair_scratch* s, mc_vec3 p)
{
    return mc_v3(mc_snap_tiny(s->rot[0][0] * p.x + s->rot[0][1] * p.y + s->rot[0][2] * p.z + s->trans[0]),
                 mc_snap_tiny(s->rot[1][0] * p.x + s->rot[1][1] * p.y + s->rot[1][2] * p.z + s->trans[1]),
                 mc_snap_tiny(s->rot[2][0] * p.x + s->rot[2][1] * p.y + s->rot[2][2] * p.z + s->trans[2]));
}

// Compute-and-publish: the first thread to claim a vertex (CAS 2e -> ...) writes it and releases the stamp; others
// compute the same value locally. No plain write ever races with a read.
static inline mc_vec3 j_vertex(struct mc_pair_scratch* s, uint32_t v)
{
    uint32_t ready = 2u * s->epoch + 1u;
    uint32_t st = atomic_load_explicit(&s->stamp[v], memory_order_acquire);
    if (st == ready)
    {
        return s->jv[v];
    }
    mc_vec3 x = map_j(s, s->j_pos[v]);
    uint32_t busy = 2u * s->epoch;
    if (st != busy &&
        atomic_compare_exchange_strong_explicit(&s->stamp[v], &st, busy, memory_order_acquire, memory_order_relaxed))
    {
        s->jv[v] = x;
        atomic_store_explicit(&s->stamp[v], ready, memory_order_release);
    }
    return x;
}

// j_vertex for a traversal that runs on one thread while no other thread uses the scratch (the serial path of
// mc_collide): the same value and stamps without the atomic read-modify-write.
static inline mc_vec3 j_vertex_serial(struct mc_pair_scratch* s, uint32_t v)
{
    uint32_t ready = 2u * s->epoch + 1u;
    if (atomic_load_explicit(&s->stamp[v], memory_order_relaxed) == ready)
    {
        return s->jv[v];
    }
    mc_vec3 x = map_j(s, s->j_pos[v]);
    s->jv[v] = x;
    atomic_store_explicit(&s->stamp[v], ready, memory_order_release);
    return x;
}

mc_vec3 mc_pair_scratch_j_vertex(struct mc_pair_scratch* scratch, uint32_t v)
{
    return j_vertex(scratch, v);
}

void mc_pair_scratch_j_view(struct mc_pair_scratch* scratch, mc_pair_j_view* view)
{
    view->scratch = scratch;
    view->jv = scratch->jv;
    view->stamp = scratch->stamp;
    view->ready = 2u * scratch->epoch + 1u;
}

mc_vec3 mc_pair_scratch_map_j(const struct mc_pair_scratch* scratch, mc_vec3 p_j)
{
    return map_j(scratch, p_j);
}

mc_vec3 mc_pair_scratch_unmap_j(const struct mc_pair_scratch* s, mc_vec3 p_i)
{
    double d[3] = {p_i.x - s->trans[0], p_i.y - s->trans[1], p_i.z - s->trans[2]};
    return mc_v3(s->rot[0][0] * d[0] + s->rot[1][0] * d[1] + s->rot[2][0] * d[2],
                 s->rot[0][1] * d[0] + s->rot[1][1] * d[1] + s->rot[2][1] * d[2],
                 s->rot[0][2] * d[0] + s->rot[1][2] * d[1] + s->rot[2][2] * d[2]);
}

uint64_t mc_pair_scratch_culled_in(const struct mc_pair_scratch* s)
{
    return s->culled_in;
}

uint64_t mc_pair_scratch_near_measures(const struct mc_pair_scratch* s)
{
    return s->near_measures;
}

uint64_t mc_pair_scratch_axis_rejected(const struct mc_pair_scratch* s)
{
    return s->axis_rejected;
}

uint64_t mc_pair_scratch_inside(const struct mc_pair_scratch* s)
{
    return s->inside;
}

double mc_pair_scratch_translation_norm(const struct mc_pair_scratch* s)
{
    return fabs(s->trans[0]) + fabs(s->trans[1]) + fabs(s->trans[2]);
}

// ---------------------------------------------------------------------------------------------------------------
// Box test

typedef struct collide_ctx
{
    const mc_bvh* ta;                // I's tree
    const mc_bvh* tb;                // J's tree
    const mc_vec3* pos_i;            // I's positions
    struct mc_pair_scratch* scratch; // J vertex cache
    double rel_slack;                // relative slack of the double-precision tests (triangle against box)
    double box_rel_slack;            // relative slack of the box-box test (float arithmetic when SSE is there)
    double abs_slack;                // absolute slack of the box tests
    int serial;                      // one thread traverses and nothing else uses the scratch meanwhile
#if defined(__SSE2__)
    __m128 map_cols[2][3];  // float columns (lane 3 zero) of the rotation J -> I [0] and of its transpose [1]
    __m128 map_f[2][3][3];  // map_f[0][r][c] = rot[r][c] splatted (J -> I), map_f[1][r][c] = rot[c][r] (I -> J)
    __m128d map_d[2][3][3]; // the same in double (centers)
    __m128d trans_d[3];     // translation J -> I, splatted
    float slack_rel_f;      // box_rel_slack rounded to float (the box test's float arithmetic)
    float slack_abs_f;      // abs_slack rounded to float
    int lanes;              // instruction set of the query's kernels: 1 SSE2, 2 AVX2
    /// Leaf against leaf with the kernels of `lanes` (bvh/collide_lanes.h).
    void (*leaf_pairs)(const struct collide_ctx* cx, pair_worker* w, const mc_bvh_node* na, const mc_bvh_node* nb);
#endif
} collide_ctx;

/// A node's box mapped into the other mesh's frame, in double: axes (rows), center and half extents.
typedef struct mapped_box
{
    double ax[3][3]; // axes (rows), I frame
    double c[3];     // center, I frame
    double e[3];     // half extents
} mapped_box;

static inline void map_j_box(const struct mc_pair_scratch* s, const mc_bvh_node* n, mapped_box* b)
{
    for (int k = 0; k < 3; ++k)
    {
        double x = n->axis[k][0], y = n->axis[k][1], z = n->axis[k][2];
        for (int r = 0; r < 3; ++r)
        {
            b->ax[k][r] = s->rot[r][0] * x + s->rot[r][1] * y + s->rot[r][2] * z;
        }
        b->e[k] = n->extent[k];
    }
    double x = n->center[0], y = n->center[1], z = n->center[2];
    for (int r = 0; r < 3; ++r)
    {
        b->c[r] = s->rot[r][0] * x + s->rot[r][1] * y + s->rot[r][2] * z + s->trans[r];
    }
}

#if !defined(__SSE2__) // used by expand, the portable path only (clang warns on an unused static inline)
/// I box in J's body frame (the inverse pose: x_J = rot^T (x_I - trans)), for testing one I box against both
/// children of a J node without mapping each child into I's frame.
static inline void map_i_box(const struct mc_pair_scratch* s, const mc_bvh_node* n, mapped_box* b)
{
    for (int k = 0; k < 3; ++k)
    {
        double x = n->axis[k][0], y = n->axis[k][1], z = n->axis[k][2];
        for (int r = 0; r < 3; ++r)
        {
            b->ax[k][r] = s->rot[0][r] * x + s->rot[1][r] * y + s->rot[2][r] * z;
        }
        b->e[k] = n->extent[k];
    }
    double x = n->center[0] - s->trans[0], y = n->center[1] - s->trans[1], z = n->center[2] - s->trans[2];
    for (int r = 0; r < 3; ++r)
    {
        b->c[r] = s->rot[0][r] * x + s->rot[1][r] * y + s->rot[2][r] * z;
    }
}
#endif

// Separating axis test with the 15 candidate axes (3 of A, 3 of B, 9 cross products). Conservative: an axis only
// separates when the gap exceeds a bound of every rounding involved (see mc_collide). @return 1 when the boxes may
// overlap.
/// What the separating axis tests of box_overlap and box_gap share: A's axes and extents in double, the centres'
/// offset d (I's frame), its coordinates t on A's axes, and the slack that covers every rounding (see mc_collide).
typedef struct sat_setup
{
    double a[3][3], ea[3], d[3], t[3], slack;
} sat_setup;

static inline void sat_prepare(const collide_ctx* cx, const mc_bvh_node* na, const mapped_box* b, sat_setup* q)
{
    for (int k = 0; k < 3; ++k)
    {
        q->a[k][0] = na->axis[k][0];
        q->a[k][1] = na->axis[k][1];
        q->a[k][2] = na->axis[k][2];
        q->ea[k] = na->extent[k];
    }
    for (int c = 0; c < 3; ++c)
    {
        q->d[c] = b->c[c] - na->center[c];
    }
    for (int i = 0; i < 3; ++i)
    {
        q->t[i] = q->a[i][0] * q->d[0] + q->a[i][1] * q->d[1] + q->a[i][2] * q->d[2];
    }
    q->slack = cx->rel_slack * (fabs(q->d[0]) + fabs(q->d[1]) + fabs(q->d[2]) + q->ea[0] + q->ea[1] + q->ea[2] +
                                b->e[0] + b->e[1] + b->e[2]) +
               cx->abs_slack;
}

// Axis a_i x b_k of the test, written in A's frame: the projected centre distance and the sum of the projected radii.
static inline void sat_cross_axis(const double t[3], const double ea[3], const double eb[3], double r[3][3],
                                  double ar[3][3], int i, int k, double* dist, double* rad)
{
    int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    *dist = fabs(t[i2] * r[i1][k] - t[i1] * r[i2][k]);
    *rad = ea[i1] * ar[i2][k] + ea[i2] * ar[i1][k] + eb[k1] * ar[i][k2] + eb[k2] * ar[i][k1];
}

static inline int box_overlap(const collide_ctx* cx, const mc_bvh_node* na, const mapped_box* b)
{
    sat_setup q;
    sat_prepare(cx, na, b, &q);
    double(*a)[3] = q.a;
    const double *ea = q.ea, *d = q.d, *t = q.t;
    double slack = q.slack;
    double r[3][3], ar[3][3];
    // Axes of A.
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            r[i][k] = a[i][0] * b->ax[k][0] + a[i][1] * b->ax[k][1] + a[i][2] * b->ax[k][2];
            ar[i][k] = fabs(r[i][k]);
        }
        if (fabs(t[i]) > ea[i] + b->e[0] * ar[i][0] + b->e[1] * ar[i][1] + b->e[2] * ar[i][2] + slack)
        {
            return 0;
        }
    }
    // Axes of B.
    for (int k = 0; k < 3; ++k)
    {
        double tb = b->ax[k][0] * d[0] + b->ax[k][1] * d[1] + b->ax[k][2] * d[2];
        if (fabs(tb) > b->e[k] + ea[0] * ar[0][k] + ea[1] * ar[1][k] + ea[2] * ar[2][k] + slack)
        {
            return 0;
        }
    }
    // Cross products a_i x b_k, written in A's frame.
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            double dist, rad;
            sat_cross_axis(t, ea, b->e, r, ar, i, k, &dist, &rad);
            if (dist > rad + slack)
            {
                return 0;
            }
        }
    }
    return 1;
}

static inline float node_size(const mc_bvh_node* n)
{
    float s = n->extent[0] > n->extent[1] ? n->extent[0] : n->extent[1];
    return s > n->extent[2] ? s : n->extent[2];
}

// Both nodes of a pair are split at once only when their boxes' volumes are within BOTH_VOLUME_RATIO too: a fat box
// (an internal node of a coarse part, as large as the part around a fine mesh inside it) is split alone, down to its
// thin leaves, instead of dragging the other tree down with it.
#define BOTH_VOLUME_RATIO 2.0f
static inline bool similar_volumes(const mc_bvh_node* a, const mc_bvh_node* b)
{
    float va = a->extent[0] * a->extent[1] * a->extent[2], vb = b->extent[0] * b->extent[1] * b->extent[2];
    return va <= BOTH_VOLUME_RATIO * vb && vb <= BOTH_VOLUME_RATIO * va;
}

// The worker's next pair record, for a triangle test to write its crossings into (pair_commit keeps it): no copy of
// the crossings afterwards, whose 16-byte loads would wait for the test's narrower stores to retire (no store
// forwarding). @return NULL on allocation failure.
static inline mc_triangle_pair* pair_slot(pair_worker* w)
{
    if (w->pair_count == w->pair_capacity)
    {
        uint32_t cap = w->pair_capacity < 256u ? 256u : w->pair_capacity * 2u;
        mc_triangle_pair* np = mc_realloc(w->pairs, (size_t)cap * sizeof *np);
        if (np == NULL)
        {
            w->failed = 1;
            return NULL;
        }
        w->pairs = np;
        w->pair_capacity = cap;
    }
    return &w->pairs[w->pair_count];
}

// Keeps the record of pair_slot, its crossings written, as the pair (i, j).
static inline void pair_commit(pair_worker* w, mc_triangle_pair* out, uint32_t i, uint32_t j)
{
    out->i = i;
    out->j = j;
    w->pair_count += 1u;
}

// Append one intersecting pair to the worker's buffer. @return 0 on allocation failure.
static inline int push_pair(pair_worker* w, uint32_t i, uint32_t j, const mc_crossing cr[2])
{
    mc_triangle_pair* out = pair_slot(w);
    if (out == NULL)
    {
        return 0;
    }
    out->crossing[0] = cr[0];
    out->crossing[1] = cr[1];
    pair_commit(w, out, i, j);
    return 1;
}

// A pair whose exact test found I's triangle ti exactly in J's plane (mc_tri_tri_crossings_planes_tie): appended to the
// worker's coplanar pairs when the two triangles overlap (exact; only those, so that every traversal, whatever extra
// candidates it tests, finds the same set). @return 0 on allocation failure.
static int push_coplanar(pair_worker* w, const mc_tri_plane* ti, const mc_tri_plane* tj, uint32_t i, uint32_t j)
{
    if (!mc_tri_coplanar_overlap_planes(ti, tj))
    {
        return 1;
    }
    if (!mc_array_reserve((void**)&w->coplanar, &w->coplanar_capacity, (uint64_t)w->coplanar_count + 1u,
                          sizeof *w->coplanar, 64))
    {
        w->failed = 1;
        return 0;
    }
    w->coplanar[w->coplanar_count++] = (uint64_t)i << 32 | j;
    return 1;
}

// The exact test of a pair (the filter of its plane tests was inconclusive): its crossing count (0 or 2, crossings in
// cr); an exactly coplanar pair is recorded (push_coplanar) with its triangles, those at positions pa of I's tree order
// and pb of J's. @return the count, -1 on allocation failure.
__attribute__((noinline)) static int exact_pair_test(const collide_ctx* cx, pair_worker* w, const mc_tri_plane* tp,
                                                     const mc_tri_plane* tq, uint32_t pa, uint32_t pb,
                                                     mc_crossing cr[2])
{
    int coplanar = 0;
    int n;
    if (mc_tri_plane_exactly_zero(tq, &tp->v[0]) && mc_tri_plane_exactly_zero(tq, &tp->v[1]) &&
        mc_tri_plane_exactly_zero(tq, &tp->v[2]) && mc_tri_plane_first_sign(tq) != 0)
    {
        // I's corners exactly in J's plane by their permanents (flush faces in a coordinate plane): the test would
        // give each corner R1's one sign (J's normal not zero), so no crossing, and report the pair coplanar.
        n = 0;
        coplanar = 1;
    }
    else
    {
        n = mc_tri_tri_crossings_planes_tie(tp, tq, cr, &coplanar);
    }
    return coplanar && !push_coplanar(w, tp, tq, cx->ta->tri_order[pa], cx->tb->tri_order[pb]) ? -1 : n;
}

// ---------------------------------------------------------------------------------------------------------------
// Traversal

#if defined(__SSE2__)
/// The other box of a box test in SIMD float form (lane box), in the mesh frame of the nodes it is tested against.
/// Built once per expansion and tested against both children.
typedef struct lane_box
{
    __m128 row[3]; // row[k] = (axis k, 0)
    __m128 e;      // (e0, e1, e2, 0)
    double c[3];   // center (double: the difference of centers is taken in double)
    double esum;   // e0 + e1 + e2
} lane_box;

// A node's box mapped into the other mesh's frame (to_i: a J node into I's frame; else an I node into J's frame), in
// lane_box form directly: the axes are rotated in float (each component within ~2.5e-7 of the exact rotation of the
// stored axes, which moves the box's corners by < 5e-7 times the sum of its extents: inside the budget of the lane box
// test, see bvh/collide_lanes.h, sat), the center in double as in map_j_box / map_i_box.
static inline void lane_box_map(const collide_ctx* cx, const mc_bvh_node* n, int to_i, lane_box* o)
{
    const __m128* m = cx->map_cols[to_i ? 0 : 1];
    for (int k = 0; k < 3; ++k)
    {
        o->row[k] = _mm_add_ps(
            _mm_add_ps(_mm_mul_ps(m[0], _mm_set1_ps(n->axis[k][0])), _mm_mul_ps(m[1], _mm_set1_ps(n->axis[k][1]))),
            _mm_mul_ps(m[2], _mm_set1_ps(n->axis[k][2])));
    }
    o->e = _mm_setr_ps(n->extent[0], n->extent[1], n->extent[2], 0.0f);
    o->esum = (double)n->extent[0] + (double)n->extent[1] + (double)n->extent[2];
    const struct mc_pair_scratch* s = cx->scratch;
    if (to_i)
    {
        double x = n->center[0], y = n->center[1], z = n->center[2];
        for (int k = 0; k < 3; ++k)
        {
            o->c[k] = s->rot[k][0] * x + s->rot[k][1] * y + s->rot[k][2] * z + s->trans[k];
        }
    }
    else
    {
        double x = n->center[0] - s->trans[0], y = n->center[1] - s->trans[1], z = n->center[2] - s->trans[2];
        for (int k = 0; k < 3; ++k)
        {
            o->c[k] = s->rot[0][k] * x + s->rot[1][k] * y + s->rot[2][k] * z;
        }
    }
}

// Culling data of one leaf against one lane_box in the same frame: the leaf center's offset from the box center and the
// comparison limits. The leaf's vertices are float offsets from its center (mc_bvh.tri_local), each within 2^-24
// relative of the exact offset; a vertex lies in the leaf's box, so its offset's 1-norm is < 2 * the sum of the
// leaf's extents. The float sums and projections of the culling (bvh/collide_lanes.h, cull) then err by
// < 1e-6 (|D|_1 + 2 sum e_leaf + sum e_box), a tenth of the slack.
typedef struct leaf_cull
{
    __m128 d;   // leaf center - box center (float)
    __m128 lim; // box extents + slack
} leaf_cull;

static inline void leaf_cull_make(const collide_ctx* cx, const mc_bvh_node* leaf, const lane_box* b, leaf_cull* lc)
{
    double dx = (double)leaf->center[0] - b->c[0], dy = (double)leaf->center[1] - b->c[1],
           dz = (double)leaf->center[2] - b->c[2];
    double el = (double)leaf->extent[0] + (double)leaf->extent[1] + (double)leaf->extent[2];
    double slack = cx->box_rel_slack * (fabs(dx) + fabs(dy) + fabs(dz) + 2.0 * el + b->esum) + cx->abs_slack;
    lc->d = _mm_setr_ps((float)dx, (float)dy, (float)dz, 0.0f);
    lc->lim = _mm_add_ps(b->e, _mm_set1_ps((float)slack));
}

/// Exact axis-aligned bounds in double: lo[0] / hi[0] = (x, y), lo[1] / hi[1] = (z, z).
typedef struct exact_aabb
{
    __m128d lo[2], hi[2];
} exact_aabb;

static inline exact_aabb exact_aabb_empty(void)
{
    exact_aabb b;
    b.lo[0] = b.lo[1] = _mm_set1_pd(INFINITY);
    b.hi[0] = b.hi[1] = _mm_set1_pd(-INFINITY);
    return b;
}

// a grows to cover b.
static inline void exact_aabb_join(exact_aabb* a, const exact_aabb* b)
{
    for (int h = 0; h < 2; ++h)
    {
        a->lo[h] = _mm_min_pd(a->lo[h], b->lo[h]);
        a->hi[h] = _mm_max_pd(a->hi[h], b->hi[h]);
    }
}

// b grows to cover the point v.
static inline void exact_aabb_add(exact_aabb* b, mc_vec3 v)
{
    __m128d xy = _mm_setr_pd(v.x, v.y), zz = _mm_set1_pd(v.z);
    b->lo[0] = _mm_min_pd(b->lo[0], xy);
    b->hi[0] = _mm_max_pd(b->hi[0], xy);
    b->lo[1] = _mm_min_pd(b->lo[1], zz);
    b->hi[1] = _mm_max_pd(b->hi[1], zz);
}

/// 1 when a strict gap separates the boxes along some axis.
static inline int exact_aabb_apart(const exact_aabb* a, const exact_aabb* b)
{
    __m128d gap = _mm_or_pd(_mm_cmpgt_pd(a->lo[0], b->hi[0]), _mm_cmplt_pd(a->hi[0], b->lo[0]));
    gap = _mm_or_pd(gap, _mm_or_pd(_mm_cmpgt_pd(a->lo[1], b->hi[1]), _mm_cmplt_pd(a->hi[1], b->lo[1])));
    return _mm_movemask_pd(gap) != 0;
}

// Rounding bound of the edge-axis projections below, relative to the sum of the absolute products: the computed
// A . fl(y - p) differs from the exact A . (y - p) by at most 4 u = 4.4e-16 times that sum (the rounded differences,
// products and two additions), and the final products and subtractions of the comparison add a few u more; 1e-14 leaves
// a factor of 10. Below EDGE_AXIS_MIN a sum could hide underflow, and no rejection is made.
#define EDGE_AXIS_REL 1e-14
#define EDGE_AXIS_LEAF_RATIO 4.0f
#define EDGE_AXIS_MIN 0x1p-700
// Leaf pairs whose I leaf is this many times larger than J's skip the culling of I's triangles against J's box (step 3
// of leaf_pairs, bvh/collide_lanes.h): a part's leaves against a coarse plate's one leaf. Instructions per warm query
// (callgrind) against doing it always: with 8, cad_part_on_plate -2.3 %, statue_on_plate -3.1 %, cad_parts_through
// -0.1 %; with 4, -2.3 %, -3.4 %, +0.5 %; with 16, -1.4 %, -2.0 %, 0.0 %.
#define SKIP_BOX_LEAF_RATIO 8.0f

/// A triangle's slab across its longest edge (p, q), for the pair loop: the axis A = (q - p) x n (n the triangle's
/// computed normal; A, as computed, taken as an exact direction: any direction that separates the projections proves
/// the triangles disjoint), on which the triangle's corners lie within [lo, hi] (bounds of A . (x - p) over the
/// corners: 0 at p, the others with their rounding bound). A triangle whose every corner y has A . (y - p) above hi, or
/// every corner below lo, by more than its rounding bound, is strictly apart from it: no crossing under any
/// perturbation of the symbolic rule and no coplanar overlap, so the exact test's answer is "no crossing" either way.
/// The slab of a long thin triangle is thin: the spokes of a cap fanned from its axis, whose axis-aligned bounding
/// boxes meet those of many triangles near their long edges, are apart from almost all of them on their own or the
/// other triangle's slab (fine gears, tree of before the split rule: 88 % of the pairs whose bounding boxes meet). A
/// big triangle split along its longest edge (a CAD face as two triangles) meets the small triangles beyond the edge in
/// its bounding box; the slab rejects them too.
typedef struct edge_axis
{
    double a[3]; // A
    double p[3]; // the edge's first corner
    double hi;   // upper bound of A . (x - p) over the triangle's corners
    double lo;   // lower bound of A . (x - p) over the triangle's corners (the slab's other side)
    int valid;   // 0: no rejection with this triangle (a sum below EDGE_AXIS_MIN, or not finite)
} edge_axis;

#if MC_COLLIDE_AVX // used by the AVX2 pair loop only (clang warns on an unused static function)
static void edge_axis_init(const mc_tri_plane* t, edge_axis* e)
{
    int i = 0;
    double longest = -1.0;
    for (int k = 0; k < 3; ++k)
    {
        mc_vec3 d = mc_sub(t->v[k == 2 ? 0 : k + 1], t->v[k]);
        double l = mc_dot(d, d);
        if (l > longest)
        {
            longest = l;
            i = k;
        }
    }
    mc_vec3 p = t->v[i], q = t->v[i == 2 ? 0 : i + 1], r = t->v[i == 0 ? 2 : i - 1];
    mc_vec3 a = mc_cross(mc_sub(q, p), mc_v3(t->n[0], t->n[1], t->n[2]));
    e->a[0] = a.x;
    e->a[1] = a.y;
    e->a[2] = a.z;
    e->p[0] = p.x;
    e->p[1] = p.y;
    e->p[2] = p.z;
    double lo2[2], hi2[2];
    int ok = 1;
    for (int c = 0; c < 2; ++c)
    {
        mc_vec3 x = c == 0 ? q : r;
        double dx = x.x - p.x, dy = x.y - p.y, dz = x.z - p.z;
        double f = a.x * dx + a.y * dy + a.z * dz;
        double sum = fabs(a.x) * fabs(dx) + fabs(a.y) * fabs(dy) + fabs(a.z) * fabs(dz);
        ok &= sum >= EDGE_AXIS_MIN && sum < INFINITY;
        lo2[c] = f - EDGE_AXIS_REL * sum;
        hi2[c] = f + EDGE_AXIS_REL * sum;
    }
    double hi = hi2[0] > hi2[1] ? hi2[0] : hi2[1];
    e->hi = hi > 0.0 ? hi : 0.0;
    double lo = lo2[0] < lo2[1] ? lo2[0] : lo2[1];
    e->lo = lo < 0.0 ? lo : 0.0;
    // A sum below EDGE_AXIS_MIN or not finite, or a bound that overflowed: no rejection
    e->valid = ok && e->hi < INFINITY && e->lo > -INFINITY;
}
#endif

/// A triangle's three edge functionals, for the inside test of the pair loop (in_frame_avx2): for its edge k from
/// corner a = v[k] to b = v[k + 1], f_k(y) = (y - a) . E_k with E_k = n x (b - a) (n the triangle's computed normal
/// taken as an exact vector, b - a exact). For a point y in the triangle's plane, (b - a) x (y - a) = l n* (n* the
/// exact normal) and f_k(y) = l (n . n*): with n . n* > 0 (checked below), f_k(y) > 0 exactly when y lies strictly on
/// the triangle's side of the edge's line. f_k is affine, so f_k > 0 at the three corners of another triangle puts
/// every point of it, and so every point where its edges cross the plane, strictly on that side. Evaluation and its
/// bound: E_k is computed as e = fl(fl(b - a) x n); with G_k the sums of the absolute products of its components, |e -
/// E_k| <= 3.01 u G_k (u = 2^-53: the rounded b - a, products and difference). f_k(y) is computed as fl(y . e) - c, c =
/// fl(a . e) (three products, two sums each, one subtraction), which differs from f_k(y) by at most sum_i (|y_i| +
/// |a_i|) (4.02 u |e_i| + 3.01 u G_i). The test takes w_i = INSIDE_REL (|e_i| + G_i) for those weights (20 times the
/// need, which also covers the rounding of the bound itself): f > sum_i |y_i| w_i + cb, cb = sum_i |a_i| w_i, proves
/// f_k(y) > 0. n . n* >= |n|^2 - sum_i |n_i| 4.01 u perm_i (mc_tri_plane_init's normal and sums), so |n|^2 > INSIDE_REL
/// sum_i |n_i| perm_i proves n . n* > 0. Underflow: the corners, the differences b - a and n are checked to be 0 or of
/// magnitude in [INSIDE_MIN, INSIDE_MAX] (J's mapped corners are 0 or at least MC_COORDINATE_SNAP = INSIDE_MIN), so
/// that no product above falls below 2^-1000 unless it is exactly 0, and none overflows.
typedef struct edge_frame
{
    double e[3][3]; // e[k]: the computed E_k
    double w[3][3]; // w[k]: the bound's weights of |y|
    double c[3];    // c[k] = fl(a . e[k]) (NaN when the frame is not valid: no test passes)
    double cb[3];   // cb[k]: the bound's constant part
} edge_frame;

#define INSIDE_REL 1e-14
#define INSIDE_MIN 0x1p-300
#define INSIDE_MAX 0x1p200

#if MC_COLLIDE_AVX // used by the AVX2 pair loop only (clang warns on an unused static function)
static inline int inside_range(double x)
{
    double a = fabs(x);
    return a == 0.0 || (a >= INSIDE_MIN && a <= INSIDE_MAX);
}

// The square of |n| / (3 l), l the triangle's longest edge: a lower bound of its inradius |n| / (perimeter), up to
// rounding. The pair loop tries the inside test only against J leaves whose box's largest half side is below it: their
// triangles are small enough to fit inside; larger ones rarely lie inside (a fine sphere on a grid box,
// sphere_box_100k: 54 of 945 pairs passed when all were tried, every J triangle wider than the inradius, and the
// query took 3.4 % more instructions; cad_part_on_plate: 1017 of 1029, 996 of them narrower than a sixteenth of it,
// and 999 pass with the gate). It decides only where the test runs, never a result.
static double tri_reach2(const mc_tri_plane* t)
{
    double l = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        mc_vec3 d = mc_sub(t->v[k == 2 ? 0 : k + 1], t->v[k]);
        double dd = mc_dot(d, d);
        l = dd > l ? dd : l;
    }
    double nn = t->n[0] * t->n[0] + t->n[1] * t->n[1] + t->n[2] * t->n[2];
    return l > 0.0 ? nn / (9.0 * l) : 0.0;
}

static void edge_frame_init(const mc_tri_plane* t, edge_frame* f)
{
    const double* n = t->n;
    int ok = 1;
    double nn = 0.0, np = 0.0;
    for (int i = 0; i < 3; ++i)
    {
        ok &= inside_range(n[i]);
        nn += n[i] * n[i];
        np += fabs(n[i]) * t->perm[i];
    }
    ok &= nn > INSIDE_REL * np;
    for (int k = 0; k < 3; ++k)
    {
        mc_vec3 va = t->v[k], vb = t->v[k == 2 ? 0 : k + 1];
        double a[3] = {va.x, va.y, va.z};
        double d[3] = {vb.x - va.x, vb.y - va.y, vb.z - va.z};
        for (int i = 0; i < 3; ++i)
        {
            ok &= inside_range(a[i]) & inside_range(d[i]);
        }
        double p[6] = {n[1] * d[2], n[2] * d[1], n[2] * d[0], n[0] * d[2], n[0] * d[1], n[1] * d[0]};
        double cb = 0.0;
        for (int i = 0; i < 3; ++i)
        {
            double e = p[2 * i] - p[2 * i + 1];
            double g = fabs(p[2 * i]) + fabs(p[2 * i + 1]);
            f->e[k][i] = e;
            f->w[k][i] = INSIDE_REL * (fabs(e) + g);
            cb += fabs(a[i]) * f->w[k][i];
        }
        f->c[k] = a[0] * f->e[k][0] + a[1] * f->e[k][1] + a[2] * f->e[k][2];
        f->cb[k] = cb;
    }
    if (!ok)
    {
        f->c[0] = f->c[1] = f->c[2] = NAN;
    }
}
#endif

/// Per worker, within one query, one entry of LEAF_A_WAYS: an I leaf of a recent leaf pair with what every leaf pair
/// against it needs and would otherwise compute again: its box mapped into J's frame (the culling's lane box) and, each
/// on first use, its triangles prepared for the exact stage (corners, plane, exact bounds: pose-independent, I's
/// frame). A part on a 12-triangle plate meets the plate's one leaf in every leaf pair. The values are those computed
/// per leaf pair before: the same operations on the same inputs.
typedef struct leaf_a_cache
{
    uint32_t epoch;                     // the scratch's query epoch the data below belongs to (0: none)
    uint32_t leaf;                      // node index in I's tree
    int boxed;                          // box holds the leaf's mapped box
    uint32_t prepared;                  // bit p: tri[p] and bounds[p] hold the leaf's triangle p
    uint32_t axes;                      // bit p: axis[p] holds the leaf's triangle p (made on first use)
    uint32_t framed;                    // bit p: frame[p] holds the leaf's triangle p (made on first use)
    lane_box box;                       // lane_box_map(leaf, into J's frame)
    mc_tri_plane tri[MC_BVH_LEAF_MAX];  // mc_tri_plane_init of the triangle's corners
    exact_aabb bounds[MC_BVH_LEAF_MAX]; // exact bounds of the corners
    edge_axis axis[MC_BVH_LEAF_MAX];    // edge_axis_init of the triangle
    double reach2[MC_BVH_LEAF_MAX];     // tri_reach2 of the triangle (made with its axis)
    edge_frame frame[MC_BVH_LEAF_MAX];  // edge_frame_init of the triangle
} leaf_a_cache;

/// Entries of a worker's leaf cache (a power of two), leaf a in entry a mod LEAF_A_WAYS: a traversal meets an I leaf
/// again a few leaf pairs later, after other I leaves. Instructions per warm query on the fine gears (callgrind): one
/// entry 30.5 M, 16 entries 29.4 M, 128 entries 28.5 M (before the split rule of bvh_build.c); 16 entries of
/// 7,296 bytes (4,224 before the edge frames) are 117 KB per worker.
#define LEAF_A_WAYS 16u

// The cache of leaf a (node index in I's tree): emptied when it holds another leaf or another query's data (the pose,
// and so the mapped box, changes with the query; the mesh may be another one at the same address).
static inline leaf_a_cache* leaf_a_get(const collide_ctx* cx, pair_worker* w, uint32_t a)
{
    leaf_a_cache* c = w->leaf_a + (a & (LEAF_A_WAYS - 1u));
    if (c->leaf != a || c->epoch != cx->scratch->epoch)
    {
        c->epoch = cx->scratch->epoch;
        c->leaf = a;
        c->boxed = 0;
        c->prepared = 0;
        c->axes = 0;
        c->framed = 0;
    }
    return c;
}

static struct leaf_a_cache* leaf_a_cache_new(void)
{
    leaf_a_cache* c = mc_alloc_array(LEAF_A_WAYS, sizeof *c);
    for (uint32_t k = 0; c != NULL && k < LEAF_A_WAYS; ++k)
    {
        c[k].epoch = 0;         // scratch epochs start at 1
        c[k].leaf = UINT32_MAX; // (leaf_a_get compares it first: no read of an unset field)
    }
    return c;
}

static void leaf_a_cache_forget(struct leaf_a_cache* c)
{
    for (uint32_t k = 0; k < LEAF_A_WAYS; ++k)
    {
        c[k].epoch = 0;
    }
}

// The pair loop of leaf_exact: every pair (ti[ps[pi]], tj[qi]) whose exact bounding boxes (ib[ps[pi]], jb[qi]) meet
// goes to the exact triangle test (I's side indexed by leaf position, J's by survivor). @return 0 on allocation
// failure.
static int leaf_pairs_exact(const collide_ctx* cx, pair_worker* w, const mc_tri_plane* ti, const exact_aabb* ib,
                            const uint32_t* ps, uint32_t np, const mc_tri_plane* tj, const exact_aabb* jb,
                            const uint32_t* qs, uint32_t nq, uint32_t fa, uint32_t fb)
{
    for (uint32_t pi = 0; pi < np; ++pi)
    {
        const mc_tri_plane* tp = &ti[ps[pi]];
        const exact_aabb* bp = &ib[ps[pi]];
        for (uint32_t qi = 0; qi < nq; ++qi)
        {
            if (exact_aabb_apart(&jb[qi], bp))
            {
                continue;
            }
            w->triangle_tests += 1u;
            mc_crossing cr[2];
            int n = exact_pair_test(cx, w, tp, &tj[qi], fa + ps[pi], fb + qs[qi], cr);
            if (n < 0)
            {
                return 0;
            }
            if (n == 2 && !push_pair(w, cx->ta->tri_order[fa + ps[pi]], cx->tb->tri_order[fb + qs[qi]], cr))
            {
                return 0;
            }
        }
    }
    return 1;
}

#if MC_COLLIDE_AVX
/// A triangle's corners on lanes: lane k holds corner k (lane 3 repeats corner 2).
typedef struct tri_lanes
{
    __m256d x, y, z;
} tri_lanes;

__attribute__((target("avx2"))) static inline void tri_lanes_make(const mc_tri_plane* t, tri_lanes* l)
{
    l->x = _mm256_setr_pd(t->v[0].x, t->v[1].x, t->v[2].x, t->v[2].x);
    l->y = _mm256_setr_pd(t->v[0].y, t->v[1].y, t->v[2].y, t->v[2].y);
    l->z = _mm256_setr_pd(t->v[0].z, t->v[1].z, t->v[2].z, t->v[2].z);
}

// Step 1 of the exact triangle test (src/base/tri_tri.c) for the corners c of one triangle against the plane pl of
// the other, one corner per lane: the orient value and its filter bound with the operations of tri_tri.c's
// plane_eval in the same order (so each lane's value is bitwise the scalar one), the sign where the value is beyond
// its bound. @return -1 when a value is within its bound (the scalar test decides the pair), 0 when the corners are
// on one side of the plane (no crossing), 1 when they straddle it (o[0..2] filled, *lonely the corner alone on its
// side, *side that side: +1 or -1; step 2 of the test, as crossings_from_sides finds them from the signs).
__attribute__((target("avx2"))) static inline int sides_avx2(const mc_tri_plane* pl, const tri_lanes* c, double o[4],
                                                             int* lonely, int* side)
{
    __m256d cx = _mm256_sub_pd(c->x, _mm256_set1_pd(pl->v[0].x));
    __m256d cy = _mm256_sub_pd(c->y, _mm256_set1_pd(pl->v[0].y));
    __m256d cz = _mm256_sub_pd(c->z, _mm256_set1_pd(pl->v[0].z));
    __m256d det = _mm256_add_pd(
        _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(pl->n[0]), cx), _mm256_mul_pd(_mm256_set1_pd(pl->n[1]), cy)),
        _mm256_mul_pd(_mm256_set1_pd(pl->n[2]), cz));
    __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
    __m256d perm = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(pl->perm[0]), _mm256_and_pd(cx, abs_mask)),
                                               _mm256_mul_pd(_mm256_set1_pd(pl->perm[1]), _mm256_and_pd(cy, abs_mask))),
                                 _mm256_mul_pd(_mm256_set1_pd(pl->perm[2]), _mm256_and_pd(cz, abs_mask)));
    // bound = perm >= MC_PRED_MIN_PERMANENT ? MC_PRED_O3D_BOUND * perm : INFINITY (NaN: infinite, as the scalar test).
    __m256d trusted = _mm256_cmp_pd(perm, _mm256_set1_pd(MC_PRED_MIN_PERMANENT), _CMP_GE_OQ);
    __m256d bound =
        _mm256_blendv_pd(_mm256_set1_pd(INFINITY), _mm256_mul_pd(_mm256_set1_pd(MC_PRED_O3D_BOUND), perm), trusted);
    int decided = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_and_pd(det, abs_mask), bound, _CMP_GT_OQ));
    if ((decided & 7) != 7)
    {
        return -1;
    }
    int pos = _mm256_movemask_pd(_mm256_cmp_pd(det, _mm256_setzero_pd(), _CMP_GT_OQ)) & 7;
    if (pos == 0 || pos == 7)
    {
        return 0;
    }
    _mm256_storeu_pd(o, det);
    // pos (bit k: corner k on the positive side) is 1 to 6 here; the lonely corner is the one whose bit differs from
    // the other two: lonely[pos] and its side +1 (a single bit set) or -1 (two set), packed two bits a pos.
    *lonely = (0x690 >> (2 * pos)) & 3; // pos 1..6 -> 0, 1, 2, 2, 1, 0
    *side = (pos & (pos - 1)) == 0 ? 1 : -1;
    return 1;
}

/// An edge_axis splatted on lanes (valid 0: hi and lo are NaN, so no comparison holds).
typedef struct axis_lanes
{
    __m256d a[3], abs_a[3], p[3], hi, lo;
} axis_lanes;

__attribute__((target("avx2"))) static inline void axis_lanes_make(const edge_axis* e, axis_lanes* l)
{
    for (int c = 0; c < 3; ++c)
    {
        l->a[c] = _mm256_set1_pd(e->a[c]);
        l->abs_a[c] = _mm256_set1_pd(fabs(e->a[c]));
        l->p[c] = _mm256_set1_pd(e->p[c]);
    }
    l->hi = _mm256_set1_pd(e->valid ? e->hi : NAN);
    l->lo = _mm256_set1_pd(e->valid ? e->lo : NAN);
}

// 1 when every corner of c (the other triangle, one corner per lane) lies on one side of a triangle's slab (edge_axis):
// A . (y - p) less its rounding bound above hi, or plus it below lo, each sum of absolute products at least
// EDGE_AXIS_MIN.
__attribute__((target("avx2"))) static inline int axis_apart_avx2(const axis_lanes* l, const tri_lanes* c)
{
    __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
    __m256d dx = _mm256_sub_pd(c->x, l->p[0]), dy = _mm256_sub_pd(c->y, l->p[1]), dz = _mm256_sub_pd(c->z, l->p[2]);
    __m256d f = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(l->a[0], dx), _mm256_mul_pd(l->a[1], dy)),
                              _mm256_mul_pd(l->a[2], dz));
    __m256d sum = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(l->abs_a[0], _mm256_and_pd(dx, abs_mask)),
                                              _mm256_mul_pd(l->abs_a[1], _mm256_and_pd(dy, abs_mask))),
                                _mm256_mul_pd(l->abs_a[2], _mm256_and_pd(dz, abs_mask)));
    __m256d err = _mm256_mul_pd(_mm256_set1_pd(EDGE_AXIS_REL), sum);
    __m256d big = _mm256_cmp_pd(sum, _mm256_set1_pd(EDGE_AXIS_MIN), _CMP_GE_OQ);
    __m256d above = _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(f, err), l->hi, _CMP_GT_OQ), big);
    __m256d below = _mm256_and_pd(_mm256_cmp_pd(_mm256_add_pd(f, err), l->lo, _CMP_LT_OQ), big);
    return _mm256_movemask_pd(above) == 15 || _mm256_movemask_pd(below) == 15;
}

/// An edge_frame splatted on lanes.
typedef struct frame_lanes
{
    __m256d e[3][3], w[3][3], c[3], cb[3];
} frame_lanes;

__attribute__((target("avx2"))) static inline void frame_lanes_make(const edge_frame* f, frame_lanes* l)
{
    for (int k = 0; k < 3; ++k)
    {
        for (int i = 0; i < 3; ++i)
        {
            l->e[k][i] = _mm256_set1_pd(f->e[k][i]);
            l->w[k][i] = _mm256_set1_pd(f->w[k][i]);
        }
        l->c[k] = _mm256_set1_pd(f->c[k]);
        l->cb[k] = _mm256_set1_pd(f->cb[k]);
    }
}

// The inside test (edge_frame): 1 when every corner of c (one per lane) is proven strictly on the inner side of the
// three edges of the frame's triangle, so that wherever c's edges cross that triangle's plane they cross its interior.
__attribute__((target("avx2"))) static inline int in_frame_avx2(const frame_lanes* l, const tri_lanes* c)
{
    __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
    __m256d ax = _mm256_and_pd(c->x, abs_mask), ay = _mm256_and_pd(c->y, abs_mask), az = _mm256_and_pd(c->z, abs_mask);
    __m256d in = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (int k = 0; k < 3; ++k)
    {
        __m256d f =
            _mm256_sub_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c->x, l->e[k][0]), _mm256_mul_pd(c->y, l->e[k][1])),
                                        _mm256_mul_pd(c->z, l->e[k][2])),
                          l->c[k]);
        __m256d b =
            _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ax, l->w[k][0]), _mm256_mul_pd(ay, l->w[k][1])),
                                        _mm256_mul_pd(az, l->w[k][2])),
                          l->cb[k]);
        in = _mm256_and_pd(in, _mm256_cmp_pd(f, b, _CMP_GT_OQ));
    }
    return _mm256_movemask_pd(in) == 15;
}

/// The slabs of a leaf pair's J survivors, each made on first use (bit q of made: a[q] holds survivor q's), and the
/// last I triangle's slab on lanes.
typedef struct j_slabs
{
    uint32_t made;
    uint32_t i_for; // 1 + the I triangle whose slab ai holds (0: none)
    axis_lanes ai;
    axis_lanes a[MC_BVH_LEAF_MAX];
} j_slabs;

// A pair whose plane tests were inconclusive (touching or coplanar triangles: flush faces, a cap fanned in the other
// part's cap plane) before the exact test: 1 when the slab of I's triangle p (cached in its leaf's cache) or of J's
// survivor q (in js) separates them. Long thin triangles have thin slabs: most of the fanned caps' flush pairs are
// rejected here, each at a fraction of the exact coplanar test (fine gears: 50.3 M -> 30.5 M instructions per query).
__attribute__((target("avx2"))) static int slabs_apart(leaf_a_cache* ca, uint32_t p, const tri_lanes* li, j_slabs* js,
                                                       const mc_tri_plane* tq, uint32_t q, const tri_lanes* lj)
{
    if (js->i_for != p + 1u)
    {
        if ((ca->axes & (1u << p)) == 0)
        {
            edge_axis_init(&ca->tri[p], &ca->axis[p]);
            ca->axes |= 1u << p;
        }
        axis_lanes_make(&ca->axis[p], &js->ai);
        js->i_for = p + 1u;
    }
    if (axis_apart_avx2(&js->ai, lj))
    {
        return 1;
    }
    if ((js->made & (1u << q)) == 0)
    {
        edge_axis e;
        edge_axis_init(tq, &e);
        axis_lanes_make(&e, &js->a[q]);
        js->made |= 1u << q;
    }
    return axis_apart_avx2(&js->a[q], li);
}

// The exact test of I's triangle p of leaf cache ca (corners on lanes li, at position i of I's tree order, its edge
// frame on lanes fl, NULL: no inside test) against J's survivor q, tq (lj, position j of J's), step 1 (the six plane
// tests) on lanes: a pair whose six values are all beyond their filter bounds is rejected there or goes on from its
// signs: when J's corners are all inside p's edges (in_frame_avx2) the segment's ends are J's crossings
// (crossings_on_j_edges), else steps 2 to 5 of mc_tri_tri_crossings_sides, inline (no call per pair); any other pair is
// tried on the two slabs (slabs_apart), then takes the scalar test. The pair is pushed when they cross. @return 0 on
// allocation failure.
__attribute__((target("avx2"), always_inline)) static inline int
pair_test_avx2(const collide_ctx* cx, pair_worker* w, leaf_a_cache* ca, uint32_t p, const tri_lanes* li,
               const frame_lanes* fl, uint32_t i, j_slabs* js, const mc_tri_plane* tq, uint32_t q, const tri_lanes* lj,
               uint32_t j)
{
    const mc_tri_plane* tp = &ca->tri[p];
    double oi[4], oj[4];
    int k = 0, sp = 0, m = 0, sw = 0;
    int side = sides_avx2(tq, li, oi, &k, &sp); // 1a: I's corners against J's plane
    if (side > 0)
    {
        side = sides_avx2(tp, lj, oj, &m, &sw); // 1b: J's corners against I's plane
    }
    if (side == 0)
    {
        return 1;
    }
    if (side < 0 && slabs_apart(ca, p, li, js, tq, q, lj))
    {
        w->axis_rejected += 1u;
        return 1;
    }
    mc_triangle_pair* out = pair_slot(w);
    if (out == NULL)
    {
        return 0;
    }
    mc_crossing* cr = out->crossing;
    int n;
    if (side > 0 && fl != NULL && in_frame_avx2(fl, lj))
    {
        crossings_on_j_edges(tq->v, oj, m, sw, cr);
        w->inside += 1u;
        n = 2;
    }
    else
    {
        n = side > 0 ? crossings_from_lonely(tp->v, oi, k, sp, tq->v, oj, m, sw, 0, cr)
                     : exact_pair_test(cx, w, tp, tq, i, j, cr);
    }
    if (n == 2)
    {
        pair_commit(w, out, cx->ta->tri_order[i], cx->tb->tri_order[j]);
    }
    return n >= 0;
}

// leaf_pairs_exact with the triangle tests' plane tests on lanes (pair_test_avx2). Bitwise the same pairs, crossings
// and counters as leaf_pairs_exact.
__attribute__((target("avx2"))) static int leaf_pairs_exact_avx2(const collide_ctx* cx, pair_worker* w,
                                                                 leaf_a_cache* ca, const uint32_t* ps, uint32_t np,
                                                                 const mc_tri_plane* tj, const exact_aabb* jb,
                                                                 const uint32_t* qs, uint32_t nq, uint32_t fa,
                                                                 uint32_t fb)
{
    tri_lanes li[MC_BVH_LEAF_MAX], lj[MC_BVH_LEAF_MAX];
    j_slabs js;
    js.made = 0;
    js.i_for = 0;
    memset(&js.ai, 0, sizeof js.ai); // (set before use; GCC cannot see it through i_for)
    for (uint32_t qi = 0; qi < nq; ++qi)
    {
        tri_lanes_make(&tj[qi], &lj[qi]);
    }
    for (uint32_t pi = 0; pi < np; ++pi)
    {
        const mc_tri_plane* tp = &ca->tri[ps[pi]];
        const exact_aabb* bp = &ca->bounds[ps[pi]];
        tri_lanes_make(tp, &li[pi]);
        for (uint32_t qi = 0; qi < nq; ++qi)
        {
            if (exact_aabb_apart(&jb[qi], bp))
            {
                continue;
            }
            w->triangle_tests += 1u;
            double oi[4], oj[4];
            int k = 0, sp = 0, m = 0, sw = 0;
            int side = sides_avx2(&tj[qi], &li[pi], oi, &k, &sp); // 1a: I's corners against J's plane
            if (side > 0)
            {
                side = sides_avx2(tp, &lj[qi], oj, &m, &sw); // 1b: J's corners against I's plane
            }
            if (side == 0)
            {
                continue;
            }
            if (side < 0 && slabs_apart(ca, ps[pi], &li[pi], &js, &tj[qi], qi, &lj[qi]))
            {
                w->axis_rejected += 1u;
                continue;
            }
            mc_triangle_pair* out = pair_slot(w);
            if (out == NULL)
            {
                return 0;
            }
            // Steps 3 to 5 inline (tri_tri_sides.h): mc_tri_tri_crossings_sides without a call per pair.
            int n = side > 0 ? crossings_from_lonely(tp->v, oi, k, sp, tj[qi].v, oj, m, sw, 0, out->crossing)
                             : exact_pair_test(cx, w, tp, &tj[qi], fa + ps[pi], fb + qs[qi], out->crossing);
            if (n < 0)
            {
                return 0;
            }
            if (n == 2)
            {
                pair_commit(w, out, cx->ta->tri_order[fa + ps[pi]], cx->tb->tri_order[fb + qs[qi]]);
            }
        }
    }
    return 1;
}

// leaf_pairs_exact_avx2 with I's triangles' edge axes (edge_axis: made on first use, kept in the leaf's cache): for
// each I triangle, the J survivors whose bounds meet its bounds and that are not beyond its edge axis get the exact
// test (those beyond are counted as tested: they passed the bounding boxes). Bitwise the same pairs, crossings and
// counters.
__attribute__((target("avx2"))) static int leaf_pairs_axes_avx2(const collide_ctx* cx, pair_worker* w, leaf_a_cache* ca,
                                                                const uint32_t* ps, uint32_t np, const mc_tri_plane* tj,
                                                                const exact_aabb* jb, const uint32_t* qs, uint32_t nq,
                                                                uint32_t fa, uint32_t fb, double j_size2)
{
    tri_lanes lj[MC_BVH_LEAF_MAX];
    j_slabs js;
    js.made = 0;
    js.i_for = 0;
    memset(&js.ai, 0, sizeof js.ai); // (set before use; GCC cannot see it through i_for)
    for (uint32_t qi = 0; qi < nq; ++qi)
    {
        tri_lanes_make(&tj[qi], &lj[qi]);
    }
    for (uint32_t pi = 0; pi < np; ++pi)
    {
        uint32_t p = ps[pi];
        const mc_tri_plane* tp = &ca->tri[p];
        uint32_t todo = 0, tests = 0; // J survivors whose bounds meet p's
        for (uint32_t qi = 0; qi < nq; ++qi)
        {
            uint32_t meet = exact_aabb_apart(&jb[qi], &ca->bounds[p]) ? 0u : 1u;
            todo |= meet << qi;
            tests += meet;
        }
        w->triangle_tests += tests;
        if (todo == 0)
        {
            continue;
        }
        if ((ca->axes & (1u << p)) == 0)
        {
            edge_axis_init(tp, &ca->axis[p]);
            ca->reach2[p] = tri_reach2(tp);
            ca->axes |= 1u << p;
        }
        axis_lanes al;
        axis_lanes_make(&ca->axis[p], &al);
        for (uint32_t t = todo; t != 0; t &= t - 1u)
        {
            uint32_t qi = (uint32_t)__builtin_ctz(t);
            uint32_t apart = axis_apart_avx2(&al, &lj[qi]) ? 1u : 0u;
            todo &= ~(apart << qi);
            w->axis_rejected += apart;
        }
        if (todo == 0)
        {
            continue;
        }
        tri_lanes li;
        tri_lanes_make(tp, &li);
        frame_lanes fl;
        const frame_lanes* f = NULL; // the inside test only when J's leaf fits inside p (tri_reach2)
        if (j_size2 < ca->reach2[p])
        {
            if ((ca->framed & (1u << p)) == 0)
            {
                edge_frame_init(tp, &ca->frame[p]);
                ca->framed |= 1u << p;
            }
            frame_lanes_make(&ca->frame[p], &fl);
            f = &fl;
        }
        for (; todo != 0; todo &= todo - 1u)
        {
            uint32_t qi = (uint32_t)__builtin_ctz(todo);
            if (!pair_test_avx2(cx, w, ca, p, &li, f, fa + p, &js, &tj[qi], qi, &lj[qi], fb + qs[qi]))
            {
                return 0;
            }
        }
    }
    return 1;
}
#endif

// The exact stage of a leaf pair, on the survivors of the culling (keep_a: I's triangles, keep_b: J's): I's vertices
// as stored, J's mapped into I's frame; J's survivors against the exact bounding box of I's, then every pair's two
// exact bounding boxes (a strict gap leaves no contact, perturbed or not: the boxes come from the very vertices the
// triangle tests use), then the exact triangle tests (counted in triangle_tests).
static inline void leaf_exact(const collide_ctx* cx, pair_worker* w, const mc_bvh_node* na, const mc_bvh_node* nb,
                              uint32_t keep_a, uint32_t keep_b)
{
    uint32_t fa = mc_bvh_leaf_first(na), fb = mc_bvh_leaf_first(nb);
    uint32_t kept_b = 0; // popcount(keep_b), counted in the loop (no POPCNT in the baseline instruction set: a call)
    // Each survivor with its plane, prepared once rather than once per triangle test (the same operations); I's in the
    // worker's cache of this leaf, once per query.
    leaf_a_cache* ca = leaf_a_get(cx, w, (uint32_t)(na - cx->ta->nodes));
    mc_tri_plane tj[MC_BVH_LEAF_MAX];
    exact_aabb jb[MC_BVH_LEAF_MAX]; // bounds of each J survivor
    uint32_t ps[MC_BVH_LEAF_MAX], qs[MC_BVH_LEAF_MAX];
    uint32_t np = 0, nq = 0;
    exact_aabb ub = exact_aabb_empty(); // bounds of all I survivors
    uint32_t fresh = keep_a & ~ca->prepared;
    ca->prepared |= fresh;
    while (fresh != 0)
    {
        uint32_t p = (uint32_t)__builtin_ctz(fresh);
        fresh &= fresh - 1u;
        const uint32_t* va = &cx->ta->tri_vertex[3u * (fa + p)];
        exact_aabb t = exact_aabb_empty();
        mc_vec3 v[3];
        for (int k = 0; k < 3; ++k)
        {
            v[k] = cx->pos_i[va[k]];
            exact_aabb_add(&t, v[k]);
        }
        mc_tri_plane_init(&ca->tri[p], v[0], v[1], v[2]);
        ca->bounds[p] = t;
    }
    while (keep_a != 0)
    {
        uint32_t p = (uint32_t)__builtin_ctz(keep_a);
        keep_a &= keep_a - 1u;
        exact_aabb_join(&ub, &ca->bounds[p]);
        ps[np++] = p;
    }
    while (keep_b != 0)
    {
        uint32_t q = (uint32_t)__builtin_ctz(keep_b);
        keep_b &= keep_b - 1u;
        kept_b += 1u;
        const uint32_t* vb = &cx->tb->tri_vertex[3u * (fb + q)];
        exact_aabb t = exact_aabb_empty();
        mc_vec3 v[3];
        for (int k = 0; k < 3; ++k)
        {
            v[k] = cx->serial ? j_vertex_serial(cx->scratch, vb[k]) : j_vertex(cx->scratch, vb[k]);
            exact_aabb_add(&t, v[k]);
        }
        // Kept only when the triangle's box meets the box of I's survivors.
        if (!exact_aabb_apart(&t, &ub))
        {
            mc_tri_plane_init(&tj[nq], v[0], v[1], v[2]);
            jb[nq] = t;
            qs[nq++] = q;
        }
    }
    w->culled_in += (uint64_t)np + kept_b;
#if MC_COLLIDE_AVX
    if (cx->lanes == 2)
    {
        // The edge axes only where I's leaf is much larger than J's (a big triangle against small ones: elsewhere they
        // rarely reject a pair the interval ordering would not reject as cheaply).
        if (node_size(na) > EDGE_AXIS_LEAF_RATIO * node_size(nb))
        {
            double j_size = (double)node_size(nb); // J's leaf box's largest half side
            leaf_pairs_axes_avx2(cx, w, ca, ps, np, tj, jb, qs, nq, fa, fb, j_size * j_size);
        }
        else
        {
            leaf_pairs_exact_avx2(cx, w, ca, ps, np, tj, jb, qs, nq, fa, fb);
        }
        return;
    }
#endif
    leaf_pairs_exact(cx, w, ca->tri, ca->bounds, ps, np, tj, jb, qs, nq, fa, fb);
}

// The box test and the leaf-against-leaf culling on lanes, once per instruction set (see bvh/collide_lanes.h).
#define MC_LL(name) name##_sse
#define MC_LL_TARGET
#define MC_LL_KIND 1
#include "bvh/collide_lanes.h"
#if MC_COLLIDE_AVX
#define MC_LL(name) name##_avx2
#define MC_LL_TARGET __attribute__((target("avx2")))
#define MC_LL_KIND 2
#include "bvh/collide_lanes.h"
#endif

// ---------------------------------------------------------------------------------------------------------------
// Batched expansion: the box tests of four node pairs at once, one per SIMD lane (structure of arrays)

/// Up to four expansions of one direction waiting for their box tests: the children of split[e] (in the split
/// tree) against other[e] (in the other tree).
typedef struct expansion_batch
{
    uint32_t split[4]; // node whose children are tested
    uint32_t other[4]; // the node they are tested against
    int count;         // pending expansions (0..4)
    // batch_flush when all its expansions have the same other node (the other tree is a single leaf, a part on a
    // 12-triangle plate, or one node against the top levels of a larger tree, a part inside a box: every flush mapped
    // that node four times again): its mapping into the split tree's frame, kept for the level's next flushes against
    // the same node (valid when mapped is 1; mapped_node is its index).
    int mapped;
    uint32_t mapped_node;
    __m128 map_bx[9];    // mapped axes, bx[3k + r] (float)
    __m128 map_ext[3];   // extents
    __m128d map_c[2][3]; // mapped centres: lanes 0-1 [0] and 2-3 [1] (double)
} expansion_batch;

// Four nodes as structure of arrays: f[3k + c] = axis[k][c], f[9 + c] = center[c], f[12 + k] = extent[k] (lane l =
// node l). A node is exactly four 16-byte rows, so this is four 4x4 transposes.
__attribute__((always_inline)) static inline void nodes_soa(const mc_bvh_node* n0, const mc_bvh_node* n1,
                                                            const mc_bvh_node* n2, const mc_bvh_node* n3, __m128 f[16])
{
    const float* p0 = &n0->axis[0][0];
    const float* p1 = &n1->axis[0][0];
    const float* p2 = &n2->axis[0][0];
    const float* p3 = &n3->axis[0][0];
    for (int g = 0; g < 4; ++g)
    {
        __m128 r0 = _mm_loadu_ps(p0 + 4 * g), r1 = _mm_loadu_ps(p1 + 4 * g);
        __m128 r2 = _mm_loadu_ps(p2 + 4 * g), r3 = _mm_loadu_ps(p3 + 4 * g);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        f[4 * g] = r0;
        f[4 * g + 1] = r1;
        f[4 * g + 2] = r2;
        f[4 * g + 3] = r3;
    }
}

/// Inputs of four box tests, one per lane: box a (nodes_soa layout: rows a[3i + c], center a[9..11], unused here,
/// extents a[12..14]) against box b (rows b[3k + c], extents eb), both in a's mesh frame, d = b's center - a's center.
typedef struct sat_lanes
{
    __m128 a[16];
    const __m128* b;  // b[9]: bs, or a batch's mapped single leaf (the same box in every lane)
    const __m128* eb; // eb[3]: ebs, or that leaf's extents
    __m128 d[3];
    __m128 bs[9]; // storage of b and eb when the lanes' boxes differ
    __m128 ebs[3];
} sat_lanes;

// The 15-axis test of box_overlap on four box pairs (collide_lanes.h, sat, SSE2 instance). @return the movemask of
// the lanes where an axis separates.
static inline int sat_soa(const collide_ctx* cx, const sat_lanes* in)
{
    return (int)sat_sse(cx, in->a, &in->a[12], in->b, in->eb, in->d);
}

#if MC_COLLIDE_AVX
#define MC_JOIN8(lo, hi) _mm256_insertf128_ps(_mm256_castps128_ps256(lo), (hi), 1)
// sat_soa on eight box pairs (AVX2 machines): lanes 0-3 are lo's, lanes 4-7 hi's, through the AVX2 instance of the same
// test, so the mask equals sat_soa(lo) | sat_soa(hi) << 4 bit for bit (test
// bvh::every_lane_width_gives_the_same_query).
__attribute__((target("avx2"))) static int sat_soa8(const collide_ctx* cx, const sat_lanes* lo, const sat_lanes* hi)
{
    __m256 a[9], b[9], ea[3], eb[3], d[3];
    for (int q = 0; q < 9; ++q)
    {
        a[q] = MC_JOIN8(lo->a[q], hi->a[q]);
        b[q] = MC_JOIN8(lo->b[q], hi->b[q]);
    }
    for (int k = 0; k < 3; ++k)
    {
        ea[k] = MC_JOIN8(lo->a[12 + k], hi->a[12 + k]);
        eb[k] = MC_JOIN8(lo->eb[k], hi->eb[k]);
        d[k] = MC_JOIN8(lo->d[k], hi->d[k]);
    }
    return (int)sat_avx2(cx, a, ea, b, eb, d);
}
#undef MC_JOIN8
#endif

// The separation masks of one or two groups of four box tests (bit 4h + l: lane l of group h).
static inline int sat_groups(const collide_ctx* cx, const sat_lanes* in, int groups)
{
#if MC_COLLIDE_AVX
    if (groups == 2 && cx->lanes >= 2)
    {
        return sat_soa8(cx, &in[0], &in[1]);
    }
#endif
    int sep = sat_soa(cx, &in[0]);
    if (groups == 2)
    {
        sep |= sat_soa(cx, &in[1]) << 4;
    }
    return sep;
}

// The other nodes oth[0..3] of a flush (in tree `to`) mapped into the split tree's frame (to_i: J's nodes into I's
// frame; else I's into J's): axes bx[3k + r] in float, extents, centers in double (c[0]: lanes 0-1, c[1]: lanes 2-3).
__attribute__((always_inline)) static inline void map_other(const collide_ctx* cx, const mc_bvh* to,
                                                            const uint32_t oth[4], int to_i, __m128 bx[9],
                                                            __m128 ext[3], __m128d cen[2][3])
{
    __m128 f[16];
    nodes_soa(&to->nodes[oth[0]], &to->nodes[oth[1]], &to->nodes[oth[2]], &to->nodes[oth[3]], f);
    const int dir = to_i ? 0 : 1;
    for (int k = 0; k < 3; ++k)
    {
        for (int r = 0; r < 3; ++r)
        {
            const __m128* m = cx->map_f[dir][r];
            bx[3 * k + r] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[0], f[3 * k]), _mm_mul_ps(m[1], f[3 * k + 1])),
                                       _mm_mul_ps(m[2], f[3 * k + 2]));
        }
        ext[k] = f[12 + k];
    }
    __m128d c_lo[3], c_hi[3];
    for (int c = 0; c < 3; ++c)
    {
        c_lo[c] = _mm_cvtps_pd(f[9 + c]);
        c_hi[c] = _mm_cvtps_pd(_mm_movehl_ps(f[9 + c], f[9 + c]));
        if (!to_i)
        {
            c_lo[c] = _mm_sub_pd(c_lo[c], cx->trans_d[c]);
            c_hi[c] = _mm_sub_pd(c_hi[c], cx->trans_d[c]);
        }
    }
    for (int r = 0; r < 3; ++r)
    {
        const __m128d* m = cx->map_d[dir][r];
        __m128d lo =
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(m[0], c_lo[0]), _mm_mul_pd(m[1], c_lo[1])), _mm_mul_pd(m[2], c_lo[2]));
        __m128d hi =
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(m[0], c_hi[0]), _mm_mul_pd(m[1], c_hi[1])), _mm_mul_pd(m[2], c_hi[2]));
        if (to_i)
        {
            lo = _mm_add_pd(lo, cx->trans_d[r]);
            hi = _mm_add_pd(hi, cx->trans_d[r]);
        }
        cen[0][r] = lo;
        cen[1][r] = hi;
    }
}

#if MC_COLLIDE_AVX
// _MM_TRANSPOSE4_PS on each 128-bit half of four 8-lane registers (moves only).
#define MC_TRANSPOSE4_HALVES(r0, r1, r2, r3)                                                                           \
    do                                                                                                                 \
    {                                                                                                                  \
        __m256 t0_ = _mm256_unpacklo_ps((r0), (r1)), t1_ = _mm256_unpackhi_ps((r0), (r1));                             \
        __m256 t2_ = _mm256_unpacklo_ps((r2), (r3)), t3_ = _mm256_unpackhi_ps((r2), (r3));                             \
        (r0) = _mm256_shuffle_ps(t0_, t2_, _MM_SHUFFLE(1, 0, 1, 0));                                                   \
        (r1) = _mm256_shuffle_ps(t0_, t2_, _MM_SHUFFLE(3, 2, 3, 2));                                                   \
        (r2) = _mm256_shuffle_ps(t1_, t3_, _MM_SHUFFLE(1, 0, 1, 0));                                                   \
        (r3) = _mm256_shuffle_ps(t1_, t3_, _MM_SHUFFLE(3, 2, 3, 2));                                                   \
    } while (0)

// The two groups of a flush of three or four expansions (batch_flush_dir) on 8-lane registers, built straight from the
// nodes and the mapped other boxes: lane 2e + c holds child c of expansion e, the lanes and values sat_soa8 would join
// from the two groups' sat_lanes (the same moves, conversions and subtractions per lane), so the same mask, without
// the round trip through memory. bx, ext, bc_lo, bc_hi: the other boxes as batch_flush_dir maps them (single: one box
// in every lane).
__attribute__((target("avx2"))) static int flush8_avx2(const collide_ctx* cx, const mc_bvh* ts, const uint32_t first[4],
                                                       const __m128 bx[9], const __m128 ext[3], const __m128d* bc_lo,
                                                       const __m128d* bc_hi, int single)
{
    __m256 a[16]; // nodes_soa layout on 8 lanes
    for (int g = 0; g < 4; ++g)
    {
        __m256 r[4];
        for (int l = 0; l < 4; ++l)
        {
            const float* lo = &ts->nodes[first[l >> 1] + (uint32_t)(l & 1)].axis[0][0];
            const float* hi = &ts->nodes[first[2 + (l >> 1)] + (uint32_t)(l & 1)].axis[0][0];
            r[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo + 4 * g)), _mm_loadu_ps(hi + 4 * g), 1);
        }
        MC_TRANSPOSE4_HALVES(r[0], r[1], r[2], r[3]);
        a[4 * g] = r[0];
        a[4 * g + 1] = r[1];
        a[4 * g + 2] = r[2];
        a[4 * g + 3] = r[3];
    }
    __m256 b[9], eb[3], d[3];
    for (int q = 0; q < 9; ++q)
    {
        __m128 lo = single ? bx[q] : _mm_unpacklo_ps(bx[q], bx[q]);
        __m128 hi = single ? bx[q] : _mm_unpackhi_ps(bx[q], bx[q]);
        b[q] = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
    }
    for (int k = 0; k < 3; ++k)
    {
        __m128 lo = single ? ext[k] : _mm_unpacklo_ps(ext[k], ext[k]);
        __m128 hi = single ? ext[k] : _mm_unpackhi_ps(ext[k], ext[k]);
        eb[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
    }
    for (int c = 0; c < 3; ++c)
    {
        __m128d l = bc_lo[c], h = bc_hi[c];
        // Other centres per lane, in double: (o0, o0, o1, o1) and (o2, o2, o3, o3) (one centre everywhere if single).
        __m256d ol = single ? _mm256_set_m128d(l, l) : _mm256_set_m128d(_mm_unpackhi_pd(l, l), _mm_unpacklo_pd(l, l));
        __m256d oh = single ? _mm256_set_m128d(h, h) : _mm256_set_m128d(_mm_unpackhi_pd(h, h), _mm_unpacklo_pd(h, h));
        __m256d cl = _mm256_cvtps_pd(_mm256_castps256_ps128(a[9 + c]));
        __m256d ch = _mm256_cvtps_pd(_mm256_extractf128_ps(a[9 + c], 1));
        d[c] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(_mm256_sub_pd(ol, cl))),
                                    _mm256_cvtpd_ps(_mm256_sub_pd(oh, ch)), 1);
    }
    return (int)sat_avx2(cx, a, &a[12], b, eb, d);
}

// The two expansions of a full batch_flush_both on 8-lane registers: lanes 4e..4e + 3 hold expansion e's pairs (a.0,
// b.0), (a.0, b.1), (a.1, b.0), (a.1, b.1), with the values batch_flush_both's two sat_lanes give them (same mask).
// ia[e]: the first child of expansion e's I node; f: J's four children (nodes_soa), bx their mapped axes, bc their
// mapped centres (bc[e]: expansion e's two).
__attribute__((target("avx2"))) static int flush_both8_avx2(const collide_ctx* cx, const mc_bvh_node* const ia[2],
                                                            const __m128 bx[9], const __m128 f[16], __m128d bc[2][3])
{
    __m256 a[16];
    for (int g = 0; g < 4; ++g)
    {
        __m256 r[4];
        for (int l = 0; l < 4; ++l)
        {
            const float* lo = &ia[0][l >> 1].axis[0][0];
            const float* hi = &ia[1][l >> 1].axis[0][0];
            r[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo + 4 * g)), _mm_loadu_ps(hi + 4 * g), 1);
        }
        MC_TRANSPOSE4_HALVES(r[0], r[1], r[2], r[3]);
        a[4 * g] = r[0];
        a[4 * g + 1] = r[1];
        a[4 * g + 2] = r[2];
        a[4 * g + 3] = r[3];
    }
    __m256 b[9], eb[3], d[3];
    for (int q = 0; q < 9; ++q)
    {
        b[q] =
            _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_movelh_ps(bx[q], bx[q])), _mm_movehl_ps(bx[q], bx[q]), 1);
    }
    for (int k = 0; k < 3; ++k)
    {
        const __m128 e = f[12 + k];
        eb[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_movelh_ps(e, e)), _mm_movehl_ps(e, e), 1);
    }
    for (int c = 0; c < 3; ++c)
    {
        __m256d ol = _mm256_set_m128d(bc[0][c], bc[0][c]), oh = _mm256_set_m128d(bc[1][c], bc[1][c]);
        __m256d cl = _mm256_cvtps_pd(_mm256_castps256_ps128(a[9 + c]));
        __m256d ch = _mm256_cvtps_pd(_mm256_extractf128_ps(a[9 + c], 1));
        d[c] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(_mm256_sub_pd(ol, cl))),
                                    _mm256_cvtpd_ps(_mm256_sub_pd(oh, ch)), 1);
    }
    return (int)sat_avx2(cx, a, &a[12], b, eb, d);
}
#undef MC_TRANSPOSE4_HALVES
#endif

// Test the pending expansions of one direction (to_i: the split nodes are I's and the other nodes, J's, are mapped
// into I's frame; else the reverse) and append the overlapping child pairs to `out` (room for 2 per expansion is
// reserved by the caller). The other nodes are mapped four at a time (axes in float, as lane_box_map; centers in
// double), then each group of two expansions (four children) is one sat_soa call.
__attribute__((always_inline)) static inline void batch_flush_dir(const collide_ctx* cx, expansion_batch* eb, int to_i,
                                                                  pair_vec* out, uint64_t* box_tests)
{
    int n = eb->count;
    if (n == 0)
    {
        return;
    }
    eb->count = 0;
    const mc_bvh* ts = to_i ? cx->ta : cx->tb;
    const mc_bvh* to = to_i ? cx->tb : cx->ta;
    // Lanes past n repeat the last expansion (tested, never appended); first[l]: the first child of split node l.
    uint32_t oth[4], first[4];
    for (int l = 0; l < 4; ++l)
    {
        int e = l < n ? l : n - 1;
        oth[l] = eb->other[e];
        first[l] = ts->nodes[eb->split[e]].data;
    }
    *box_tests += 2u * (uint32_t)n;
    __m128 bx_own[9], ext_own[3];
    __m128d c_own[2][3];
    const __m128* bx = bx_own;
    const __m128* ext = ext_own;
    const __m128d* bc_lo = c_own[0];
    const __m128d* bc_hi = c_own[1];
    const int single = oth[0] == oth[1] && oth[0] == oth[2] && oth[0] == oth[3];
    if (single)
    {
        // All four other nodes are one node: mapped once for the flushes of the level against it, every lane the same
        // box, so its mapped axes and extents are the test's b and eb as they stand (the unpacks below would give the
        // same bits).
        if (!eb->mapped || eb->mapped_node != oth[0])
        {
            map_other(cx, to, oth, to_i, eb->map_bx, eb->map_ext, eb->map_c);
            eb->mapped = 1;
            eb->mapped_node = oth[0];
        }
        bx = eb->map_bx;
        ext = eb->map_ext;
        bc_lo = eb->map_c[0];
        bc_hi = eb->map_c[1];
    }
    else
    {
        map_other(cx, to, oth, to_i, bx_own, ext_own, c_own);
    }
    int groups = (n + 1) / 2;
    int sep;
#if MC_COLLIDE_AVX
    if (groups == 2 && cx->lanes >= 2)
    {
        sep = flush8_avx2(cx, ts, first, bx, ext, bc_lo, bc_hi, single);
        goto append;
    }
#endif
    sat_lanes in[2];
    for (int h = 0; h < groups; ++h)
    {
        // Lanes: (first child, second child) of expansion 2h, then of expansion 2h + 1.
        const mc_bvh_node* ch0 = &ts->nodes[first[2 * h]];
        const mc_bvh_node* ch1 = &ts->nodes[first[2 * h + 1]];
        __m128* g = in[h].a;
        nodes_soa(ch0, ch0 + 1, ch1, ch1 + 1, g);
        if (single)
        {
            in[h].b = bx;
            in[h].eb = ext;
        }
        else
        {
            for (int q = 0; q < 9; ++q)
            {
                in[h].bs[q] = h == 0 ? _mm_unpacklo_ps(bx[q], bx[q]) : _mm_unpackhi_ps(bx[q], bx[q]);
            }
            for (int k = 0; k < 3; ++k)
            {
                const __m128 e = ext[k];
                in[h].ebs[k] = h == 0 ? _mm_unpacklo_ps(e, e) : _mm_unpackhi_ps(e, e);
            }
            in[h].b = in[h].bs;
            in[h].eb = in[h].ebs;
        }
        for (int c = 0; c < 3; ++c)
        {
            __m128d bcc = h == 0 ? bc_lo[c] : bc_hi[c];
            // A single leaf's centre is in both lanes of bcc already.
            __m128d b01 = single ? bcc : _mm_unpacklo_pd(bcc, bcc);
            __m128d b23 = single ? bcc : _mm_unpackhi_pd(bcc, bcc);
            __m128d d01 = _mm_sub_pd(b01, _mm_cvtps_pd(g[9 + c]));
            __m128d d23 = _mm_sub_pd(b23, _mm_cvtps_pd(_mm_movehl_ps(g[9 + c], g[9 + c])));
            in[h].d[c] = _mm_movelh_ps(_mm_cvtpd_ps(d01), _mm_cvtpd_ps(d23));
        }
    }
    sep = sat_groups(cx, in, groups);
#if MC_COLLIDE_AVX
append:;
#endif
    // Branch-free append (the outcome of a box test is unpredictable): every candidate is written, the count advances
    // over the overlapping ones only (room for 2 per expansion is reserved). Lane 2e + c: child c of expansion e.
    node_pair* dst = out->data;
    uint32_t count = out->count;
    for (int e = 0; e < n; ++e)
    {
        for (uint32_t c = 0; c < 2u; ++c)
        {
            uint32_t child = first[e] + c;
            dst[count].a = to_i ? child : oth[e];
            dst[count].b = to_i ? oth[e] : child;
            count += (uint32_t)(~sep >> (2 * e + (int)c)) & 1u;
        }
    }
    out->count = count;
}

// batch_flush_dir once per direction (a constant to_i: no selection per lane of the append).
MC_HOT_CLONES static void batch_flush_to_i(const collide_ctx* cx, expansion_batch* eb, pair_vec* out,
                                           uint64_t* box_tests)
{
    batch_flush_dir(cx, eb, 1, out, box_tests);
}

MC_HOT_CLONES static void batch_flush_to_j(const collide_ctx* cx, expansion_batch* eb, pair_vec* out,
                                           uint64_t* box_tests)
{
    batch_flush_dir(cx, eb, 0, out, box_tests);
}

static inline void batch_flush(const collide_ctx* cx, expansion_batch* eb, int to_i, pair_vec* out, uint64_t* box_tests)
{
    if (to_i)
    {
        batch_flush_to_i(cx, eb, out, box_tests);
    }
    else
    {
        batch_flush_to_j(cx, eb, out, box_tests);
    }
}

// Test the pending simultaneous expansions (both nodes internal, of similar size: split[e] is I's node, other[e] J's
// node): the four pairs of their children, one sat_soa call per expansion, J's children mapped into I's frame two
// expansions at a time.
MC_HOT_CLONES static void batch_flush_both(const collide_ctx* cx, expansion_batch* eb, pair_vec* out,
                                           uint64_t* box_tests)
{
    int n = eb->count;
    if (n == 0)
    {
        return;
    }
    eb->count = 0;
    const mc_bvh* ta = cx->ta;
    const mc_bvh* tb = cx->tb;
    uint32_t a[2], b[2];
    for (int e = 0; e < 2; ++e)
    {
        a[e] = eb->split[e < n ? e : 0];
        b[e] = eb->other[e < n ? e : 0];
    }
    *box_tests += 4u * (uint32_t)n;
    // J's children (b0.0, b0.1, b1.0, b1.1) mapped into I's frame.
    const mc_bvh_node* jb0 = &tb->nodes[tb->nodes[b[0]].data];
    const mc_bvh_node* jb1 = &tb->nodes[tb->nodes[b[1]].data];
    __m128 f[16];
    nodes_soa(jb0, jb0 + 1, jb1, jb1 + 1, f);
    __m128 bx[9];
    for (int k = 0; k < 3; ++k)
    {
        for (int r = 0; r < 3; ++r)
        {
            const __m128* m = cx->map_f[0][r];
            bx[3 * k + r] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[0], f[3 * k]), _mm_mul_ps(m[1], f[3 * k + 1])),
                                       _mm_mul_ps(m[2], f[3 * k + 2]));
        }
    }
    __m128d c_lo[3], c_hi[3], bc[2][3];
    for (int c = 0; c < 3; ++c)
    {
        c_lo[c] = _mm_cvtps_pd(f[9 + c]);
        c_hi[c] = _mm_cvtps_pd(_mm_movehl_ps(f[9 + c], f[9 + c]));
    }
    for (int r = 0; r < 3; ++r)
    {
        const __m128d* m = cx->map_d[0][r];
        bc[0][r] = _mm_add_pd(
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(m[0], c_lo[0]), _mm_mul_pd(m[1], c_lo[1])), _mm_mul_pd(m[2], c_lo[2])),
            cx->trans_d[r]);
        bc[1][r] = _mm_add_pd(
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(m[0], c_hi[0]), _mm_mul_pd(m[1], c_hi[1])), _mm_mul_pd(m[2], c_hi[2])),
            cx->trans_d[r]);
    }
    int sep;
#if MC_COLLIDE_AVX
    if (n == 2 && cx->lanes >= 2)
    {
        const mc_bvh_node* ia[2] = {&ta->nodes[ta->nodes[a[0]].data], &ta->nodes[ta->nodes[a[1]].data]};
        sep = flush_both8_avx2(cx, ia, bx, f, bc);
        goto append;
    }
#endif
    sat_lanes in[2];
    for (int e = 0; e < n; ++e)
    {
        // Lanes: (a.0, b.0), (a.0, b.1), (a.1, b.0), (a.1, b.1).
        const mc_bvh_node* ia = &ta->nodes[ta->nodes[a[e]].data];
        __m128* g = in[e].a;
        nodes_soa(ia, ia, ia + 1, ia + 1, g);
        for (int q = 0; q < 9; ++q)
        {
            in[e].bs[q] = e == 0 ? _mm_movelh_ps(bx[q], bx[q]) : _mm_movehl_ps(bx[q], bx[q]);
        }
        for (int k = 0; k < 3; ++k)
        {
            in[e].ebs[k] = e == 0 ? _mm_movelh_ps(f[12 + k], f[12 + k]) : _mm_movehl_ps(f[12 + k], f[12 + k]);
        }
        in[e].b = in[e].bs;
        in[e].eb = in[e].ebs;
        for (int c = 0; c < 3; ++c)
        {
            __m128d d01 = _mm_sub_pd(bc[e][c], _mm_cvtps_pd(g[9 + c]));
            __m128d d23 = _mm_sub_pd(bc[e][c], _mm_cvtps_pd(_mm_movehl_ps(g[9 + c], g[9 + c])));
            in[e].d[c] = _mm_movelh_ps(_mm_cvtpd_ps(d01), _mm_cvtpd_ps(d23));
        }
    }
    sep = sat_groups(cx, in, n);
#if MC_COLLIDE_AVX
append:;
#endif
    for (int e = 0; e < n; ++e)
    {
        uint32_t ca = ta->nodes[a[e]].data, cb = tb->nodes[b[e]].data;
        for (int l = 0; l < 4; ++l) // branch-free append, as in batch_flush
        {
            out->data[out->count].a = ca + (uint32_t)(l >> 1);
            out->data[out->count].b = cb + (uint32_t)(l & 1);
            out->count += (uint32_t)(~sep >> (4 * e + l)) & 1u;
        }
    }
}
#else
// Conservative test of a triangle against a box given by axes (rows), center and half extents, all in I's frame:
// @return 1 when one of the box's face axes separates them by more than the rounding slack (then no triangle inside
// the box can meet it, whatever the exact predicates would say about degenerate contacts).
static inline int tri_outside_box(const collide_ctx* cx, double ax[3][3], const double c[3], const double e[3],
                                  const mc_vec3 v[3])
{
    double d[3][3];
    double mag = 0.0;
    for (int i = 0; i < 3; ++i)
    {
        d[i][0] = v[i].x - c[0];
        d[i][1] = v[i].y - c[1];
        d[i][2] = v[i].z - c[2];
        double m = fabs(d[i][0]) + fabs(d[i][1]) + fabs(d[i][2]);
        mag = m > mag ? m : mag;
    }
    double slack = cx->rel_slack * (mag + e[0] + e[1] + e[2]) + cx->abs_slack;
    for (int k = 0; k < 3; ++k)
    {
        double lim = e[k] + slack;
        double p0 = ax[k][0] * d[0][0] + ax[k][1] * d[0][1] + ax[k][2] * d[0][2];
        double p1 = ax[k][0] * d[1][0] + ax[k][1] * d[1][1] + ax[k][2] * d[1][2];
        double p2 = ax[k][0] * d[2][0] + ax[k][1] * d[2][1] + ax[k][2] * d[2][2];
        if ((p0 > lim && p1 > lim && p2 > lim) || (p0 < -lim && p1 < -lim && p2 < -lim))
        {
            return 1;
        }
    }
    return 0;
}

// Leaf against leaf without SSE2: J's triangles (mapped) against A's box, I's against B's box, then the exact tests.
static void leaf_pairs(const collide_ctx* cx, pair_worker* w, const mc_bvh_node* na, const mc_bvh_node* nb)
{
    uint32_t fa = mc_bvh_leaf_first(na), ca = mc_bvh_leaf_count(na);
    uint32_t fb = mc_bvh_leaf_first(nb), cb = mc_bvh_leaf_count(nb);
    double aax[3][3], ac[3], ae[3];
    for (int k = 0; k < 3; ++k)
    {
        aax[k][0] = na->axis[k][0];
        aax[k][1] = na->axis[k][1];
        aax[k][2] = na->axis[k][2];
        ac[k] = na->center[k];
        ae[k] = na->extent[k];
    }
    mapped_box jb;
    map_j_box(cx->scratch, nb, &jb);
    mc_vec3 tj[MC_BVH_LEAF_MAX][3];
    uint32_t qs[MC_BVH_LEAF_MAX];
    uint32_t nq = 0;
    for (uint32_t q = 0; q < cb; ++q)
    {
        const uint32_t* vb = &cx->tb->tri_vertex[3u * (fb + q)];
        for (int k = 0; k < 3; ++k)
        {
            tj[nq][k] = j_vertex(cx->scratch, vb[k]);
        }
        if (!tri_outside_box(cx, aax, ac, ae, tj[nq]))
        {
            qs[nq++] = q;
        }
    }
    if (nq == 0)
    {
        return;
    }
    for (uint32_t p = 0; p < ca; ++p)
    {
        const uint32_t* va = &cx->ta->tri_vertex[3u * (fa + p)];
        mc_vec3 ti[3] = {cx->pos_i[va[0]], cx->pos_i[va[1]], cx->pos_i[va[2]]};
        if (tri_outside_box(cx, jb.ax, jb.c, jb.e, ti))
        {
            continue;
        }
        for (uint32_t qi = 0; qi < nq; ++qi)
        {
            uint32_t q = qs[qi];
            w->triangle_tests += 1u;
            mc_crossing cr[2];
            int coplanar = 0;
            int n = mc_tri_tri_crossings_tie(ti, tj[qi], cr, &coplanar);
            if (coplanar)
            {
                mc_tri_plane pi, pj;
                mc_tri_plane_init(&pi, ti[0], ti[1], ti[2]);
                mc_tri_plane_init(&pj, tj[qi][0], tj[qi][1], tj[qi][2]);
                if (!push_coplanar(w, &pi, &pj, cx->ta->tri_order[fa + p], cx->tb->tri_order[fb + q]))
                {
                    return;
                }
            }
            if (n != 2)
            {
                continue;
            }
            if (!push_pair(w, cx->ta->tri_order[fa + p], cx->tb->tri_order[fb + q], cr))
            {
                return;
            }
        }
    }
}

// Expand an overlapping internal node pair: test the children of the larger box against the other box and append the
// overlapping pairs to `out`. @return 0 on allocation failure.
static int expand(const collide_ctx* cx, node_pair np, pair_vec* out, uint64_t* box_tests)
{
    const mc_bvh_node* na = &cx->ta->nodes[np.a];
    const mc_bvh_node* nb = &cx->tb->nodes[np.b];
    if (!pair_vec_reserve(out, out->count + 2u))
    {
        return 0;
    }
    int la = mc_bvh_is_leaf(na), lb = mc_bvh_is_leaf(nb);
    int split_a = !la && (lb || node_size(na) >= node_size(nb));
    // The other box is mapped into the split node's frame once and tested against both children there (when B is
    // split, A goes into J's frame: the test is symmetric in the two boxes, and its slack covers the rounding of
    // either mapping: see mc_collide).
    const mc_bvh* tree = split_a ? cx->ta : cx->tb;
    const mc_bvh_node* split = split_a ? na : nb;
    mapped_box other;
    if (split_a)
    {
        map_j_box(cx->scratch, nb, &other);
    }
    else
    {
        map_i_box(cx->scratch, na, &other);
    }
    // Second child pushed first: a stack then visits the first child first.
    for (int c = 1; c >= 0; --c)
    {
        uint32_t child = split->data + (uint32_t)c;
        const mc_bvh_node* nc = &tree->nodes[child];
        *box_tests += 1u;
        if (box_overlap(cx, nc, &other))
        {
            // The pair is expanded soon (depth-first): fetch the child's children now.
            if (!mc_bvh_is_leaf(nc))
            {
                __builtin_prefetch(&tree->nodes[nc->data]);
                __builtin_prefetch(&tree->nodes[nc->data + 1u]);
            }
            out->data[out->count].a = split_a ? child : np.a;
            out->data[out->count].b = split_a ? np.b : child;
            out->count++;
        }
    }
    return 1;
}
#endif

// Expand every internal node pair of `items`: test the children of the larger box against the other box and append
// the overlapping pairs to `out`. The leaf pairs are appended to `leaves` (NULL: skipped; else room for `count` more is
// reserved by the caller). @return 0 on allocation failure.
static int expand_level(const collide_ctx* cx, const node_pair* items, uint32_t count, pair_vec* out,
                        uint64_t* box_tests, pair_vec* leaves)
{
    if ((uint64_t)out->count + 4u * (uint64_t)count > UINT32_MAX || !pair_vec_reserve(out, out->count + 4u * count))
    {
        return 0;
    }
#if defined(__SSE2__)
    expansion_batch batch[3]; // [0]: I's node split, [1]: J's node split, [2]: both
    for (int d = 0; d < 3; ++d)
    {
        batch[d].count = 0;
        batch[d].mapped = 0;
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        node_pair np = items[k];
        const mc_bvh_node* na = &cx->ta->nodes[np.a];
        const mc_bvh_node* nb = &cx->tb->nodes[np.b];
        int la = mc_bvh_is_leaf(na), lb = mc_bvh_is_leaf(nb);
        if (la && lb)
        {
            if (leaves != NULL)
            {
                leaves->data[leaves->count++] = np;
            }
            continue;
        }
        float sa = node_size(na), sb = node_size(nb);
        if (!la && !lb && sa <= BOTH_RATIO * sb && sb <= BOTH_RATIO * sa && similar_volumes(na, nb))
        {
            expansion_batch* e2 = &batch[2];
            e2->split[e2->count] = np.a;
            e2->other[e2->count] = np.b;
            if (++e2->count == 2)
            {
                batch_flush_both(cx, e2, out, box_tests);
            }
            continue;
        }
        int split_a = !la && (lb || sa >= sb);
        expansion_batch* eb = &batch[split_a ? 0 : 1];
        eb->split[eb->count] = split_a ? np.a : np.b;
        eb->other[eb->count] = split_a ? np.b : np.a;
        if (++eb->count == 4)
        {
            batch_flush(cx, eb, split_a, out, box_tests);
        }
    }
    batch_flush(cx, &batch[0], 1, out, box_tests);
    batch_flush(cx, &batch[1], 0, out, box_tests);
    batch_flush_both(cx, &batch[2], out, box_tests);
    return 1;
#else
    for (uint32_t k = 0; k < count; ++k)
    {
        if (mc_bvh_is_leaf(&cx->ta->nodes[items[k].a]) && mc_bvh_is_leaf(&cx->tb->nodes[items[k].b]))
        {
            if (leaves != NULL)
            {
                leaves->data[leaves->count++] = items[k];
            }
            continue;
        }
        if (!expand(cx, items[k], out, box_tests))
        {
            return 0;
        }
    }
    return 1;
#endif
}

// The n leaf pairs at a in ascending order of their I node (stable: LSD counting sort, 8 of the node index's `bits`
// bits a pass, tmp as scratch of n pairs). @return the sorted array (a or tmp).
static node_pair* sort_leaf_pairs(node_pair* a, node_pair* tmp, uint32_t n, int bits)
{
    if (n <= 32u)
    {
        for (uint32_t i = 1; i < n; ++i) // insertion sort (stable)
        {
            node_pair x = a[i];
            uint32_t j = i;
            for (; j > 0 && a[j - 1u].a > x.a; --j)
            {
                a[j] = a[j - 1u];
            }
            a[j] = x;
        }
        return a;
    }
    for (int shift = 0; shift < bits; shift += 8)
    {
        uint32_t count[256];
        memset(count, 0, sizeof count);
        for (uint32_t k = 0; k < n; ++k)
        {
            count[(a[k].a >> shift) & 255u] += 1u;
        }
        if (count[(a[0].a >> shift) & 255u] == n)
        {
            continue;
        }
        uint32_t sum = 0;
        for (int d = 0; d < 256; ++d)
        {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t k = 0; k < n; ++k)
        {
            tmp[count[(a[k].a >> shift) & 255u]++] = a[k];
        }
        node_pair* t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

// Level-synchronous traversal of frontier items: a level's internal pairs are expanded four box tests at a time
// (expand_level); the set of tested pairs is the same as depth first. Its leaf pairs are collected and tested at the
// end, grouped by I's leaf: each I leaf's prepared data (the worker's leaf_a_cache: its box in J's frame, its
// triangles' planes, bounds and edge axes) is then made once per query instead of once per run of its pairs in the
// order met (motor_shifted: 5765 of 8068 leaf pairs remade it). Where and in which order a leaf pair is tested changes
// no value: the pairs are sorted by (i, j) at the end and the counters are sums. No software prefetch: with the batched
// tests the out-of-order core overlaps the misses by itself (an explicit two-stage prefetch of each level was measured
// as no faster at 1M triangles and slower on the 7k-86k real meshes).
static void traverse(const collide_ctx* cx, pair_worker* w, const node_pair* start, uint32_t count)
{
    pair_vec* cur = &w->stack;
    pair_vec* nxt = &w->level;
    pair_vec* leaves = &w->leaves;
    cur->count = 0;
    leaves->count = 0;
    if (!pair_vec_reserve(cur, count > 64u ? count : 64u))
    {
        w->failed = 1;
        return;
    }
    memcpy(cur->data, start, (size_t)count * sizeof *start);
    cur->count = count;
    while (cur->count > 0 && !w->failed)
    {
        nxt->count = 0;
        if (!pair_vec_reserve(leaves, leaves->count + cur->count))
        {
            w->failed = 1;
            return;
        }
        if (!expand_level(cx, cur->data, cur->count, nxt, &w->box_tests, leaves))
        {
            w->failed = 1;
        }
        pair_vec* t = cur;
        cur = nxt;
        nxt = t;
    }
    uint32_t n = leaves->count;
    if (w->failed || n == 0)
    {
        return;
    }
    // cur is free now: the sort's scratch.
    if (!pair_vec_reserve(cur, n))
    {
        w->failed = 1;
        return;
    }
    int bits = cx->ta->node_count > 1u ? 32 - __builtin_clz(cx->ta->node_count - 1u) : 0;
    const node_pair* lp = bits > 0 ? sort_leaf_pairs(leaves->data, cur->data, n, bits) : leaves->data;
    for (uint32_t k = 0; k < n && !w->failed; ++k)
    {
        const mc_bvh_node* na = &cx->ta->nodes[lp[k].a];
        const mc_bvh_node* nb = &cx->tb->nodes[lp[k].b];
#if defined(__SSE2__)
        cx->leaf_pairs(cx, w, na, nb);
#else
        leaf_pairs(cx, w, na, nb);
#endif
    }
}

// One chunk of frontier items for mc_parallel_for_dynamic: traversed into the running worker's own buffers.
typedef struct traverse_task_ctx
{
    const collide_ctx* cx;
    pair_worker* workers;
    const node_pair* items;
} traverse_task_ctx;

static void traverse_task(uint32_t begin, uint32_t end, int worker_index, void* ctx)
{
    const traverse_task_ctx* tc = ctx;
    traverse(tc->cx, &tc->workers[worker_index], tc->items + begin, end - begin);
}

// ---------------------------------------------------------------------------------------------------------------
// Sorting (unique 64-bit keys: deterministic, no allocation beyond the scratch). Small sets: bottom-up merge sort;
// from RADIX_MIN keys on: LSD radix sort, 8 bits per pass, which has no data-dependent branch (the merge's compares
// mispredict about every other time: 20-30 us of a 2-thread 1M query's 280 us went to sorting its 2014 pairs).

static void sort_keys(sort_key* a, sort_key* tmp, uint32_t n, sort_key** result)
{
    sort_key* src = a;
    sort_key* dst = tmp;
    // Insertion sort runs of 16 first.
    const uint32_t run = 16u;
    for (uint64_t s0 = 0; s0 < n; s0 += run)
    {
        uint32_t s = (uint32_t)s0;
        uint32_t e = (uint32_t)(s0 + run < n ? s0 + run : n);
        for (uint32_t i = s + 1u; i < e; ++i)
        {
            sort_key x = src[i];
            uint32_t j = i;
            while (j > s && src[j - 1u].key > x.key)
            {
                src[j] = src[j - 1u];
                --j;
            }
            src[j] = x;
        }
    }
    // Widths and run starts in 64 bits: no overflow for any n < 2^32.
    for (uint64_t width = run; width < n; width *= 2u)
    {
        for (uint64_t s0 = 0; s0 < n; s0 += 2u * width)
        {
            uint32_t s = (uint32_t)s0;
            uint32_t m = (uint32_t)(s0 + width < n ? s0 + width : n);
            uint32_t e = (uint32_t)(s0 + 2u * width < n ? s0 + 2u * width : n);
            uint32_t i = s, j = m, k = s;
            while (i < m && j < e)
            {
                dst[k++] = src[j].key < src[i].key ? src[j++] : src[i++];
            }
            while (i < m)
            {
                dst[k++] = src[i++];
            }
            while (j < e)
            {
                dst[k++] = src[j++];
            }
        }
        sort_key* t = src;
        src = dst;
        dst = t;
    }
    *result = src;
}

// Keys below 2^bits, sorted into ascending order (stable; with unique keys the order equals sort_keys's). A pass whose
// digit is the same in every key moves nothing and is skipped.
static void radix_sort_keys(sort_key* a, sort_key* tmp, uint32_t n, int bits, sort_key** result)
{
    // Every digit's histogram in one read of the keys (a digit's counts do not depend on the order).
    int digits = (bits + 7) / 8;
    uint32_t count[8][256];
    memset(count, 0, sizeof(count[0]) * (size_t)digits);
    for (uint32_t k = 0; k < n; ++k)
    {
        uint64_t key = a[k].key;
        for (int d = 0; d < digits; ++d)
        {
            count[d][(key >> (8 * d)) & 255u] += 1u;
        }
    }
    sort_key* src = a;
    sort_key* dst = tmp;
    for (int d = 0; d < digits; ++d)
    {
        int shift = 8 * d;
        uint32_t* c = count[d];
        if (c[(src[0].key >> shift) & 255u] == n)
        {
            continue;
        }
        uint32_t sum = 0;
        for (int v = 0; v < 256; ++v)
        {
            uint32_t m = c[v];
            c[v] = sum;
            sum += m;
        }
        for (uint32_t k = 0; k < n; ++k)
        {
            dst[c[(src[k].key >> shift) & 255u]++] = src[k];
        }
        sort_key* t = src;
        src = dst;
        dst = t;
    }
    *result = src;
}

// ---------------------------------------------------------------------------------------------------------------
// Entry point

int mc_collide_lanes_limit = 0;

int mc_collide_lanes_available(void)
{
#if MC_COLLIDE_AVX
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 2 : 1;
#elif defined(__SSE2__)
    return 1;
#else
    return 0;
#endif
}

// The query's pose (J in I's frame) into the scratch: rotation, translation and J's vertices for the lazy cache.
static void scratch_set_pose(struct mc_pair_scratch* s, const struct mc_mesh* mj, const mc_pose* j_in_i)
{
    mc_mat33 rm = mc_quat_to_mat33(mc_quat_normalize(j_in_i->q));
    memcpy(s->rot, rm.m, sizeof s->rot);
    s->trans[0] = j_in_i->p.x;
    s->trans[1] = j_in_i->p.y;
    s->trans[2] = j_in_i->p.z;
    s->j_pos = mj->positions;
    s->j_vertex_count = mj->vertex_count;
}

// The mapping in SIMD form (the plain traversal's box tests and leaf stage; ctx_init with lanes 1 leaves it to this,
// called by expand_frontier once it knows the traversal runs: a small-mesh descent that ends at J's root needs none).
static void ctx_init_maps(collide_ctx* cx)
{
#if defined(__SSE2__)
    const struct mc_pair_scratch* s = cx->scratch;
    for (int c = 0; c < 3; ++c)
    {
        cx->map_cols[0][c] = _mm_setr_ps((float)s->rot[0][c], (float)s->rot[1][c], (float)s->rot[2][c], 0.0f);
        cx->map_cols[1][c] = _mm_setr_ps((float)s->rot[c][0], (float)s->rot[c][1], (float)s->rot[c][2], 0.0f);
        for (int r = 0; r < 3; ++r)
        {
            cx->map_f[0][r][c] = _mm_set1_ps((float)s->rot[r][c]);
            cx->map_f[1][r][c] = _mm_set1_ps((float)s->rot[c][r]);
            cx->map_d[0][r][c] = _mm_set1_pd(s->rot[r][c]);
            cx->map_d[1][r][c] = _mm_set1_pd(s->rot[c][r]);
        }
        cx->trans_d[c] = _mm_set1_pd(s->trans[c]);
    }
#else
    (void)cx;
#endif
}

// The query's context: both trees, the slacks of the conservative tests and the kernels.
// `lanes` 0: the scalar part only (trees, slacks), all a front query uses (mc_collide_front); 1: also the kernels of
// the plain traversal (and its SIMD mapping, from ctx_init_maps).
static void ctx_init(collide_ctx* cx, const struct mc_mesh* mi, const struct mc_mesh* mj, struct mc_pair_scratch* s,
                     int lanes)
{
    cx->ta = mi->bvh;
    cx->tb = mj->bvh;
    cx->pos_i = mi->positions;
    cx->scratch = s;
    cx->serial = 0;
    // Slack of the box test. Relative part: the float axes are orthonormal only to ~1.2e-7 per component, which
    // perturbs every projection and radius by at most ~3 * 1.2e-7 times (|D| + sum of extents); 4e-6 leaves a
    // factor of 10. Absolute part: the test's double arithmetic and the rounded J vertices used by the triangle
    // tests (fl(R v + t) differs from R v + t by < 4 * 2^-53 (3 |v| + |t|)) are below 1e-13 times the magnitudes.
    double tmag = fabs(s->trans[0]) + fabs(s->trans[1]) + fabs(s->trans[2]);
    cx->rel_slack = 4e-6;
    cx->box_rel_slack = 1e-5; // float arithmetic on top of the above: see bvh/collide_lanes.h, sat
    // MC_BVH_FLOAT_TINY: the float tests' absolute rounding in gradual underflow (meshes of tiny coordinates).
    cx->abs_slack = 1e-13 * (3.0 * mi->bvh->max_abs_coord + 3.0 * mj->bvh->max_abs_coord + tmag) + MC_BVH_FLOAT_TINY;
#if defined(__SSE2__)
    cx->lanes = mc_collide_lanes_available(); // set in every context: no path reads it unset
    cx->lanes = mc_collide_lanes_limit > 0 && mc_collide_lanes_limit < cx->lanes ? mc_collide_lanes_limit : cx->lanes;
#endif
    if (lanes == 0)
    {
        return;
    }
#if defined(__SSE2__)
    cx->slack_rel_f = (float)cx->box_rel_slack;
    cx->slack_abs_f = (float)cx->abs_slack;
    cx->leaf_pairs = leaf_pairs_sse;
#if MC_COLLIDE_AVX
    cx->leaf_pairs = cx->lanes == 2 ? leaf_pairs_avx2 : leaf_pairs_sse;
#endif
#endif
}

// Number of pairs of `items` with at least one internal node.
static uint32_t count_internal(const collide_ctx* cx, const pair_vec* items)
{
    uint32_t internal = 0;
    for (uint32_t k = 0; k < items->count; ++k)
    {
        if (!mc_bvh_is_leaf(&cx->ta->nodes[items->data[k].a]) || !mc_bvh_is_leaf(&cx->tb->nodes[items->data[k].b]))
        {
            ++internal;
        }
    }
    return internal;
}

// Serial frontier expansion, level by level, from the roots until the frontier holds enough items for the workers
// (or nothing is left to expand). *frontier receives the last level, *internal its count of internal pairs.
// A mesh I of at most SMALL_I_TRIANGLES triangles (a box, a plate, a coarse part) against any J: I's few large
// triangles make internal nodes (two adjacent faces of a box) whose boxes hold the whole part inside, so the node pair
// traversal tests every node of I against J's top before the leaves, one face each, separate (a 4630-triangle knob
// inside a 12-triangle box: 23 box tests, all of I's tree). Instead J's tree is descended once with the set of I's
// triangles that J's node box may meet: a triangle leaves the set when one of the box's face axes or the triangle's
// own normal separates them by more than twice the triangle-box test's slack (no J triangle inside the box can then
// touch it, whatever the exact predicates say about degenerate contacts). At a J leaf, every I leaf with a triangle
// still in the set is paired with it; the leaf stage then tests those leaf pairs as it tests the traversal's (it culls
// and decides each triangle pair itself, so any superset of the leaf pairs holding a meeting triangle pair gives the
// same pairs). Each J node visited counts as one box test; done before the frontier is cut, so the counters do not
// depend on the thread count.
#define SMALL_I_TRIANGLES 16u
#define SMALL_I_STACK 128u

/// I's triangles for the small-mesh descent, one lane each (structure of arrays: the AVX2 plane test below takes four
/// lanes at once; the lanes from the triangle count to the next multiple of 4 repeat the last triangle, never in the
/// set).
typedef struct small_tris
{
    double v[3][3][SMALL_I_TRIANGLES]; // v[i][c][p]: coordinate c of vertex i of triangle p
    double n[3][SMALL_I_TRIANGLES];    // normal (edge cross product, not normalised)
    double n1[SMALL_I_TRIANGLES];      // |n|_1 >= |n|: the slack along n scaled by it stays conservative without a sqrt
    double reach1[SMALL_I_TRIANGLES];  // max |v_i - v_0|_1
} small_tris;

// Triangle p's normal, |n|_1 and reach from its vertices.
static inline void small_tri_finish(small_tris* t, uint32_t p)
{
    double e1x = t->v[1][0][p] - t->v[0][0][p], e1y = t->v[1][1][p] - t->v[0][1][p];
    double e1z = t->v[1][2][p] - t->v[0][2][p];
    double e2x = t->v[2][0][p] - t->v[0][0][p], e2y = t->v[2][1][p] - t->v[0][1][p];
    double e2z = t->v[2][2][p] - t->v[0][2][p];
    double nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
    t->n[0][p] = nx;
    t->n[1][p] = ny;
    t->n[2][p] = nz;
    t->n1[p] = fabs(nx) + fabs(ny) + fabs(nz);
    t->reach1[p] = fmax(fabs(e1x) + fabs(e1y) + fabs(e1z), fabs(e2x) + fabs(e2y) + fabs(e2z));
}

#if MC_COLLIDE_AVX
// Lanes p..p+3 of the triangles from I's vertices (a lane past nt repeats triangle nt - 1, never in the set), with
// small_tri_finish's values: the same operations in the same order, four at a time. The vertices are gathered into
// registers and stored whole (the lanes stored one by one and loaded back as vectors stall: a load spanning several
// smaller stores is not forwarded from them).
__attribute__((target("avx2"))) static void small_tris_make4(const mc_vec3* pos, const uint32_t* tv, uint32_t nt,
                                                             uint32_t p, small_tris* t)
{
    const __m256d sign = _mm256_set1_pd(-0.0);
    const uint32_t* tri[4];
    for (uint32_t l = 0; l < 4u; ++l)
    {
        tri[l] = &tv[3u * (p + l < nt ? p + l : nt - 1u)];
    }
    __m256d v[3][3];
    for (int i = 0; i < 3; ++i)
    {
        const mc_vec3 *a = &pos[tri[0][i]], *b = &pos[tri[1][i]], *c = &pos[tri[2][i]], *d = &pos[tri[3][i]];
        v[i][0] = _mm256_set_pd(d->x, c->x, b->x, a->x);
        v[i][1] = _mm256_set_pd(d->y, c->y, b->y, a->y);
        v[i][2] = _mm256_set_pd(d->z, c->z, b->z, a->z);
        for (int k = 0; k < 3; ++k)
        {
            _mm256_store_pd(&t->v[i][k][p], v[i][k]);
        }
    }
    __m256d e1[3], e2[3];
    for (int c = 0; c < 3; ++c)
    {
        e1[c] = _mm256_sub_pd(v[1][c], v[0][c]);
        e2[c] = _mm256_sub_pd(v[2][c], v[0][c]);
    }
    __m256d n[3];
    for (int c = 0; c < 3; ++c)
    {
        int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
        n[c] = _mm256_sub_pd(_mm256_mul_pd(e1[c1], e2[c2]), _mm256_mul_pd(e1[c2], e2[c1]));
        _mm256_store_pd(&t->n[c][p], n[c]);
    }
    __m256d n1 = _mm256_add_pd(_mm256_add_pd(_mm256_andnot_pd(sign, n[0]), _mm256_andnot_pd(sign, n[1])),
                               _mm256_andnot_pd(sign, n[2]));
    _mm256_store_pd(&t->n1[p], n1);
    __m256d r1 = _mm256_add_pd(_mm256_add_pd(_mm256_andnot_pd(sign, e1[0]), _mm256_andnot_pd(sign, e1[1])),
                               _mm256_andnot_pd(sign, e1[2]));
    __m256d r2 = _mm256_add_pd(_mm256_add_pd(_mm256_andnot_pd(sign, e2[0]), _mm256_andnot_pd(sign, e2[1])),
                               _mm256_andnot_pd(sign, e2[2]));
    // fmax(r1, r2): r1 where r1 > r2 or r2 is NaN, else r2.
    __m256d take1 = _mm256_or_pd(_mm256_cmp_pd(r1, r2, _CMP_GT_OQ), _mm256_cmp_pd(r2, r2, _CMP_UNORD_Q));
    _mm256_store_pd(&t->reach1[p], _mm256_blendv_pd(r2, r1, take1));
}
#endif

// The triangles of lanes 0..nt-1 (vertex indices tv into pos); the lanes after them up to a multiple of 4 repeat the
// last one (never in the set).
static void small_tris_make(const collide_ctx* cx, const mc_vec3* pos, const uint32_t* tv, uint32_t nt, small_tris* t)
{
    uint32_t end = (nt + 3u) & ~3u;
#if MC_COLLIDE_AVX
    if (cx->lanes == 2)
    {
        for (uint32_t p = 0; p < end; p += 4u)
        {
            small_tris_make4(pos, tv, nt, p, t);
        }
        return;
    }
#else
    (void)cx;
#endif
    for (uint32_t p = 0; p < end; ++p)
    {
        const uint32_t* tri = &tv[3u * (p < nt ? p : nt - 1u)];
        for (int i = 0; i < 3; ++i)
        {
            const mc_vec3 v = pos[tri[i]];
            t->v[i][0][p] = v.x;
            t->v[i][1][p] = v.y;
            t->v[i][2][p] = v.z;
        }
        small_tri_finish(t, p);
    }
}

// The plane part of the test (see above): the box's centre at distance |n . (c - v0)| from the triangle's plane, its
// radius along n sum_k e_k |n . a_k|, all times |n| (a degenerate triangle, n = 0, is never apart by it); *slack
// receives the test's slack. @return 1 when the plane separates J's mapped box b from triangle p.
static inline int small_tri_plane_apart(const small_tris* t, uint32_t p, const mapped_box* b, double rel_slack,
                                        double abs_slack, double* slack_out)
{
    double d0x = t->v[0][0][p] - b->c[0], d0y = t->v[0][1][p] - b->c[1], d0z = t->v[0][2][p] - b->c[2];
    // Every corner's |v - c|_1 is at most v0's plus the triangle's reach from v0 (the slack of tri_outside_box, from
    // above).
    double mag = fabs(d0x) + fabs(d0y) + fabs(d0z) + t->reach1[p];
    double slack = 2.0 * (rel_slack * (mag + b->e[0] + b->e[1] + b->e[2]) + abs_slack);
    *slack_out = slack;
    double nx = t->n[0][p], ny = t->n[1][p], nz = t->n[2][p];
    double dist = fabs(nx * d0x + ny * d0y + nz * d0z);
    double r = 0.0;
    for (int k = 0; k < 3; ++k)
    {
        r += b->e[k] * fabs(nx * b->ax[k][0] + ny * b->ax[k][1] + nz * b->ax[k][2]);
    }
    return dist > r + slack * t->n1[p];
}

// The face part: @return 1 when all three corners of triangle p lie beyond one face of b by more than the slack.
static inline int small_tri_faces_apart(const small_tris* t, uint32_t p, const mapped_box* b, double slack)
{
    double d[3][3];
    for (int i = 0; i < 3; ++i)
    {
        d[i][0] = t->v[i][0][p] - b->c[0];
        d[i][1] = t->v[i][1][p] - b->c[1];
        d[i][2] = t->v[i][2][p] - b->c[2];
    }
    for (int k = 0; k < 3; ++k)
    {
        double lim = b->e[k] + slack;
        double q[3];
        for (int i = 0; i < 3; ++i)
        {
            q[i] = b->ax[k][0] * d[i][0] + b->ax[k][1] * d[i][1] + b->ax[k][2] * d[i][2];
        }
        if ((q[0] > lim && q[1] > lim && q[2] > lim) || (q[0] < -lim && q[1] < -lim && q[2] < -lim))
        {
            return 1;
        }
    }
    return 0;
}

#if MC_COLLIDE_AVX
// small_tri_plane_apart on the lanes of `live`, four at a time (the same operations in the same order: the same
// decisions). @return the lanes of live that the plane separates.
__attribute__((target("avx2"))) static uint32_t
small_tris_planes_apart4(const small_tris* t, uint32_t live, const mapped_box* b, double rel_slack, double abs_slack)
{
    const __m256d sign = _mm256_set1_pd(-0.0);
    const __m256d c0 = _mm256_set1_pd(b->c[0]), c1 = _mm256_set1_pd(b->c[1]), c2 = _mm256_set1_pd(b->c[2]);
    const __m256d e0 = _mm256_set1_pd(b->e[0]), e1 = _mm256_set1_pd(b->e[1]), e2 = _mm256_set1_pd(b->e[2]);
    const __m256d rel = _mm256_set1_pd(rel_slack), abs_s = _mm256_set1_pd(abs_slack), two = _mm256_set1_pd(2.0);
    uint32_t apart = 0;
    for (uint32_t g = 0; g < SMALL_I_TRIANGLES; g += 4u)
    {
        if (((live >> g) & 15u) == 0u)
        {
            continue;
        }
        __m256d d0x = _mm256_sub_pd(_mm256_load_pd(&t->v[0][0][g]), c0);
        __m256d d0y = _mm256_sub_pd(_mm256_load_pd(&t->v[0][1][g]), c1);
        __m256d d0z = _mm256_sub_pd(_mm256_load_pd(&t->v[0][2][g]), c2);
        __m256d mag =
            _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_andnot_pd(sign, d0x), _mm256_andnot_pd(sign, d0y)),
                                        _mm256_andnot_pd(sign, d0z)),
                          _mm256_load_pd(&t->reach1[g]));
        __m256d slack = _mm256_mul_pd(
            two,
            _mm256_add_pd(_mm256_mul_pd(rel, _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(mag, e0), e1), e2)), abs_s));
        __m256d nx = _mm256_load_pd(&t->n[0][g]), ny = _mm256_load_pd(&t->n[1][g]), nz = _mm256_load_pd(&t->n[2][g]);
        __m256d dist = _mm256_andnot_pd(
            sign, _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(nx, d0x), _mm256_mul_pd(ny, d0y)), _mm256_mul_pd(nz, d0z)));
        __m256d r = _mm256_setzero_pd();
        const __m256d ek[3] = {e0, e1, e2};
        for (int k = 0; k < 3; ++k)
        {
            __m256d dot = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(nx, _mm256_set1_pd(b->ax[k][0])),
                                                      _mm256_mul_pd(ny, _mm256_set1_pd(b->ax[k][1]))),
                                        _mm256_mul_pd(nz, _mm256_set1_pd(b->ax[k][2])));
            r = _mm256_add_pd(r, _mm256_mul_pd(ek[k], _mm256_andnot_pd(sign, dot)));
        }
        __m256d lim = _mm256_add_pd(r, _mm256_mul_pd(slack, _mm256_load_pd(&t->n1[g])));
        apart |= (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(dist, lim, _CMP_GT_OQ)) << g;
    }
    return apart & live;
}
#endif

// The lanes of live whose triangle J's mapped box b is separated from by more than the slack (see above): the plane
// first (a part in a box: every face's plane separates), then the box's face axes.
static uint32_t small_tris_apart(const collide_ctx* cx, const small_tris* t, uint32_t live, const mapped_box* b)
{
    uint32_t apart = 0;
    double slack;
#if MC_COLLIDE_AVX
    uint32_t two_off = live & (live - 1u); // live without its lowest bit
    if (cx->lanes == 2 && (two_off & (two_off - 1u)) != 0u)
    {
        // Four lanes a test pays from three live triangles on (J's top nodes; deeper, one or two are left).
        uint32_t planes = small_tris_planes_apart4(t, live, b, cx->rel_slack, cx->abs_slack);
        for (uint32_t m = live & ~planes; m != 0u; m &= m - 1u)
        {
            uint32_t p = (uint32_t)__builtin_ctz(m);
            small_tri_plane_apart(t, p, b, cx->rel_slack, cx->abs_slack, &slack); // the slack (same value)
            if (small_tri_faces_apart(t, p, b, slack))
            {
                apart |= 1u << p;
            }
        }
        return apart | planes;
    }
#endif
    for (uint32_t m = live; m != 0u; m &= m - 1u)
    {
        uint32_t p = (uint32_t)__builtin_ctz(m);
        if (small_tri_plane_apart(t, p, b, cx->rel_slack, cx->abs_slack, &slack) ||
            small_tri_faces_apart(t, p, b, slack))
        {
            apart |= 1u << p;
        }
    }
    return apart;
}

// The axis-aligned box of J's vertices (its tree's bbox_lo, bbox_hi, J's frame) mapped into I's frame: axes the
// rotation's columns, centre and half extents from the corners (their rounding, below 1 ulp of the coordinates, is far
// inside the slack of small_tri_apart).
static void map_j_aabb(const struct mc_pair_scratch* s, const mc_bvh* tb, mapped_box* b)
{
    double mid[3];
    for (int k = 0; k < 3; ++k)
    {
        mid[k] = 0.5 * (tb->bbox_lo[k] + tb->bbox_hi[k]);
        b->e[k] = 0.5 * (tb->bbox_hi[k] - tb->bbox_lo[k]);
        for (int r = 0; r < 3; ++r)
        {
            b->ax[k][r] = s->rot[r][k];
        }
    }
    for (int r = 0; r < 3; ++r)
    {
        b->c[r] = s->rot[r][0] * mid[0] + s->rot[r][1] * mid[1] + s->rot[r][2] * mid[2] + s->trans[r];
    }
}

// I's leaves (at most SMALL_I_TRIANGLES: every leaf holds a triangle) and the bits of their triangles (leaf order).
// @return their count.
static uint32_t small_i_leaves(const mc_bvh* ta, uint32_t leaf[SMALL_I_TRIANGLES], uint32_t mask[SMALL_I_TRIANGLES])
{
    uint32_t stack[SMALL_I_TRIANGLES + 1u]; // a binary tree of at most 16 leaves: at most 16 entries pending
    uint32_t top = 0, nl = 0;
    stack[top++] = 0u;
    while (top > 0)
    {
        uint32_t k = stack[--top];
        const mc_bvh_node* n = &ta->nodes[k];
        if (mc_bvh_is_leaf(n))
        {
            uint32_t first = mc_bvh_leaf_first(n), count = mc_bvh_leaf_count(n);
            leaf[nl] = k;
            mask[nl++] = (count >= 32u ? ~0u : (1u << count) - 1u) << first;
            continue;
        }
        MC_ASSERT(top + 2u <= SMALL_I_TRIANGLES + 1u);
        stack[top++] = n->data;
        stack[top++] = n->data + 1u;
    }
    return nl;
}

// An I node's box in double (I's frame: no mapping).
static inline void node_box(const mc_bvh_node* n, mapped_box* b)
{
    for (int k = 0; k < 3; ++k)
    {
        b->ax[k][0] = n->axis[k][0];
        b->ax[k][1] = n->axis[k][1];
        b->ax[k][2] = n->axis[k][2];
        b->c[k] = n->center[k];
        b->e[k] = n->extent[k];
    }
}

// The large mesh of a small-mesh descent: its tree, the small mesh's tree, whether the large one is J (its node boxes
// mapped into I's frame, map_j_box) or I (node_box), its root's box and the axis-aligned box of its vertices (a second
// box of the root: a triangle apart from either is apart from every triangle of the large mesh).
typedef struct small_side
{
    const mc_bvh* big;
    const mc_bvh* small;
    bool big_is_j;
    mapped_box root;
    mapped_box root_aabb;
} small_side;

// The descent shared by small_i_descend and small_j_descend: the large mesh's tree descended once with the set of the
// small mesh's triangles (tris, nt of them) that each node's box may meet (small_tris_apart, one box test a node); a
// leaf reached with triangles left gives a leaf pair with each small leaf holding one of them (small_i_leaves, listed
// when first needed: a part well inside never gets there). @return -1 on allocation failure, 1 when done.
static int small_descend(const collide_ctx* cx, const small_tris* tris, uint32_t nt, const small_side* sd,
                         pair_vec* out, uint64_t* box_tests)
{
    uint32_t leaf[SMALL_I_TRIANGLES], leaf_mask[SMALL_I_TRIANGLES], nl = 0;
    uint32_t stack[SMALL_I_STACK], mask_stack[SMALL_I_STACK];
    uint32_t top = 0;
    stack[top] = 0u;
    mask_stack[top++] = nt >= 32u ? ~0u : (1u << nt) - 1u;
    while (top > 0)
    {
        --top;
        uint32_t k = stack[top], live = mask_stack[top];
        const mc_bvh_node* n = &sd->big->nodes[k];
        mapped_box b;
        if (k == 0u)
        {
            b = sd->root;
        }
        else if (sd->big_is_j)
        {
            map_j_box(cx->scratch, n, &b);
        }
        else
        {
            node_box(n, &b);
        }
        *box_tests += 1u;
        live &= ~small_tris_apart(cx, tris, live, &b);
        if (k == 0u && live != 0u)
        {
            live &= ~small_tris_apart(cx, tris, live, &sd->root_aabb); // part of the root's box test
        }
        if (live == 0u)
        {
            continue;
        }
        if (!mc_bvh_is_leaf(n))
        {
            stack[top] = n->data;
            mask_stack[top++] = live;
            stack[top] = n->data + 1u;
            mask_stack[top++] = live;
            continue;
        }
        if (nl == 0u)
        {
            nl = small_i_leaves(sd->small, leaf, leaf_mask);
        }
        if (!pair_vec_reserve(out, out->count + nl))
        {
            return -1;
        }
        for (uint32_t l = 0; l < nl; ++l)
        {
            if ((leaf_mask[l] & live) != 0u)
            {
                out->data[out->count].a = sd->big_is_j ? leaf[l] : k;
                out->data[out->count].b = sd->big_is_j ? k : leaf[l];
                out->count++;
            }
        }
    }
    return 1;
}

// The descent for a small I (see SMALL_I_TRIANGLES) into out as leaf pairs, only for a J whose root box's centre
// (root_j, mapped) is inside I's root box: a part enclosed by the coarse mesh. A part on a plate is not, and there the
// node pair traversal was measured cheaper (callgrind, spot_on_plate 38 k against 59 k instructions a query: the
// plate's top face stays in the set down to J's leaves, each test scalar). The roots' boxes then overlap (J's centre
// inside I's box: the roots' separating axis test, whose offsets along I's axes are the ones computed here, and whose
// slack covers the rest of its rounding, cannot separate them), so the roots' test is not run; it counts as one box
// test all the same. @return 0 when it does not apply (I too large, J outside or too deep for the stack; out
// untouched, no box test counted), -1 on allocation failure, 1 when done.
static int small_i_descend(const collide_ctx* cx, const mapped_box* root_j, pair_vec* out, uint64_t* box_tests)
{
    const mc_bvh* ta = cx->ta;
    const mc_bvh* tb = cx->tb;
    uint32_t nt = ta->triangle_count;
    if (nt == 0u || nt > SMALL_I_TRIANGLES || tb->depth + 1u >= SMALL_I_STACK)
    {
        return 0;
    }
    const mc_bvh_node* ra = &ta->nodes[0];
    for (int k = 0; k < 3; ++k)
    {
        double d = (double)ra->axis[k][0] * (root_j->c[0] - (double)ra->center[0]) +
                   (double)ra->axis[k][1] * (root_j->c[1] - (double)ra->center[1]) +
                   (double)ra->axis[k][2] * (root_j->c[2] - (double)ra->center[2]);
        if (fabs(d) > (double)ra->extent[k])
        {
            return 0;
        }
    }
    *box_tests += 1u; // the roots' (see above)
    _Alignas(32) small_tris tris;
    small_tris_make(cx, cx->pos_i, ta->tri_vertex, nt, &tris);
    // J's root also through the axis-aligned box of J's vertices in its own frame (exact: the tree's bbox_lo,
    // bbox_hi), often tighter than the root's OBB along some direction (an OBB turned against a part's faces pokes
    // past them; a housing drawn about the part is aligned with them).
    small_side side;
    side.big = tb;
    side.small = ta;
    side.big_is_j = true;
    side.root = *root_j;
    map_j_aabb(cx->scratch, tb, &side.root_aabb);
    return small_descend(cx, &tris, nt, &side, out, box_tests);
}

// The mirror of small_i_descend for a small J (at most SMALL_I_TRIANGLES triangles) around a part I: I's tree is
// descended once with the set of J's triangles (mapped into I's frame as the leaf stage maps them, map_j) that I's node
// box may meet, by the same test; I's root also through the axis-aligned box of I's vertices. Only for an I whose root
// box's centre is inside J's root box (root_j, mapped): the roots' test cannot separate them then (its offset along
// J's axes is the one computed here, and its slack covers the rest of its rounding), so it is not run and counts as one
// box test. @return 0 when it does not apply (out untouched, no box test counted), -1 on allocation failure, 1 when
// done.
static int small_j_descend(const collide_ctx* cx, const mapped_box* root_j, pair_vec* out, uint64_t* box_tests)
{
    const mc_bvh* ta = cx->ta;
    const mc_bvh* tb = cx->tb;
    const struct mc_pair_scratch* s = cx->scratch;
    uint32_t nt = tb->triangle_count;
    if (nt == 0u || nt > SMALL_I_TRIANGLES || ta->depth + 1u >= SMALL_I_STACK)
    {
        return 0;
    }
    const mc_bvh_node* ra = &ta->nodes[0];
    double d[3];
    for (int c = 0; c < 3; ++c)
    {
        d[c] = root_j->c[c] - (double)ra->center[c];
    }
    for (int k = 0; k < 3; ++k)
    {
        double t = root_j->ax[k][0] * d[0] + root_j->ax[k][1] * d[1] + root_j->ax[k][2] * d[2];
        if (fabs(t) > root_j->e[k])
        {
            return 0;
        }
    }
    *box_tests += 1u; // the roots' (see above)
    // J's triangles, their vertices mapped (local indices 3 p + i).
    mc_vec3 mapped[3u * SMALL_I_TRIANGLES];
    uint32_t local[3u * SMALL_I_TRIANGLES];
    for (uint32_t v = 0; v < 3u * nt; ++v)
    {
        mapped[v] = map_j(s, s->j_pos[tb->tri_vertex[v]]);
        local[v] = v;
    }
    _Alignas(32) small_tris tris;
    small_tris_make(cx, mapped, local, nt, &tris);
    // I's root also through the axis-aligned box of I's vertices (exact, I's frame), as J's in small_i_descend.
    small_side side;
    memset(&side, 0, sizeof side);
    side.big = ta;
    side.small = tb;
    side.big_is_j = false;
    node_box(&ta->nodes[0], &side.root);
    for (int c = 0; c < 3; ++c)
    {
        side.root_aabb.ax[c][c] = 1.0;
        side.root_aabb.c[c] = 0.5 * (ta->bbox_lo[c] + ta->bbox_hi[c]);
        side.root_aabb.e[c] = 0.5 * (ta->bbox_hi[c] - ta->bbox_lo[c]);
    }
    return small_descend(cx, &tris, nt, &side, out, box_tests);
}

static mc_status expand_frontier(collide_ctx* cx, int workers, uint64_t* box_tests, pair_vec** frontier,
                                 uint32_t* internal)
{
    struct mc_pair_scratch* s = cx->scratch;
    pair_vec* cur = &s->frontier[0];
    pair_vec* next = &s->frontier[1];
    cur->count = 0;
    if (!pair_vec_reserve(cur, 1u))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    mapped_box root_j;
    map_j_box(s, &cx->tb->nodes[0], &root_j);
    int small = small_i_descend(cx, &root_j, cur, box_tests);
    small = small != 0 ? small : small_j_descend(cx, &root_j, cur, box_tests);
    if (small != 0)
    {
        if (small < 0)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        if (cur->count > 0u)
        {
            ctx_init_maps(cx); // the leaf stage's
        }
        *internal = 0; // leaf pairs only
        *frontier = cur;
        return MC_OK;
    }
    ctx_init_maps(cx);
    *box_tests += 1u;
    if (box_overlap(cx, &cx->ta->nodes[0], &root_j))
    {
        cur->data[cur->count].a = 0;
        cur->data[cur->count].b = 0;
        cur->count = 1;
    }
    for (;;)
    {
        *internal = count_internal(cx, cur);
        // One worker: no frontier to cut, the traversal starts at the roots.
        if (*internal == 0 || workers == 1 || cur->count >= FRONTIER_PER_WORKER * (uint32_t)workers)
        {
            break;
        }
        next->count = 0;
        for (uint32_t k = 0; k < cur->count; ++k)
        {
            node_pair np = cur->data[k];
            if (mc_bvh_is_leaf(&cx->ta->nodes[np.a]) && mc_bvh_is_leaf(&cx->tb->nodes[np.b]))
            {
                if (!pair_vec_reserve(next, next->count + 1u))
                {
                    return MC_ERR_OUT_OF_MEMORY;
                }
                next->data[next->count++] = np;
            }
        }
        if (!expand_level(cx, cur->data, cur->count, next, box_tests, NULL))
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        pair_vec* t = cur;
        cur = next;
        next = t;
    }
    *frontier = cur;
    return MC_OK;
}

// Traversal of the frontier items, in parallel through mc_parallel_for_dynamic when it pays (src/base/parallel.c holds
// the library's only OpenMP constructs, STYLE S15): a dynamic schedule balances items of very different cost; each
// item writes to its worker's buffer only, and the merged output is sorted by (i, j), so the result does not depend
// on the schedule or the thread count. @return the number of threads used.
static int traverse_frontier(collide_ctx* cx, const struct mc_mesh* mi, const struct mc_mesh* mj, int workers,
                             const pair_vec* frontier, uint32_t internal)
{
    int used = 1;
    int nitems = (int)frontier->count;
    // Threads only pay off with enough work left: internal node pairs in the frontier and meshes of some size
    // (below ~50k triangles together a query takes well under 0.2 ms, less than waking a team of threads can cost on
    // a loaded machine). The choice does not change the result.
    int go_parallel = workers > 1 && nitems > 1 && internal >= PARALLEL_MIN_INTERNAL &&
                      (uint64_t)mi->triangle_count + mj->triangle_count >= PARALLEL_MIN_TRIANGLES;
    cx->serial = !go_parallel;
    if (go_parallel)
    {
        // Items go in chunks of ITEMS_PER_CHUNK: each chunk's levels are tested together, four box pairs at a time
        // (expand_level), which wants wide levels.
        traverse_task_ctx tc = {cx, cx->scratch->workers, frontier->data};
        used = mc_parallel_for_dynamic(workers, traverse_task, (uint32_t)nitems, ITEMS_PER_CHUNK, &tc);
    }
    else if (nitems > 0)
    {
        // One worker: the whole frontier is one traversal, so every level is as wide as it gets.
        traverse(cx, &cx->scratch->workers[0], frontier->data, (uint32_t)nitems);
    }
    return used;
}

// Room for n sort keys. @return 0 on allocation failure.
static int reserve_keys(struct mc_pair_scratch* s, uint32_t n)
{
    if (n > s->key_capacity)
    {
        mc_free(s->keys);
        mc_free(s->keys_tmp);
        s->key_capacity = 0;
        s->keys = mc_alloc_array(n, sizeof *s->keys);
        s->keys_tmp = mc_alloc_array(n, sizeof *s->keys_tmp);
        if (s->keys == NULL || s->keys_tmp == NULL)
        {
            return 0;
        }
        s->key_capacity = n;
    }
    return 1;
}

// Room for n output pairs in the scratch. @return 0 on allocation failure.
static int reserve_output(struct mc_pair_scratch* s, uint32_t n)
{
    if (n > s->out_capacity)
    {
        mc_free(s->out);
        s->out_capacity = 0;
        s->out = mc_alloc_array(n, sizeof *s->out);
        if (s->out == NULL)
        {
            return 0;
        }
        s->out_capacity = n;
    }
    return 1;
}

// The n pairs of all workers in (i, j) order, as sort keys: the index of each is its global index in the workers'
// buffers (worker w's pair p: the pairs of workers 0..w-1 before it, then p). Room for n keys is reserved.
static const sort_key* sort_pair_keys(struct mc_pair_scratch* s, const struct mc_mesh* mi, const struct mc_mesh* mj,
                                      uint32_t n)
{
    // Key: i above j's bits (the (i, j) order).
    int j_bits = mj->triangle_count > 1u ? 32 - __builtin_clz(mj->triangle_count - 1u) : 1;
    int i_bits = mi->triangle_count > 1u ? 32 - __builtin_clz(mi->triangle_count - 1u) : 1;
    uint32_t base = 0;
    for (int w = 0; w < s->worker_capacity; ++w)
    {
        const pair_worker* pw = &s->workers[w];
        for (uint32_t p = 0; p < pw->pair_count; ++p)
        {
            s->keys[base + p].key = ((uint64_t)pw->pairs[p].i << j_bits) | pw->pairs[p].j;
            s->keys[base + p].index = base + p;
        }
        base += pw->pair_count;
    }
    sort_key* sorted = s->keys;
    if (n >= RADIX_MIN)
    {
        radix_sort_keys(s->keys, s->keys_tmp, n, i_bits + j_bits, &sorted);
    }
    else if (n > 1)
    {
        sort_keys(s->keys, s->keys_tmp, n, &sorted);
    }
    return sorted;
}

// The pair of global index g in the workers' buffers (see sort_pair_keys).
static inline const mc_triangle_pair* worker_pair(const struct mc_pair_scratch* s, uint32_t g)
{
    int w = 0;
    while (g >= s->workers[w].pair_count)
    {
        g -= s->workers[w].pair_count;
        ++w;
    }
    return &s->workers[w].pairs[g];
}

// The n pairs of all workers, gathered into s->out in (i, j) order; perm (when not NULL) gets each output pair's
// global index in the workers' buffers.
static void sort_pairs(struct mc_pair_scratch* s, const struct mc_mesh* mi, const struct mc_mesh* mj, uint32_t n,
                       uint32_t* perm)
{
    const sort_key* sorted = sort_pair_keys(s, mi, mj, n);
    for (uint32_t k = 0; k < n; ++k)
    {
        if (perm != NULL)
        {
            perm[k] = sorted[k].index;
        }
        s->out[k] = *worker_pair(s, sorted[k].index);
    }
}

/// Sift-down of a max-heap of n keys at node k (heap sort of the coplanar keys: no allocation).
static void heap_sift(uint64_t* a, uint32_t n, uint32_t k)
{
    uint64_t v = a[k];
    for (;;)
    {
        uint32_t c = 2u * k + 1u;
        if (c >= n)
        {
            break;
        }
        if (c + 1u < n && a[c + 1u] > a[c])
        {
            c++;
        }
        if (a[c] <= v)
        {
            break;
        }
        a[k] = a[c];
        k = c;
    }
    a[k] = v;
}

// The workers' coplanar pairs, merged into s->coplanar in increasing key order ((i, j) order), each once; their number
// in *count. Every worker gets room for them all (a repeated query allocates nothing). @return 0 on allocation
// failure.
static int merge_coplanar(struct mc_pair_scratch* s, int workers, uint32_t* count)
{
    uint64_t total = 0;
    for (int w = 0; w < s->worker_capacity; ++w)
    {
        total += s->workers[w].coplanar_count;
    }
    *count = 0;
    if (total == 0u)
    {
        return 1;
    }
    if (total > UINT32_MAX / 2u ||
        !mc_array_reserve((void**)&s->coplanar, &s->coplanar_capacity, total, sizeof *s->coplanar, 64))
    {
        return 0;
    }
    uint32_t n = 0;
    for (int w = 0; w < s->worker_capacity; ++w)
    {
        if (s->workers[w].coplanar_count > 0u) // a worker without any has no array (memcpy from NULL is undefined)
        {
            memcpy(s->coplanar + n, s->workers[w].coplanar, (size_t)s->workers[w].coplanar_count * sizeof *s->coplanar);
            n += s->workers[w].coplanar_count;
        }
    }
    for (int w = 0; w < workers; ++w)
    {
        pair_worker* pw = &s->workers[w];
        if (!mc_array_reserve((void**)&pw->coplanar, &pw->coplanar_capacity, total, sizeof *pw->coplanar, 64))
        {
            return 0;
        }
    }
    for (uint32_t k = n / 2u; k-- > 0u;)
    {
        heap_sift(s->coplanar, n, k);
    }
    for (uint32_t e = n; e-- > 1u;)
    {
        uint64_t t = s->coplanar[0];
        s->coplanar[0] = s->coplanar[e];
        s->coplanar[e] = t;
        heap_sift(s->coplanar, e, 0);
    }
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        if (m == 0u || s->coplanar[k] != s->coplanar[m - 1u])
        {
            s->coplanar[m++] = s->coplanar[k];
        }
    }
    *count = m;
    return 1;
}

// Warm-up: give every worker room for the whole result (n pairs) and the deepest stack seen, so that a repeated query
// allocates nothing whichever worker its items land on. @return 0 on allocation failure.
static int warm_workers(struct mc_pair_scratch* s, int workers, uint32_t n)
{
    uint32_t deepest = 0;
    for (int w = 0; w < workers; ++w)
    {
        deepest = s->workers[w].stack.capacity > deepest ? s->workers[w].stack.capacity : deepest;
        deepest = s->workers[w].level.capacity > deepest ? s->workers[w].level.capacity : deepest;
        deepest = s->workers[w].leaves.capacity > deepest ? s->workers[w].leaves.capacity : deepest;
    }
    for (int w = 0; w < workers; ++w)
    {
        pair_worker* pw = &s->workers[w];
        if (!pair_vec_reserve(&pw->stack, deepest) || !pair_vec_reserve(&pw->level, deepest) ||
            !pair_vec_reserve(&pw->leaves, deepest))
        {
            return 0;
        }
        if (pw->pair_capacity < n)
        {
            mc_triangle_pair* np = mc_realloc(pw->pairs, (size_t)n * sizeof *np);
            if (np == NULL)
            {
                return 0;
            }
            pw->pairs = np;
            pw->pair_capacity = n;
        }
    }
    return 1;
}

static int front_traverse(collide_ctx* cx, mc_pair_front** slot, const struct mc_mesh* mi, const struct mc_mesh* mj,
                          int* replayed, int* plain);
static void front_keep_certified(mc_pair_front* f, const mc_triangle_pair* pairs, uint32_t n);
static uint64_t front_certificate(const mc_pair_front* f);
static void front_sort_pairs(struct mc_pair_scratch* s, const struct mc_mesh* mi, const struct mc_mesh* mj, uint32_t n,
                             mc_pair_front* f);

mc_status mc_collide(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i, int worker_count,
                     struct mc_pair_scratch** scratch, mc_pair_result* result, mc_query_stats* stats)
{
    return mc_collide_front(mi, mj, j_in_i, worker_count, scratch, NULL, result, stats);
}

/// What collide_unsorted found: the pair count and the counters of mc_query_stats.
typedef struct unsorted_pairs
{
    uint32_t n;         // pairs in the workers' buffers
    int workers;        // workers the scratch was prepared for
    int used;           // threads used
    uint64_t box_tests; // box tests
    uint64_t tri_tests; // triangle tests
    bool front_used;    // the pairs came from the front (serial: worker 0's buffer only)
    bool replayed;      // the front's certified pairs were replayed: worker 0's buffer is sorted, no test ran
} unsorted_pairs;

// The query up to its pairs, unsorted in the workers' buffers (counted in *out). @return MC_OK, or the failure.
static mc_status collide_unsorted(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i,
                                  int worker_count, struct mc_pair_scratch** scratch, mc_pair_front** front,
                                  unsorted_pairs* out)
{
    if (mi == NULL || mj == NULL || j_in_i == NULL || scratch == NULL || mi->bvh == NULL || mj->bvh == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    int workers = mc_parallel_worker_count(worker_count);
    out->workers = workers;
    mc_status st = scratch_prepare(scratch, mj, workers);
    if (st != MC_OK)
    {
        return st;
    }
    struct mc_pair_scratch* s = *scratch;
    scratch_set_pose(s, mj, j_in_i);
    collide_ctx cx;
    // The front serves serial traversals only (a query small enough never goes parallel: see traverse_frontier).
    bool use_front =
        front != NULL && (workers == 1 || (uint64_t)mi->triangle_count + mj->triangle_count < PARALLEL_MIN_TRIANGLES);
    int plain = 0;
    ctx_init(&cx, mi, mj, s, use_front ? 0 : 1);
    for (int w = 0; w < s->worker_capacity; ++w)
    {
        s->workers[w].pair_count = 0;
        s->workers[w].coplanar_count = 0;
        s->workers[w].box_tests = 0;
        s->workers[w].triangle_tests = 0;
        s->workers[w].culled_in = 0;
        s->workers[w].axis_rejected = 0;
        s->workers[w].inside = 0;
        s->workers[w].failed = 0;
    }

    uint64_t box_tests = 0;
    int used = 1;
    int replayed = 0;
    s->near_measures = 0;
    if (use_front)
    {
        cx.serial = 1;
        if (!front_traverse(&cx, front, mi, mj, &replayed, &plain))
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        if (plain)
        {
            use_front = false;
            ctx_init(&cx, mi, mj, s, 1); // the front began to back off: the plain traversal's context (lanes)
        }
    }
    if (!use_front)
    {
        if (!plain)
        {
            mc_pair_front_reset(front != NULL ? *front : NULL);
        }
        pair_vec* frontier = NULL;
        uint32_t internal = 0;
        st = expand_frontier(&cx, workers, &box_tests, &frontier, &internal);
        if (st != MC_OK)
        {
            return st;
        }
        used = traverse_frontier(&cx, mi, mj, workers, frontier, internal);
    }

    // Merge the workers' counters.
    uint64_t total = 0, tri_tests = 0, culled = 0, rejected = 0, inside = 0;
    for (int w = 0; w < s->worker_capacity; ++w)
    {
        if (s->workers[w].failed)
        {
            return MC_ERR_OUT_OF_MEMORY;
        }
        total += s->workers[w].pair_count;
        box_tests += s->workers[w].box_tests;
        tri_tests += s->workers[w].triangle_tests;
        culled += s->workers[w].culled_in;
        rejected += s->workers[w].axis_rejected;
        inside += s->workers[w].inside;
    }
    if (total > UINT32_MAX / 2u)
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    out->n = (uint32_t)total;
    out->used = used;
    out->front_used = use_front;
    out->replayed = replayed != 0;
    out->box_tests = box_tests;
    out->tri_tests = tri_tests;
    s->culled_in = culled;
    s->axis_rejected = rejected;
    s->inside = inside;
    return MC_OK;
}

// The counters and time of a query into stats (NULL: ignored).
static void collide_stats(const unsorted_pairs* u, double t0, mc_query_stats* stats)
{
    if (stats != NULL)
    {
        stats->box_tests = u->box_tests;
        stats->triangle_tests = u->tri_tests;
        stats->triangle_pairs = u->n;
        stats->threads = u->used;
        stats->certified_reuse = u->replayed ? 1u : 0u;
        stats->seconds_pairs = mc_now_seconds() - t0;
    }
}

// collide_unsorted, then room for the sort keys of its pairs. @return MC_OK, or the failure.
static mc_status collide_keyed(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i,
                               int worker_count, struct mc_pair_scratch** scratch, mc_pair_front** front,
                               unsorted_pairs* u)
{
    if (mi != NULL && mj != NULL)
    {
        mc_mesh_use_begin(mi); // debug builds: a deformation of either mesh now is a caller's error (asserted)
        mc_mesh_use_begin(mj);
    }
    mc_status st = collide_unsorted(mi, mj, j_in_i, worker_count, scratch, front, u);
    if (mi != NULL && mj != NULL)
    {
        mc_mesh_use_end(mi);
        mc_mesh_use_end(mj);
    }
    if (st != MC_OK)
    {
        return st;
    }
    return reserve_keys(*scratch, u->n) ? MC_OK : MC_ERR_OUT_OF_MEMORY;
}

mc_status mc_collide_front(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i, int worker_count,
                           struct mc_pair_scratch** scratch, mc_pair_front** front, mc_pair_result* result,
                           mc_query_stats* stats)
{
    if (result == NULL)
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    if (front != NULL)
    {
        mc_pair_front_prefetch(*front);
    }
    double t0 = mc_now_seconds();
    unsorted_pairs u;
    mc_status st = collide_keyed(mi, mj, j_in_i, worker_count, scratch, front, &u);
    if (st != MC_OK)
    {
        return st;
    }
    struct mc_pair_scratch* s = *scratch;
    uint32_t n = u.n;
    if (!reserve_output(s, n))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    // Replayed pairs are in s->out already, in the sorted order of the query that recorded them (front_replay).
    if (!u.front_used)
    {
        sort_pairs(s, mi, mj, n, NULL);
    }
    else if (!u.replayed)
    {
        front_sort_pairs(s, mi, mj, n, *front);
        front_keep_certified(*front, s->out, n);
    }
    uint32_t nc = 0;
    if (!warm_workers(s, u.workers, n) || !merge_coplanar(s, u.workers, &nc))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    result->pairs = s->out;
    result->pair_count = n;
    result->coplanar = s->coplanar;
    result->coplanar_count = nc;
    result->certificate = u.front_used ? front_certificate(*front) : 0u;
    result->replayed = u.replayed;
    collide_stats(&u, t0, stats);
    return MC_OK;
}

mc_status mc_collide_into(const struct mc_mesh* mi, const struct mc_mesh* mj, const mc_pose* j_in_i, int worker_count,
                          struct mc_pair_scratch** scratch, const mc_pair_sink* sink, uint32_t* pair_count,
                          mc_query_stats* stats)
{
    if (sink == NULL || pair_count == NULL || (sink->pairs == NULL && sink->capacity > 0))
    {
        return MC_ERR_INVALID_ARGUMENT;
    }
    // The clock is read only for a caller who wants the stats (two reads cost about a quarter of a query that finds
    // nothing: perf, a part inside a box).
    double t0 = stats != NULL ? mc_now_seconds() : 0.0;
    unsorted_pairs u;
    mc_status st = collide_keyed(mi, mj, j_in_i, worker_count, scratch, NULL, &u);
    if (st != MC_OK)
    {
        return st;
    }
    struct mc_pair_scratch* s = *scratch;
    uint32_t n = u.n;
    // Warmed first: the caller's array is written only once nothing can fail (the workers' pairs keep their content).
    if (!warm_workers(s, u.workers, n))
    {
        return MC_ERR_OUT_OF_MEMORY;
    }
    const sort_key* sorted = sort_pair_keys(s, mi, mj, n);
    // Each pair written once, straight into the caller's array, its points mapped as the caller would map mc_collide's.
    uint32_t m = n < sink->capacity ? n : sink->capacity;
    for (uint32_t k = 0; k < m; ++k)
    {
        const mc_triangle_pair* src = worker_pair(s, sorted[k].index);
        mc_triangle_pair* dst = &sink->pairs[k];
        *dst = *src;
        for (int c = 0; c < 2; ++c)
        {
            dst->crossing[c].point = mc_add(sink->trans, mc_mat33_mul_vec(&sink->rot, src->crossing[c].point));
        }
    }
    *pair_count = n;
    collide_stats(&u, t0, stats);
    return MC_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// Temporal coherence: the traversal front of a pair (see mc_collide_front in bvh.h)
//
// The front is the set of node pairs where the last descent stopped: pairs whose boxes a separating axis split, each
// with a lower bound of its gap at the front's pose, and the leaf pairs whose triangles were tested. These node pairs
// partition every pair of leaves (a descent splits a node pair into its children pairs), so a query that skips the
// separated entries whose gap exceeds how far J can have moved, re-descends the others from their node pair, and runs
// the leaf stage on every leaf pair, tests every leaf pair that the cold traversal tests (and maybe more): the
// cold traversal is conservative too, so both find exactly the intersecting triangle pairs, and the same triangle
// pair gives the same crossings. The output is sorted by (i, j), so it is bitwise the cold query's. Only the
// counters (box and triangle tests) differ.

// Anchors of the near-list gaps (see near_gap_store): a ring of the last query poses that looked at every near list.
// Measured with callgrind on `bench_many -s spheres -n 1000 -t 1 -c 80 --drift 1e-3` (many_moving.md, session 9):
// steady calls 60-78 ran 241.3 M instructions with one anchor (the rule before), 236.4 M with four, 235.0 M with eight;
// four keep each front 288 bytes larger than one, eight 672.
#define NEAR_ANCHORS 4u
uint32_t mc_front_anchors = 0;

// The anchors in use (NEAR_ANCHORS unless a test asks for fewer).
static inline uint32_t front_anchor_count(void)
{
    return mc_front_anchors > 0u && mc_front_anchors < NEAR_ANCHORS ? mc_front_anchors : NEAR_ANCHORS;
}

struct mc_pair_front
{
    const mc_bvh* ta;      // I's tree the front was recorded on (a change resets the front)
    const mc_bvh* tb;      // J's tree
    uint64_t va, vb;       // their versions (mc_bvh.version: a deformed mesh's refitted tree has a new one)
    double rot[3][3];      // the pose (rotation J -> I) the gaps refer to
    double trans[3];       // its translation
    front_entry* entries;  // the front's leaf entries
    front_node* nodes;     // its separated node pairs (near == FRONT_NODE)
    uint32_t count;        // entries used (leaf entries and node pairs)
    uint32_t capacity;     // leaf entries allocated
    uint32_t node_count;   // node pairs used
    uint32_t node_cap;     // node pairs allocated
    uint8_t* pool;         // the leaf entries' near lists
    float* pool_gap;       // each near-list pair's gap bound at the front's pose (0: it is tested at every query)
    uint32_t pool_count;   // bytes used
    uint32_t pool_cap;     // bytes allocated
    uint32_t pool_gap_cap; // entries of pool_gap allocated
    uint32_t rebuild_size; // entries right after the last descent from the roots
    uint32_t rebuild_pool; // near-list bytes right after it
    double margin;         // the margin of the last descent from the roots (front_traverse)
    double last_rot[3][3]; // the pose of the pair's last query (every query, plain or not)
    double last_trans[3];
    double anchor_rot[NEAR_ANCHORS][3][3]; // the near-list gaps' anchors (near_gap_store): the poses of the last
    double anchor_trans[NEAR_ANCHORS][3]; // NEAR_ANCHORS queries that looked at every near list, by walk % NEAR_ANCHORS
    uint32_t anchor_walks;                // such queries since the front was last recorded from the roots
    double step;                          // decaying peak of J's motion between consecutive queries (front_traverse)
    double leaf_scale;                    // the smaller of the two trees' mean leaf box size (front_leaf_scale)
    const mc_bvh* scale_a;                // the trees and versions leaf_scale was measured on
    const mc_bvh* scale_b;
    uint64_t scale_va, scale_vb;
    bool has_last;        // last_rot, last_trans hold a query's pose
    uint32_t leaf_count;  // leaf entries
    float min_gap;        // smallest gap of all entries (INFINITY when none)
    bool valid;           // entries describe the trees at (rot, trans)
    uint32_t* order;      // the last query's sorting permutation of its pairs as produced (see front_order_apply)
    uint32_t order_count; // its length (0: none kept)
    uint32_t order_cap;   // entries allocated
    // Certified reuse of the triangle tests (see front_certify): the sorted pairs, without their points, of the last
    // query that ran the tests, the pose of that query (pending: margin not measured yet) or of the query that
    // measured the margin (a motion from that pose below which every near-list test gives the same result).
    double cert_rot[3][3]; // rotation J -> I of that query
    double cert_trans[3];  // its translation
    double cert_margin;    // 0: no measured certificate (INFINITY: no near-list pair at all)
    double cert_now;       // margin measured by the query being answered (> 0: kept measured, not pending)
    uint32_t* cert_ij;     // i, j of each pair
    uint8_t* cert_meta;    // per pair, crossing s in bits 4s..4s+3: body (1 bit), edge (2 bits), entering > 0
    uint32_t cert_count;   // pairs
    uint32_t cert_cap;     // pairs allocated in cert_ij and cert_meta
    uint64_t cert_id;      // id of the certificate (0: none), from cert_serial
    uint64_t cert_serial;  // ids given so far (never reset: an id is never reused within the front)
    uint32_t cert_skip;    // tested queries left that keep no certificate (front_certify_begin)
    uint32_t cert_backoff; // the last skip length
    bool primed; // a query ran since the last reset: the next fresh start records the front (see front_traverse)
    // (the flags last: they fill the struct's tail padding, 4 bytes before them)
    bool cert_pending; // pairs and pose kept, margin not measured (front_try_replay measures it)
    bool cert_keep;    // the query being answered keeps its pairs (front_keep_certified once they are sorted)
    bool cert_named;   // a pending certificate's id goes to the query that kept it (front_certify_begin)
    bool cert_flat;    // the last measure failed below 1e-9 of J's radius (front_certify_begin measures at once)
};

void mc_pair_front_destroy(mc_pair_front* f)
{
    if (f == NULL)
    {
        return;
    }
    mc_free(f->entries);
    mc_free(f->nodes);
    mc_free(f->pool);
    mc_free(f->pool_gap);
    mc_free(f->order);
    mc_free(f->cert_ij);
    mc_free(f->cert_meta);
    mc_free(f);
}

void mc_pair_front_memory(const mc_pair_front* f, mc_front_memory* sum)
{
    if (f == NULL)
    {
        return;
    }
    sum->fronts += 1u;
    sum->header += sizeof *f;
    bool valid = f->valid && f->count > 0u;
    sum->entries_used +=
        valid ? (size_t)f->leaf_count * sizeof *f->entries + (size_t)f->node_count * sizeof *f->nodes : 0u;
    sum->entries_held += mc_alloc_size(f->entries) + mc_alloc_size(f->nodes);
    sum->entry_count += valid ? f->count : 0u;
    sum->leaf_count += valid ? f->leaf_count : 0u;
    sum->pool_used += (size_t)f->pool_count * (1u + sizeof *f->pool_gap);
    sum->pool_held += mc_alloc_size(f->pool) + mc_alloc_size(f->pool_gap);
    sum->order_used += (size_t)f->order_count * sizeof *f->order;
    sum->order_held += mc_alloc_size(f->order);
    sum->cert_used += (size_t)f->cert_count * (2u * sizeof *f->cert_ij + 1u);
    sum->cert_held += mc_alloc_size(f->cert_ij) + mc_alloc_size(f->cert_meta);
}

// Lines prefetched per array at most (a sphere pair's certificate has a few dozen pairs).
#define PREFETCH_LINES 32u

static inline void prefetch_bytes(const void* p, size_t bytes)
{
    mc_prefetch_bytes(p, bytes, PREFETCH_LINES);
}

void mc_pair_front_prefetch_record(const mc_pair_front* f)
{
    if (f != NULL)
    {
        prefetch_bytes(f, sizeof *f);
    }
}

void mc_pair_front_prefetch(const mc_pair_front* f)
{
    if (f == NULL)
    {
        return;
    }
    if (f->cert_count > 0u && (f->cert_margin > 0.0 || f->cert_pending))
    {
        // A replay reads the certified pairs.
        prefetch_bytes(f->cert_ij, 2u * sizeof *f->cert_ij * (size_t)f->cert_count);
        prefetch_bytes(f->cert_meta, f->cert_count);
    }
    if (f->valid && f->leaf_count > 0u)
    {
        // A quiet query reads the leaf entries (first in the array), their near lists and gaps.
        prefetch_bytes(f->entries, (size_t)f->leaf_count * sizeof *f->entries);
        prefetch_bytes(f->pool_gap, (size_t)f->pool_count * sizeof *f->pool_gap);
        prefetch_bytes(f->pool, f->pool_count);
    }
}

void mc_pair_front_reset(mc_pair_front* f)
{
    if (f != NULL)
    {
        f->valid = false;
        f->count = 0;
        f->cert_margin = 0.0;
        f->cert_pending = false;
        f->cert_keep = false;
        f->cert_flat = false;
        f->cert_now = 0.0;
        f->cert_skip = 0;
        f->cert_backoff = 0;
        f->primed = false;
        f->has_last = false;
        f->step = 0.0;
    }
}

// The pose of the pair's query being answered, for the next query's step motion (front_traverse).
static void front_note_pose(mc_pair_front* f, const struct mc_pair_scratch* s)
{
    memcpy(f->last_rot, s->rot, sizeof f->last_rot);
    memcpy(f->last_trans, s->trans, sizeof f->last_trans);
    f->has_last = true;
}

// The query being answered looked at every near list: its pose becomes the anchor of its walk's slot (replacing the
// oldest anchor, whose gaps the walk has moved to this pose: leaf_near), for the gaps it stored there.
static void front_note_anchor(mc_pair_front* f, const struct mc_pair_scratch* s)
{
    uint32_t anchors = front_anchor_count();
    uint32_t slot = f->anchor_walks % anchors;
    memcpy(f->anchor_rot[slot], s->rot, sizeof f->anchor_rot[slot]);
    memcpy(f->anchor_trans[slot], s->trans, sizeof f->anchor_trans[slot]);
    f->anchor_walks++;
}

// The id of the front's certificate (measured or pending), 0 when it has none.
static uint64_t front_certificate(const mc_pair_front* f)
{
    return f != NULL && (f->cert_margin > 0.0 || (f->cert_pending && f->cert_named)) ? f->cert_id : 0u;
}

void mc_pair_front_margins(const mc_pair_front* f, double* certified, double* min_gap)
{
    *certified = f != NULL ? f->cert_margin : 0.0;
    *min_gap = f != NULL && f->valid ? (double)f->min_gap : 0.0;
}

// The output order of a front query from the last query's permutation: a front query produces its pairs in the order
// of its entries and near lists, mostly the order of the query before, so the permutation that sorted those mostly
// sorts these. It is applied (pairs of worker 0, the only one a front query uses) and kept only when the result is
// strictly increasing in (i, j): n distinct pairs, each once (a permutation), in increasing order are the sorted
// output, whatever the permutation came from; so the output is bitwise that of sort_pairs. @return 0 when the caller
// must sort (no permutation of this length kept, or the result not increasing).
static int front_order_apply(struct mc_pair_scratch* s, const mc_pair_front* f, uint32_t n)
{
    const pair_worker* pw = &s->workers[0];
    if (f->order_count != n || pw->pair_count != n || n == 0u)
    {
        return 0;
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        const mc_triangle_pair* x = &pw->pairs[f->order[k]];
        if (k > 0u)
        {
            const mc_triangle_pair* y = &s->out[k - 1u];
            if (!(y->i < x->i || (y->i == x->i && y->j < x->j)))
            {
                return 0;
            }
        }
        s->out[k] = *x;
    }
    return 1;
}

// sort_pairs for a front query: the last query's permutation when it sorts these pairs, else a sort whose permutation
// is kept for the next query (none on allocation failure).
static void front_sort_pairs(struct mc_pair_scratch* s, const struct mc_mesh* mi, const struct mc_mesh* mj, uint32_t n,
                             mc_pair_front* f)
{
    if (front_order_apply(s, f, n))
    {
        return;
    }
    uint32_t* perm = NULL;
    f->order_count = 0;
    if (s->workers[0].pair_count == n && mc_array_reserve((void**)&f->order, &f->order_cap, n, sizeof *f->order, 16))
    {
        perm = f->order;
        f->order_count = n;
    }
    sort_pairs(s, mi, mj, n, perm);
}

// The larger of two gaps (not fmax: that is a library call; the operands are finite).
static inline double gap_max(double a, double b)
{
    return b > a ? b : a;
}

#if !defined(__SSE2__) // front_apart's test without SSE2 (clang warns on an unused static function)
// Lower bound of the gap between I's box na and J's box b (mapped into I's frame) along one of the 15 axes of
// box_overlap, less the same slack: the first axis whose gap exceeds `reach` (its gap; the descent keeps the pair as
// an entry), else the largest (at most `reach`: the descent splits the pair). A positive gap means box_overlap rejects
// the pair (up to the rounding of the comparison), and then every point of J's box must move by more than the gap (in
// I's frame) to reach I's box. The cross-product axes are not unit (|a_i x b_k| <= 1 + 1e-6): their projected gap
// understates the distance, which is conservative; the caller scales its motion bound by 1 + 1e-6 for the face axes'
// float rounding.
static double box_gap(const collide_ctx* cx, const mc_bvh_node* na, const mapped_box* b, double reach)
{
    sat_setup q;
    sat_prepare(cx, na, b, &q);
    // The differences below are rounded by at most 2^-52 of the magnitudes in the slack; 2 slack covers the slack's
    // own share and that rounding.
    double over = reach + 2.0 * q.slack;
    double r[3][3], ar[3][3], gap = -INFINITY;
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            r[i][k] = q.a[i][0] * b->ax[k][0] + q.a[i][1] * b->ax[k][1] + q.a[i][2] * b->ax[k][2];
            ar[i][k] = fabs(r[i][k]);
        }
        gap = gap_max(gap, fabs(q.t[i]) - (q.ea[i] + b->e[0] * ar[i][0] + b->e[1] * ar[i][1] + b->e[2] * ar[i][2]));
    }
    if (gap > over)
    {
        return gap - 2.0 * q.slack;
    }
    for (int k = 0; k < 3; ++k)
    {
        double tb = b->ax[k][0] * q.d[0] + b->ax[k][1] * q.d[1] + b->ax[k][2] * q.d[2];
        gap = gap_max(gap, fabs(tb) - (b->e[k] + q.ea[0] * ar[0][k] + q.ea[1] * ar[1][k] + q.ea[2] * ar[2][k]));
    }
    for (int i = 0; i < 3 && !(gap > over); ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            double dist, rad;
            sat_cross_axis(q.t, q.ea, b->e, r, ar, i, k, &dist, &rad);
            gap = gap_max(gap, dist - rad);
        }
    }
    return gap - 2.0 * q.slack;
}
#endif

// A positive gap rounded down to float (entries store floats): scaled down by 2^-23 first, more than the relative
// 2^-24 of the conversion's rounding to nearest (a gap below float's normal range may become 0, which only makes the
// entry be tested again).
static inline float gap_down(double g)
{
    return (float)(g * (1.0 - 0x1p-23));
}

// A gap g measured at a query `offset` away from the front's pose (the front_motion bound), as a gap from the front's
// pose: no point moves farther from the query's pose than from the front's pose plus `offset`, so g - offset (rounded
// down, less more than the rounding of the subtraction) is one; 0 when nothing is left (tested at the next query).
static inline float gap_from_front(double g, double offset)
{
    if (g == INFINITY)
    {
        return INFINITY;
    }
    double left = (g - offset) - 1e-15 * fabs(g);
    return left > 0.0 ? gap_down(left) : 0.0f;
}

// Append an entry to the scratch's fresh entries. @return 0 on allocation failure.
static inline int front_push(struct mc_pair_scratch* s, uint32_t a, uint32_t b, float gap, uint32_t near,
                             uint32_t near_count)
{
    if (s->fresh_count == s->fresh_cap &&
        !mc_array_reserve((void**)&s->fresh, &s->fresh_cap, (uint64_t)s->fresh_count + 1u, sizeof *s->fresh, 64))
    {
        return 0;
    }
    s->fresh[s->fresh_count++] = (front_entry){a, b, gap, near, near_count};
    return 1;
}

/// The triangles of a leaf pair at the query's pose, loaded on first use: I's as stored, J's mapped (the values the
/// triangle tests use), with their exact bounding boxes and plane normals; test planes prepared on first use.
typedef struct leaf_tris
{
    mc_vec3 v[2][MC_BVH_LEAF_MAX][3]; // [0] I's triangles, [1] J's
    double lo[2][3][MC_BVH_LEAF_MAX]; // bounding boxes, by component (a triangle against a whole side in one loop)
    double hi[2][3][MC_BVH_LEAF_MAX];
    mc_vec3 n[2][MC_BVH_LEAF_MAX];      // (v1 - v0) x (v2 - v0)
    double inv_len[2][MC_BVH_LEAF_MAX]; // 1 / |n| (0 for a degenerate triangle: no plane filter)
    double own_lo[2][MC_BVH_LEAF_MAX];  // the triangle's own corners along n, from its first corner: [own_lo, own_hi]
    double own_hi[2][MC_BVH_LEAF_MAX];  // (about 0 for a triangle of any thickness; see leaf_tri_normal)
    mc_tri_plane plane[2][MC_BVH_LEAF_MAX];
    uint32_t loaded[2];  // bit t: triangle t of the side is loaded
    uint32_t bounded[2]; // bit t: its box is computed (leaf_tri_box)
    uint32_t normed[2];  // bit t: its normal and 1 / |n| are computed (leaf_tri_normal)
    uint32_t planes[2];  // bit t: plane[side][t] is prepared
    uint32_t count[2];   // triangles of each leaf
    uint32_t first[2];   // their first position in tri_order
} leaf_tris;

static void leaf_tris_init(const collide_ctx* cx, uint32_t a, uint32_t b, leaf_tris* lt)
{
    const mc_bvh_node* na = &cx->ta->nodes[a];
    const mc_bvh_node* nb = &cx->tb->nodes[b];
    lt->first[0] = mc_bvh_leaf_first(na);
    lt->count[0] = mc_bvh_leaf_count(na);
    lt->first[1] = mc_bvh_leaf_first(nb);
    lt->count[1] = mc_bvh_leaf_count(nb);
    lt->loaded[0] = lt->loaded[1] = 0;
    lt->bounded[0] = lt->bounded[1] = 0;
    lt->normed[0] = lt->normed[1] = 0;
    lt->planes[0] = lt->planes[1] = 0;
}

static inline void leaf_tri_load(const collide_ctx* cx, leaf_tris* lt, int side, uint32_t k)
{
    if ((lt->loaded[side] & (1u << k)) != 0)
    {
        return;
    }
    lt->loaded[side] |= 1u << k;
    const mc_bvh* t = side == 0 ? cx->ta : cx->tb;
    const uint32_t* tv = &t->tri_vertex[3u * (lt->first[side] + k)];
    mc_vec3* v = lt->v[side][k];
    for (int c = 0; c < 3; ++c)
    {
        v[c] = side == 0 ? cx->pos_i[tv[c]] : j_vertex_serial(cx->scratch, tv[c]);
    }
}

// The bounding box of loaded triangle k of a side.
static inline void leaf_tri_box_of(leaf_tris* lt, int side, uint32_t k)
{
    const mc_vec3* v = lt->v[side][k];
    for (int c = 0; c < 3; ++c)
    {
        double x0 = c == 0 ? v[0].x : (c == 1 ? v[0].y : v[0].z);
        double x1 = c == 0 ? v[1].x : (c == 1 ? v[1].y : v[1].z);
        double x2 = c == 0 ? v[2].x : (c == 1 ? v[2].y : v[2].z);
        double lo = x1 < x0 ? x1 : x0, hi = x1 > x0 ? x1 : x0;
        lt->lo[side][c][k] = x2 < lo ? x2 : lo;
        lt->hi[side][c][k] = x2 > hi ? x2 : hi;
    }
}

// A triangle loaded with its bounding box.
static inline void leaf_tri_box(const collide_ctx* cx, leaf_tris* lt, int side, uint32_t k)
{
    if ((lt->bounded[side] & (1u << k)) != 0)
    {
        return;
    }
    lt->bounded[side] |= 1u << k;
    leaf_tri_load(cx, lt, side, k);
    leaf_tri_box_of(lt, side, k);
}

// A loaded triangle's normal and 1 / |n| (for plane_gap).
static inline void leaf_tri_normal(leaf_tris* lt, int side, uint32_t k)
{
    if ((lt->normed[side] & (1u << k)) != 0)
    {
        return;
    }
    lt->normed[side] |= 1u << k;
    const mc_vec3* v = lt->v[side][k];
    mc_vec3 n = mc_cross(mc_sub(v[1], v[0]), mc_sub(v[2], v[0]));
    double len = sqrt(mc_dot(n, n));
    lt->n[side][k] = n;
    lt->inv_len[side][k] = len > 0.0 ? 1.0 / len : 0.0;
    // The triangle's own extent along its computed normal, as plane_gap projects the other triangle's corners: not
    // only rounding when the triangle is a sliver (corners collinear up to rounding: its computed normal is noise and
    // may point along the triangle), so plane_gap is a separating-axis test on both triangles.
    double d1 = mc_dot(n, mc_sub(v[1], v[0])), d2 = mc_dot(n, mc_sub(v[2], v[0]));
    double lo = d1 < 0.0 ? d1 : 0.0, hi = d1 > 0.0 ? d1 : 0.0;
    lt->own_lo[side][k] = d2 < lo ? d2 : lo;
    lt->own_hi[side][k] = d2 > hi ? d2 : hi;
}

// A triangle loaded with its bounding box and normal (for leaf_pair_gap).
static void leaf_tri_bound(const collide_ctx* cx, leaf_tris* lt, int side, uint32_t k)
{
    leaf_tri_box(cx, lt, side, k);
    leaf_tri_normal(lt, side, k);
}

// The gap between the projections [lo, hi] of a triangle and [ulo, uhi] of the other's own corners on the other's
// normal (1 / |n| = inv_len), -INFINITY when they overlap. Without a branch on the side: when lo > uhi, lo - uhi > 0
// (IEEE subtraction of finite doubles keeps the order) and ulo - hi < 0, and the other way round, so the larger
// difference is the gap, and neither is positive when the intervals meet.
static inline double plane_gap_sides(double lo, double hi, double ulo, double uhi, double inv_len)
{
    double a = lo - uhi, b = ulo - hi;
    double g = b > a ? b : a;
    return g > 0.0 ? g * inv_len : -INFINITY;
}

// Lower bound (before rounding allowances) of the gap between triangle `t` of `side` and the other side's triangle
// `u` along u's computed normal, when it separates them; -INFINITY otherwise: t's corners and u's own (own_lo, own_hi)
// projected on the normal from u's first corner. For a triangle of any thickness u's own extent is rounding and this
// is the gap of t to u's plane; for a sliver, whose computed normal may lie along it, the plane alone was no bound
// (found by a front that left a crossing sliver pair out of its near list).
static double plane_gap(const leaf_tris* lt, int side, uint32_t t, uint32_t u)
{
    int o = 1 - side;
    if (lt->inv_len[o][u] == 0.0)
    {
        return -INFINITY;
    }
    mc_vec3 n = lt->n[o][u], a = lt->v[o][u][0];
    double lo = INFINITY, hi = -INFINITY;
    for (int c = 0; c < 3; ++c)
    {
        double d = mc_dot(n, mc_sub(lt->v[side][t][c], a));
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    return plane_gap_sides(lo, hi, lt->own_lo[o][u], lt->own_hi[o][u], lt->inv_len[o][u]);
}

// The larger of `best` and an axis's separation^2 / |axis|^2 when the separation and |axis|^2 are positive and the
// quotient finite (an overflow or underflow only leaves that axis out: any separating axis gives a bound).
static inline double axis_gap2_max(double best, double sep, double len2)
{
    double q = len2 > 0.0 && sep > 0.0 ? sep * sep / len2 : 0.0;
    return q < INFINITY && q > best ? q : best;
}

// Gap between I's triangle p and J's triangle q along the (computed) cross products of their edges, when one of them
// separates the triangles; -INFINITY otherwise. Any computed direction is a valid separating axis: only the rounding
// of the projections and of the norm enters the bound, not how far the axis is from the true cross product. The axes
// are compared by separation^2 / |axis|^2 (axis_gap2_max: a quotient per axis, no branch on which axis leads, and one
// square root, for the best: a pair near the contact is measured at every query it is looked at).
//
// The nine axes and their projections are computed first, by component in arrays (independent lanes the compiler may
// pack), then their quotients' maximum (exact in any order); the values are those of the plain loop, with the
// projection of a[0], dot(l, a[0] - a[0]), taken as 0 (it is +-0, and the sign of a zero changes neither a positive
// separation nor the test sep > 0).
static double edge_axes_gap(const leaf_tris* lt, uint32_t p, uint32_t q)
{
    const mc_vec3* a = lt->v[0][p];
    const mc_vec3* b = lt->v[1][q];
    mc_vec3 da1 = mc_sub(a[1], a[0]), da2 = mc_sub(a[2], a[0]); // corners less a[0]
    mc_vec3 db[3] = {mc_sub(b[0], a[0]), mc_sub(b[1], a[0]), mc_sub(b[2], a[0])};
    mc_vec3 ea[3] = {mc_sub(a[1], a[0]), mc_sub(a[2], a[1]), mc_sub(a[0], a[2])};
    mc_vec3 eb[3] = {mc_sub(b[1], b[0]), mc_sub(b[2], b[1]), mc_sub(b[0], b[2])};
    double lx[9], ly[9], lz[9];
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            lx[3 * i + k] = ea[i].y * eb[k].z - ea[i].z * eb[k].y;
            ly[3 * i + k] = ea[i].z * eb[k].x - ea[i].x * eb[k].z;
            lz[3 * i + k] = ea[i].x * eb[k].y - ea[i].y * eb[k].x;
        }
    }
    double len2[9], sep[9];
    for (int j = 0; j < 9; ++j)
    {
        len2[j] = lx[j] * lx[j] + ly[j] * ly[j] + lz[j] * lz[j];
        double x1 = lx[j] * da1.x + ly[j] * da1.y + lz[j] * da1.z;
        double x2 = lx[j] * da2.x + ly[j] * da2.y + lz[j] * da2.z;
        double y0 = lx[j] * db[0].x + ly[j] * db[0].y + lz[j] * db[0].z;
        double y1 = lx[j] * db[1].x + ly[j] * db[1].y + lz[j] * db[1].z;
        double y2 = lx[j] * db[2].x + ly[j] * db[2].y + lz[j] * db[2].z;
        double lo_a = x1 < 0.0 ? x1 : 0.0, hi_a = x1 > 0.0 ? x1 : 0.0;
        lo_a = x2 < lo_a ? x2 : lo_a;
        hi_a = x2 > hi_a ? x2 : hi_a;
        double lo_b = y1 < y0 ? y1 : y0, hi_b = y1 > y0 ? y1 : y0;
        lo_b = y2 < lo_b ? y2 : lo_b;
        hi_b = y2 > hi_b ? y2 : hi_b;
        sep[j] = gap_max(lo_b - hi_a, lo_a - hi_b);
    }
    double best = 0.0; // the largest separation^2 / |axis|^2 (0: no separating axis)
    for (int j = 0; j < 9; ++j)
    {
        best = axis_gap2_max(best, sep[j], len2[j]);
    }
    return best > 0.0 ? sqrt(best) : -INFINITY;
}

#if MC_COLLIDE_AVX
// edge_axes_gap with J's three edges on the lanes of one register per I edge (lane 3 a zero edge, never read): the same
// IEEE operations in the same order on each axis (no fusing: -ffp-contract=off, and no FMA in this target), the minima
// and maxima as the plain code's comparisons (minpd and maxpd return their second operand when the comparison is false,
// as `x < y ? x : y` does), then each lane's quotient (axis_gap2_max's operations) and the largest: bitwise
// edge_axes_gap's value.
__attribute__((target("avx2"))) static double edge_axes_gap_avx2(const leaf_tris* lt, uint32_t p, uint32_t q)
{
    const mc_vec3* a = lt->v[0][p];
    const mc_vec3* b = lt->v[1][q];
    mc_vec3 ea[3] = {mc_sub(a[1], a[0]), mc_sub(a[2], a[1]), mc_sub(a[0], a[2])};
    mc_vec3 eb[3] = {mc_sub(b[1], b[0]), mc_sub(b[2], b[1]), mc_sub(b[0], b[2])};
    mc_vec3 da2 = mc_sub(a[2], a[0]);
    mc_vec3 db[3] = {mc_sub(b[0], a[0]), mc_sub(b[1], a[0]), mc_sub(b[2], a[0])};
    __m256d ebx = _mm256_set_pd(0.0, eb[2].x, eb[1].x, eb[0].x);
    __m256d eby = _mm256_set_pd(0.0, eb[2].y, eb[1].y, eb[0].y);
    __m256d ebz = _mm256_set_pd(0.0, eb[2].z, eb[1].z, eb[0].z);
    const __m256d zero = _mm256_setzero_pd(), inf = _mm256_set1_pd(INFINITY);
    __m256d best = zero;
    for (int i = 0; i < 3; ++i)
    {
        __m256d ax = _mm256_set1_pd(ea[i].x), ay = _mm256_set1_pd(ea[i].y), az = _mm256_set1_pd(ea[i].z);
        __m256d lx = _mm256_sub_pd(_mm256_mul_pd(ay, ebz), _mm256_mul_pd(az, eby));
        __m256d ly = _mm256_sub_pd(_mm256_mul_pd(az, ebx), _mm256_mul_pd(ax, ebz));
        __m256d lz = _mm256_sub_pd(_mm256_mul_pd(ax, eby), _mm256_mul_pd(ay, ebx));
        __m256d l2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(lx, lx), _mm256_mul_pd(ly, ly)), _mm256_mul_pd(lz, lz));
#define MC_AXIS_DOT(v)                                                                                                 \
    _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(lx, _mm256_set1_pd((v).x)), _mm256_mul_pd(ly, _mm256_set1_pd((v).y))),   \
                  _mm256_mul_pd(lz, _mm256_set1_pd((v).z)))
        __m256d x1 = MC_AXIS_DOT(ea[0]); // da1 = a[1] - a[0] = ea[0]
        __m256d x2 = MC_AXIS_DOT(da2);
        __m256d y0 = MC_AXIS_DOT(db[0]);
        __m256d y1 = MC_AXIS_DOT(db[1]);
        __m256d y2 = MC_AXIS_DOT(db[2]);
#undef MC_AXIS_DOT
        __m256d lo_a = _mm256_min_pd(x2, _mm256_min_pd(x1, zero));
        __m256d hi_a = _mm256_max_pd(x2, _mm256_max_pd(x1, zero));
        __m256d lo_b = _mm256_min_pd(y2, _mm256_min_pd(y1, y0));
        __m256d hi_b = _mm256_max_pd(y2, _mm256_max_pd(y1, y0));
        // axis_gap2_max on the lanes: separation^2 / |axis|^2 where both are positive and the quotient finite, else 0
        // (lane 3, |axis|^2 = 0, included); the largest of the twelve lanes at the end (a maximum is exact in any
        // order).
        __m256d sp = _mm256_max_pd(_mm256_sub_pd(lo_a, hi_b), _mm256_sub_pd(lo_b, hi_a));
        __m256d r = _mm256_div_pd(_mm256_mul_pd(sp, sp), l2);
        __m256d ok =
            _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(l2, zero, _CMP_GT_OQ), _mm256_cmp_pd(sp, zero, _CMP_GT_OQ)),
                          _mm256_cmp_pd(r, inf, _CMP_LT_OQ));
        best = _mm256_max_pd(best, _mm256_and_pd(ok, r));
    }
    __m128d m = _mm_max_pd(_mm256_castpd256_pd128(best), _mm256_extractf128_pd(best, 1));
    double g2 = _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
    return g2 > 0.0 ? sqrt(g2) : -INFINITY;
}
#endif

// edge_axes_gap on the widest kernels the context allows (the same value on each).
static inline double edge_axes_gap_lanes(const collide_ctx* cx, const leaf_tris* lt, uint32_t p, uint32_t q)
{
#if MC_COLLIDE_AVX
    if (cx->lanes == 2)
    {
        return edge_axes_gap_avx2(lt, p, q);
    }
#else
    (void)cx;
#endif
    return edge_axes_gap(lt, p, q);
}

double mc_collide_edge_axes_gap(const mc_vec3 a[3], const mc_vec3 b[3], int lanes)
{
    leaf_tris lt;
    for (int c = 0; c < 3; ++c)
    {
        lt.v[0][0][c] = a[c];
        lt.v[1][0][c] = b[c];
    }
#if MC_COLLIDE_AVX
    if (lanes == 2 && mc_collide_lanes_available() == 2)
    {
        return edge_axes_gap_avx2(&lt, 0, 0);
    }
#else
    (void)lanes;
#endif
    return edge_axes_gap(&lt, 0, 0);
}

#if MC_COLLIDE_AVX
// plane_gap on AVX2 lanes: the triangle's three corners on lanes 0-2 (lane 3 repeats corner 0, which changes neither
// minimum nor maximum), each lane's plane value with the same operations in the same order as mc_dot(n, mc_sub(v, a)),
// then the minimum and maximum across the lanes (exact: only the sign of a zero may differ from the scalar scan's,
// and a zero gives -INFINITY either way). Bitwise plane_gap's value.
__attribute__((target("avx2"))) static inline double plane_gap_avx2(const leaf_tris* lt, int side, uint32_t t,
                                                                    uint32_t u)
{
    int o = 1 - side;
    if (lt->inv_len[o][u] == 0.0)
    {
        return -INFINITY;
    }
    const mc_vec3* v = lt->v[side][t];
    const mc_vec3* n = &lt->n[o][u];
    const mc_vec3* a = &lt->v[o][u][0];
    __m256d x = _mm256_sub_pd(_mm256_setr_pd(v[0].x, v[1].x, v[2].x, v[0].x), _mm256_set1_pd(a->x));
    __m256d y = _mm256_sub_pd(_mm256_setr_pd(v[0].y, v[1].y, v[2].y, v[0].y), _mm256_set1_pd(a->y));
    __m256d z = _mm256_sub_pd(_mm256_setr_pd(v[0].z, v[1].z, v[2].z, v[0].z), _mm256_set1_pd(a->z));
    __m256d d =
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(n->x), x), _mm256_mul_pd(_mm256_set1_pd(n->y), y)),
                      _mm256_mul_pd(_mm256_set1_pd(n->z), z));
    __m128d l = _mm256_castpd256_pd128(d), h = _mm256_extractf128_pd(d, 1);
    __m128d mn = _mm_min_pd(l, h), mx = _mm_max_pd(l, h);
    __m128d lo = _mm_min_sd(mn, _mm_unpackhi_pd(mn, mn));
    __m128d hi = _mm_max_sd(mx, _mm_unpackhi_pd(mx, mx));
    // plane_gap_sides with a blend for its last choice (the compiler branches on it: mispredicted on pairs about to
    // cross, half the time).
    __m128d below = _mm_sub_sd(lo, _mm_set_sd(lt->own_hi[o][u])), above = _mm_sub_sd(_mm_set_sd(lt->own_lo[o][u]), hi);
    // plane_gap_sides' larger difference, up to the sign of equal zeros (not positive: -INFINITY either way).
    __m128d g = _mm_max_sd(below, above);
    __m128d ok = _mm_cmpgt_sd(g, _mm_setzero_pd());
    __m128d r = _mm_blendv_pd(_mm_set_sd(-INFINITY), _mm_mul_sd(g, _mm_set_sd(lt->inv_len[o][u])), ok);
    return _mm_cvtsd_f64(r);
}

// leaf_pair_gap_planes' two plane gaps on AVX2 lanes (plane_gap_avx2): gap_max of g and both, as the scalar steps.
__attribute__((target("avx2"))) static double plane_gaps_avx2(const leaf_tris* lt, uint32_t p, uint32_t q, double g)
{
    g = gap_max(g, plane_gap_avx2(lt, 1, q, p));
    return gap_max(g, plane_gap_avx2(lt, 0, p, q));
}
#endif

// leaf_pair_gap's first two steps: the boxes, and the two planes when the boxes leave the pair within `reach` (less
// the slack; without the edge axes: cheaper, and as good for the pairs that are not about to cross).
// leaf_pair_gap_planes from the pair's box gap g (its first step, before the slack).
static inline double leaf_pair_gap_planes_box(const collide_ctx* cx, const leaf_tris* lt, uint32_t p, uint32_t q,
                                              double g, double reach)
{
    double slack = 4.0 * cx->abs_slack;
    if (g - slack <= reach)
    {
#if MC_COLLIDE_AVX
        if (cx->lanes == 2)
        {
            return plane_gaps_avx2(lt, p, q, g) - slack;
        }
#endif
        g = gap_max(g, plane_gap(lt, 1, q, p));
        g = gap_max(g, plane_gap(lt, 0, p, q));
    }
    return g - slack;
}

static double leaf_pair_gap_planes(const collide_ctx* cx, const leaf_tris* lt, uint32_t p, uint32_t q, double reach)
{
    double g = -INFINITY;
    for (int c = 0; c < 3; ++c)
    {
        g = gap_max(g, gap_max(lt->lo[1][c][q] - lt->hi[0][c][p], lt->lo[0][c][p] - lt->hi[1][c][q]));
    }
    return leaf_pair_gap_planes_box(cx, lt, p, q, g, reach);
}

double mc_collide_plane_gaps(const mc_vec3 a[3], const mc_vec3 b[3], int lanes)
{
    leaf_tris lt;
    for (int c = 0; c < 3; ++c)
    {
        lt.v[0][0][c] = a[c];
        lt.v[1][0][c] = b[c];
    }
    lt.normed[0] = lt.normed[1] = 0;
    leaf_tri_normal(&lt, 0, 0);
    leaf_tri_normal(&lt, 1, 0);
#if MC_COLLIDE_AVX
    if (lanes == 2 && mc_collide_lanes_available() == 2)
    {
        return plane_gaps_avx2(&lt, 0, 0, -INFINITY);
    }
#else
    (void)lanes;
#endif
    return gap_max(gap_max(-INFINITY, plane_gap(&lt, 1, 0, 0)), plane_gap(&lt, 0, 0, 0));
}

// Lower bound of the gap between I's triangle p and J's triangle q: the best of their bounding boxes' gap, the two
// plane gaps and, when those leave the pair within `margin`, the edge-cross-product axes (the full separating axis
// test), less a bound of the rounding (abs_slack covers 1e-13 of the coordinates' magnitudes, far above the few
// roundings of each difference, cross and dot product here). Every point of a triangle moving by less than it keeps
// them apart. `box`: the pair's box gap, leaf_pair_gap_planes' first step (leaf_row_boxes gives it bitwise).
static double leaf_pair_gap(const collide_ctx* cx, const leaf_tris* lt, uint32_t p, uint32_t q, double box,
                            double margin)
{
    // The boxes and planes (less the slack), then the edge axes less the same slack: subtracting it after the largest
    // is taken or before gives the same double (rounding is monotonic).
    double g = leaf_pair_gap_planes_box(cx, lt, p, q, box, margin);
    if (g <= margin)
    {
        g = gap_max(g, edge_axes_gap_lanes(cx, lt, p, q) - 4.0 * cx->abs_slack);
    }
    return g;
}

// Triangle k of a leaf side, loaded, with its test plane (prepared on first use).
static inline const mc_tri_plane* leaf_tri_plane(const collide_ctx* cx, leaf_tris* lt, int side, uint32_t k)
{
    leaf_tri_load(cx, lt, side, k);
    if ((lt->planes[side] & (1u << k)) == 0)
    {
        mc_tri_plane_init(&lt->plane[side][k], lt->v[side][k][0], lt->v[side][k][1], lt->v[side][k][2]);
        lt->planes[side] |= 1u << k;
    }
    return &lt->plane[side][k];
}

#if MC_COLLIDE_AVX
// leaf_tris_test with step 1 (the six plane tests) on lanes, as the cold stage's pair loop (pair_test_avx2 without
// its slabs and inside test): a pair whose six values are all beyond their filter bounds is rejected there or takes
// its crossings from the signs (crossings_from_lonely, inline), any other pair the scalar test. Bitwise the same
// crossings and pairs as the scalar test.
__attribute__((target("avx2"))) static int leaf_tris_test_avx2(const collide_ctx* cx, pair_worker* w,
                                                               const mc_tri_plane* tp, const mc_tri_plane* tq,
                                                               uint32_t i, uint32_t j)
{
    tri_lanes li, lj;
    tri_lanes_make(tp, &li);
    tri_lanes_make(tq, &lj);
    double oi[4], oj[4];
    int k = 0, sp = 0, m = 0, sw = 0;
    int side = sides_avx2(tq, &li, oi, &k, &sp); // 1a: I's corners against J's plane
    if (side > 0)
    {
        side = sides_avx2(tp, &lj, oj, &m, &sw); // 1b: J's corners against I's plane
    }
    // No 256-bit value is live past the plane tests: clean upper halves before the scalar code (GCC left
    // crossings_from_lonely's set_crossing, not inlined here, to run as legacy SSE with dirty upper halves: the whole
    // coherent step took 1.5 times as long).
    _mm256_zeroupper();
    if (side == 0)
    {
        return 1;
    }
    mc_triangle_pair* out = pair_slot(w);
    if (out == NULL)
    {
        return 0;
    }
    int n = side > 0 ? crossings_from_lonely(tp->v, oi, k, sp, tq->v, oj, m, sw, 0, out->crossing)
                     : exact_pair_test(cx, w, tp, tq, i, j, out->crossing);
    if (n == 2)
    {
        pair_commit(w, out, cx->ta->tri_order[i], cx->tb->tri_order[j]);
    }
    return n >= 0;
}
#endif

// The exact test of I's triangle p against J's triangle q of a leaf pair (the cold stage's function on the same
// values: bitwise the same crossings), the pair pushed when they cross. @return 0 on allocation failure.
MC_SCALAR_CLONES static int leaf_tris_test(const collide_ctx* cx, pair_worker* w, leaf_tris* lt, uint32_t p, uint32_t q)
{
    const mc_tri_plane* pi = leaf_tri_plane(cx, lt, 0, p);
    const mc_tri_plane* pj = leaf_tri_plane(cx, lt, 1, q);
    w->triangle_tests += 1u;
#if MC_COLLIDE_AVX
    if (cx->lanes == 2)
    {
        return leaf_tris_test_avx2(cx, w, pi, pj, lt->first[0] + p, lt->first[1] + q);
    }
#endif
    mc_crossing cr[2];
    int n = exact_pair_test(cx, w, pi, pj, lt->first[0] + p, lt->first[1] + q, cr);
    return n >= 0 &&
           (n != 2 || push_pair(w, cx->ta->tri_order[lt->first[0] + p], cx->tb->tri_order[lt->first[1] + q], cr));
}

// Room for n more near-list bytes in the scratch's pool. @return 0 on allocation failure.
static inline int pool_reserve(struct mc_pair_scratch* s, uint32_t n)
{
    return mc_array_reserve((void**)&s->pool, &s->pool_cap, (uint64_t)s->pool_count + n, 1, 256) &&
           mc_array_reserve((void**)&s->pool_gap, &s->pool_gap_cap, (uint64_t)s->pool_count + n, sizeof(float), 256);
}

// Box gaps of I's triangle p against every J triangle of the leaf pair (the differences and maxima of
// leaf_pair_gap_planes' first step: bitwise its box gap).
static inline void leaf_row_boxes(const leaf_tris* lt, uint32_t p, double box[MC_BVH_LEAF_MAX])
{
    const double(*jlo)[MC_BVH_LEAF_MAX] = lt->lo[1];
    const double(*jhi)[MC_BVH_LEAF_MAX] = lt->hi[1];
    double plo[3] = {lt->lo[0][0][p], lt->lo[0][1][p], lt->lo[0][2][p]};
    double phi[3] = {lt->hi[0][0][p], lt->hi[0][1][p], lt->hi[0][2][p]};
    for (uint32_t q = 0; q < lt->count[1]; ++q)
    {
        double g = -INFINITY;
        for (int c = 0; c < 3; ++c)
        {
            g = gap_max(g, gap_max(jlo[c][q] - phi[c], plo[c] - jhi[c][q]));
        }
        box[q] = g;
    }
}

#if MC_COLLIDE_AVX
// leaf_record's scan of I's triangle p against J's triangles on AVX2 lanes (four a register; J's boxes past its count
// are empty, so their gaps are infinite and change nothing): the box gaps of leaf_row_boxes less the slack, with the
// same operations per lane (maxpd(y, x) is `y > x ? y : x`, gap_max(x, y)), bit q set when the gap of pair (p, q) is
// not past the reach, *row_far the smallest gap past it (INFINITY when none; minima are exact, so the order of the
// reduction does not matter); box[q] receives the box gap before the slack, bitwise leaf_row_boxes' (rounded up to a
// multiple of four entries). Bitwise the scalar loop of leaf_record (test
// bvh::a_front_records_the_same_on_every_lane_width).
__attribute__((target("avx2"))) static uint32_t leaf_row_scan_avx2(const leaf_tris* lt, uint32_t p, double slack,
                                                                   double reach, double box[MC_BVH_LEAF_MAX],
                                                                   double* row_far)
{
    __m256d plo[3], phi[3];
    for (int c = 0; c < 3; ++c)
    {
        plo[c] = _mm256_set1_pd(lt->lo[0][c][p]);
        phi[c] = _mm256_set1_pd(lt->hi[0][c][p]);
    }
    const __m256d vs = _mm256_set1_pd(slack), vr = _mm256_set1_pd(reach), inf = _mm256_set1_pd(INFINITY);
    __m256d far = inf;
    uint32_t past = 0, nj = lt->count[1];
    for (uint32_t q = 0; q < nj; q += 4u)
    {
        __m256d g = _mm256_set1_pd(-INFINITY);
        for (int c = 0; c < 3; ++c)
        {
            __m256d x = _mm256_sub_pd(_mm256_loadu_pd(&lt->lo[1][c][q]), phi[c]);
            __m256d y = _mm256_sub_pd(plo[c], _mm256_loadu_pd(&lt->hi[1][c][q]));
            g = _mm256_max_pd(_mm256_max_pd(y, x), g);
        }
        _mm256_storeu_pd(box + q, g);
        __m256d d = _mm256_sub_pd(g, vs);
        __m256d over = _mm256_cmp_pd(d, vr, _CMP_GT_OQ);
        past |= (uint32_t)_mm256_movemask_pd(over) << q;
        far = _mm256_min_pd(_mm256_blendv_pd(inf, d, over), far);
    }
    __m128d m = _mm_min_pd(_mm256_castpd256_pd128(far), _mm256_extractf128_pd(far, 1));
    m = _mm_min_sd(m, _mm_unpackhi_pd(m, m));
    *row_far = _mm_cvtsd_f64(m);
    return ~past & ((1u << nj) - 1u);
}
#endif

#if defined(__SSE2__)
// leaf_record's culling of one leaf's triangles against the other leaf's box (given in the leaf's mesh frame), on float
// lanes as the plain traversal's leaf stage culls them (leaf_pairs_sse, steps 1 and 3: the same data, kernel and
// slack), with the limits widened by `reach` (1e-5 more: the rounding of the widened limits to float, and the face
// axes' lengths, within 1e-6 of 1 after their float rotation). A triangle culled has every corner, as the triangle
// tests take it, beyond a face of the box by more than the reach along that face's axis: it is farther than `reach`
// from the box, so from every triangle of the other leaf. @return the bits of the triangles kept.
static void leaf_reach_cull_make(const collide_ctx* cx, const mc_bvh_node* leaf, const lane_box* box, double reach,
                                 leaf_cull* lc)
{
    leaf_cull_make(cx, leaf, box, lc);
    lc->lim = _mm_add_ps(lc->lim, _mm_set1_ps((float)(reach * (1.0 + 1e-5))));
}

static uint32_t leaf_reach_cull(const collide_ctx* cx, const mc_bvh* t, const mc_bvh_node* leaf, const lane_box* box,
                                double reach)
{
    leaf_cull lc;
    leaf_reach_cull_make(cx, leaf, box, reach, &lc);
    __m128 x[9][4], valid[4];
    return cull_sse(t->tri_local + mc_bvh_leaf_first(leaf), mc_bvh_local_stride(t->triangle_count),
                    mc_bvh_leaf_count(leaf), box, &lc, x, valid);
}

#if MC_COLLIDE_AVX
// leaf_reach_cull through the AVX2 instance of the same kernel (two 8-lane registers for a leaf of 16: the same
// operations on every lane, so the same keep bits; collide_lanes.h).
__attribute__((target("avx2"))) static uint32_t
leaf_reach_cull_avx2(const collide_ctx* cx, const mc_bvh* t, const mc_bvh_node* leaf, const lane_box* box, double reach)
{
    leaf_cull lc;
    leaf_reach_cull_make(cx, leaf, box, reach, &lc);
    __m256 x[9][2], valid[2];
    return cull_avx2(t->tri_local + mc_bvh_leaf_first(leaf), mc_bvh_local_stride(t->triangle_count),
                     mc_bvh_leaf_count(leaf), box, &lc, x, valid);
}
#endif

// leaf_reach_cull on the widest kernel the context allows (the same bits on each).
static inline uint32_t leaf_reach_cull_lanes(const collide_ctx* cx, const mc_bvh* t, const mc_bvh_node* leaf,
                                             const lane_box* box, double reach)
{
#if MC_COLLIDE_AVX
    if (cx->lanes == 2)
    {
        return leaf_reach_cull_avx2(cx, t, leaf, box, reach);
    }
#endif
    return leaf_reach_cull(cx, t, leaf, box, reach);
}
#endif

// Record a leaf pair at the query's pose, `offset` away from the front's pose: every triangle pair whose gap bound
// (leaf_pair_gap) is within margin + offset goes to its near list with its own gap from the front's pose
// (gap_from_front), and is tested when its triangles are not apart now; the others' smallest gap bound, from the
// front's pose, is the entry's gap (above `margin`). Triangles apart cannot cross, so every crossing pair is in the
// near list and tested. @return 0 on allocation failure.
//
// First I's triangles are culled against J's leaf box and J's against I's, on lanes (leaf_reach_cull, with a reach
// 2^-20 wider than margin + offset, so that the gap it certifies is, from the front's pose, above the margin): the
// pairs of a culled triangle are farther apart than that reach, and are left out (only that bound enters the entry's
// gap); J's side is culled only when some I triangle is kept, and only the triangles kept are loaded and boxed. Then
// the J triangles kept have their boxes joined into one: an I triangle's box gap to that union is at most its box
// gap to each of them (the same differences of smaller or equal operands, and rounding is monotonic), so a triangle
// whose union gap (less the slack) exceeds the reach has no near pair; its row is only looked at for the entry's gap,
// and skipped when the union gap already reaches the smallest gap found. Normals are computed for the triangles of the
// pairs whose boxes are within reach only.
static int leaf_record(const collide_ctx* cx, pair_worker* w, uint32_t a, uint32_t b, double margin, double offset)
{
    struct mc_pair_scratch* s = cx->scratch;
    leaf_tris lt;
    leaf_tris_init(cx, a, b, &lt);
    uint32_t ni = lt.count[0], nj = lt.count[1];
    double far = INFINITY, reach = margin + offset, slack = 4.0 * cx->abs_slack;
    uint32_t all_i = (1u << ni) - 1u, all_j = (1u << nj) - 1u; // (counts <= MC_BVH_LEAF_MAX = 16)
    uint32_t rows = all_i, cols = all_j;
#if defined(__SSE2__)
    double wide = reach * (1.0 + 0x1p-20);
    const mc_bvh_node* na = &cx->ta->nodes[a];
    const mc_bvh_node* nb = &cx->tb->nodes[b];
    lane_box other; // the other leaf's box
    lane_box_map(cx, nb, 1, &other);
    rows = leaf_reach_cull_lanes(cx, cx->ta, na, &other, wide);
    if (rows != 0)
    {
        lane_box_map(cx, na, 0, &other);
        cols = leaf_reach_cull_lanes(cx, cx->tb, nb, &other, wide);
    }
    if (rows != all_i || cols != all_j)
    {
        far = wide;
    }
#endif
    for (uint32_t m = rows; cols != 0 && m != 0; m &= m - 1u)
    {
        leaf_tri_box(cx, &lt, 0, (uint32_t)__builtin_ctz(m));
    }
    for (uint32_t q = 0; rows != 0 && q < nj; ++q)
    {
        if ((cols >> q & 1u) != 0)
        {
            leaf_tri_box(cx, &lt, 1, q);
            continue;
        }
        for (int c = 0; c < 3; ++c)
        {
            lt.lo[1][c][q] = INFINITY; // an empty box: its box gaps are infinite (the rows skip it)
            lt.hi[1][c][q] = -INFINITY;
        }
    }
    uint32_t start = s->pool_count;
    if (rows == 0 || cols == 0)
    {
        return front_push(s, a, b, gap_from_front(far, offset), start, 0);
    }
    for (uint32_t q = nj; q < ((nj + 3u) & ~3u); ++q) // empty boxes up to a multiple of four (leaf_row_scan_avx2)
    {
        for (int c = 0; c < 3; ++c)
        {
            lt.lo[1][c][q] = INFINITY;
            lt.hi[1][c][q] = -INFINITY;
        }
    }
    if (!pool_reserve(s, ni * nj))
    {
        return 0;
    }
    double ulo[3], uhi[3]; // the union box of J's triangles left
    for (int c = 0; c < 3; ++c)
    {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t m = cols; m != 0; m &= m - 1u)
        {
            uint32_t t = (uint32_t)__builtin_ctz(m);
            lo = lt.lo[1][c][t] < lo ? lt.lo[1][c][t] : lo;
            hi = lt.hi[1][c][t] > hi ? lt.hi[1][c][t] : hi;
        }
        ulo[c] = lo;
        uhi[c] = hi;
    }
    double box[MC_BVH_LEAF_MAX], row_gap[MC_BVH_LEAF_MAX];
    uint32_t apart = 0; // rows whose union gap leaves no pair within reach
    for (uint32_t rm = rows; rm != 0; rm &= rm - 1u)
    {
        uint32_t p = (uint32_t)__builtin_ctz(rm);
        double u = -INFINITY;
        for (int c = 0; c < 3; ++c)
        {
            u = gap_max(u, gap_max(ulo[c] - lt.hi[0][c][p], lt.lo[0][c][p] - uhi[c]));
        }
        row_gap[p] = u - slack;
        if (row_gap[p] > reach)
        {
            apart |= 1u << p;
            continue;
        }
        // A box gap past the reach decides (leaf_pair_gap would return it, less the slack): the row's smallest such
        // gap and the pairs left (without a branch per pair), then those in order.
        double row_far = INFINITY;
        uint32_t left = 0;
#if MC_COLLIDE_AVX
        if (cx->lanes == 2)
        {
            left = leaf_row_scan_avx2(&lt, p, slack, reach, box, &row_far);
        }
        else
#endif
        {
            leaf_row_boxes(&lt, p, box);
            for (uint32_t q = 0; q < nj; ++q)
            {
                double d = box[q] - slack;
                left |= (uint32_t) !(d > reach) << q;
                d = d > reach ? d : INFINITY;
                row_far = d < row_far ? d : row_far;
            }
        }
        far = row_far < far ? row_far : far;
        for (; left != 0; left &= left - 1u)
        {
            uint32_t q = (uint32_t)__builtin_ctz(left);
            leaf_tri_normal(&lt, 0, p);
            leaf_tri_normal(&lt, 1, q);
            double g = leaf_pair_gap(cx, &lt, p, q, box[q], reach);
            if (g > reach)
            {
                far = g < far ? g : far;
                continue;
            }
            // A pair apart now (g > 0) cannot cross: it is only listed, with its own gap (looked at again once the
            // motion reaches it, leaf_near); the others are tested.
            s->pool_gap[s->pool_count] = g > 0.0 ? gap_from_front(g, offset) : 0.0f;
            s->pool[s->pool_count++] = (uint8_t)(p << 4 | q);
            if (!(g > 0.0) && !leaf_tris_test(cx, w, &lt, p, q))
            {
                return 0;
            }
        }
    }
    // The rows apart: only their smallest box gap to the J triangles left (less the slack, as leaf_pair_gap returns
    // it; the empty boxes give none) can lower the entry's gap, and none of them is below its row's union gap.
    for (; apart != 0; apart &= apart - 1u)
    {
        uint32_t p = (uint32_t)__builtin_ctz(apart);
        if (!(row_gap[p] < far))
        {
            continue;
        }
        leaf_row_boxes(&lt, p, box);
        double m = INFINITY;
        for (uint32_t q = 0; q < nj; ++q)
        {
            m = box[q] < m ? box[q] : m;
        }
        m -= slack;
        far = m < far ? m : far;
    }
    return front_push(s, a, b, gap_from_front(far, offset), start, s->pool_count - start);
}

static double pose_motion(const collide_ctx* cx, const double rot[3][3], const double trans[3], double radius);

// A near-list pair's stored gap (pool_gap) has one of three forms, so that a pair near the contact, looked at every
// few queries, is not measured against the whole motion since the front's pose (which grows with the front's age and
// would keep every such pair looked at once it exceeds their gaps):
// - g >= 0: a gap bound from the front's pose (as the leaf entries' gaps);
// - g < 0: a gap bound h from one of the front's anchors (mc_pair_front.anchor_rot: the poses of the last NEAR_ANCHORS
//   queries that looked at every near list), encoded as -h with the anchor's slot in the three low bits of the float
//   (cleared first: h rounded towards zero, still a bound; near_anchored);
// - NaN: the pair crossed at its last look (tested at once: it most likely still does).
// A gap bound g_now measured at the query's pose, `motion` away from the front's pose, is stored from the front's pose
// (g_now - motion) when that keeps at least half of it, else from this pose (the anchor of the query's walk). A gap
// from an anchor keeps its pair apart while the motion from that anchor stays below it: under a random walk that motion
// grows as the square root of the queries, where a gap decreased by every query's step (what a single anchor moved at
// every query needs) is used up linearly. When a walk replaces the oldest anchor, the gaps kept from it are moved to
// the walk's pose (less the motion between the two: leaf_near), so an anchored gap loses the motion of
// NEAR_ANCHORS queries at once, about sqrt(NEAR_ANCHORS) steps instead of NEAR_ANCHORS.
static inline float near_anchored(float h, uint32_t slot)
{
    uint32_t b;
    memcpy(&b, &h, sizeof b);
    b = (b & ~7u) | slot | 0x80000000u;
    float g;
    memcpy(&g, &b, sizeof g);
    return g;
}

float mc_collide_near_anchored(float h, uint32_t slot)
{
    return near_anchored(h, slot);
}

// The gap bound h of an anchored gap g (g < 0; near_anchored), and its anchor's slot in *slot.
static inline double near_anchor_gap(float g, uint32_t* slot)
{
    uint32_t b;
    memcpy(&b, &g, sizeof b);
    *slot = b & 7u;
    b &= 0x7ffffff8u;
    float h;
    memcpy(&h, &b, sizeof h);
    return (double)h;
}

_Static_assert(NEAR_ANCHORS <= 8u, "an anchor's slot is kept in three bits of its gaps");

/// What a near-list walk compares the stored gaps with (see near_gap_store).
typedef struct near_motion
{
    double front;                // the motion from the front's pose (the gaps g >= 0)
    uint32_t slot;               // the walk's anchor slot: the anchor it replaces, and the one it stores gaps at
    double anchor[NEAR_ANCHORS]; // the motion from each anchor, measured on first use (negative: not yet)
    const collide_ctx* cx;       // (for pose_motion)
    const mc_pair_front* f;      // the front
    double radius;               // J's radius (pose_motion)
    bool skip_ready;             // skip_front and skip_anchor are set (near_skip_thresholds)
    float skip_front;            // front, rounded down to a float (float_down)
    float skip_anchor[8];        // per slot, the anchor's motion so rounded (+INFINITY: never skipped)
} near_motion;

// The motion from anchor `slot` (measured once per walk; INFINITY for a slot no walk wrote).
static double near_anchor_motion(near_motion* nm, uint32_t slot)
{
    if (nm->anchor[slot] < 0.0)
    {
        nm->anchor[slot] = slot < nm->f->anchor_walks ? pose_motion(nm->cx, (const double(*)[3])nm->f->anchor_rot[slot],
                                                                    nm->f->anchor_trans[slot], nm->radius)
                                                      : INFINITY;
    }
    return nm->anchor[slot];
}

// The stored form of a gap bound g measured at the walk's pose (see above).
static inline float near_gap_store(double g, const near_motion* nm)
{
    double left = (g - nm->front) - 1e-15 * g;
    if (left >= 0.5 * g)
    {
        return gap_down(left);
    }
    float here = gap_down(g - 1e-15 * g);
    return here > 0.0f ? near_anchored(here, nm->slot) : 0.0f;
}

// A near-list pair whose stored gap (*gap) does not keep it apart: crossed at its last look, a gap from the front's
// pose not above `motion`, or a gap from the near pose not above `step` (the motion from the near pose). Its gap bound
// at the query's pose, g_now, is computed first unless it crossed; when positive the triangles are apart (no test)
// and the gap is stored (near_gap_store); otherwise they are tested, and the gap is NaN when they cross, else 0
// (looked at again by the next query). @return 0 on allocation failure.
static int near_pair_refresh(const collide_ctx* cx, pair_worker* w, leaf_tris* lt, uint32_t p, uint32_t q,
                             const near_motion* nm, float* gap)
{
    if (*gap == *gap)
    {
        cx->scratch->near_measures++;
        leaf_tri_bound(cx, lt, 0, p);
        leaf_tri_bound(cx, lt, 1, q);
        double g = leaf_pair_gap_planes(cx, lt, p, q, INFINITY);
        if (!(g > 0.0))
        {
            g = edge_axes_gap_lanes(cx, lt, p, q) - 4.0 * cx->abs_slack;
        }
        if (g > 0.0)
        {
            *gap = near_gap_store(g, nm);
            return 1;
        }
    }
    uint32_t crossing = w->pair_count, coplanar = w->coplanar_count;
    if (!leaf_tris_test(cx, w, lt, p, q))
    {
        return 0;
    }
    *gap = w->pair_count != crossing || w->coplanar_count != coplanar ? NAN : 0.0f;
    return 1;
}

static inline int near_entry(const collide_ctx* cx, pair_worker* w, leaf_tris* lt, const uint8_t* list, float* gap,
                             uint32_t k, near_motion* nm, bool flagged);

#if MC_COLLIDE_AVX
// near_attention's eight lanes (lanes n..7 are not loaded: their bits are cleared by the caller).
__attribute__((target("avx2"))) static uint32_t near_attention_avx2(const near_motion* nm, const float* g, uint32_t n)
{
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i load = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lane);
    __m256 gv = _mm256_maskload_ps(g, load);
    __m256i bits = _mm256_castps_si256(gv);
    __m256 anchor =
        _mm256_permutevar8x32_ps(_mm256_loadu_ps(nm->skip_anchor), _mm256_and_si256(bits, _mm256_set1_epi32(7)));
    __m256 h = _mm256_castsi256_ps(_mm256_and_si256(bits, _mm256_set1_epi32(0x7ffffff8)));
    __m256 skip_front = _mm256_cmp_ps(gv, _mm256_set1_ps(nm->skip_front), _CMP_GT_OQ);
    __m256 skip_anchor = _mm256_cmp_ps(h, anchor, _CMP_GT_OQ);
    __m256 skip = _mm256_blendv_ps(skip_front, skip_anchor, gv); // by the sign bit: anchored gaps are negative
    return ~(uint32_t)_mm256_movemask_ps(skip);
}
#endif

// True when a near-list pair's stored gap g keeps it apart at the walk's pose: a gap from the front's pose above the
// motion from there, or a gap from another anchor than the walk's above the motion from that anchor.
static inline bool near_keeps_apart(float g, near_motion* nm)
{
    if ((double)g > nm->front)
    {
        return true;
    }
    if (!(g < 0.0f))
    {
        return false;
    }
    uint32_t slot;
    double h = near_anchor_gap(g, &slot);
    return slot != nm->slot && h > near_anchor_motion(nm, slot);
}

#if MC_COLLIDE_AVX
// The largest float at most x: for a float g, g > x exactly when g > float_down(x) (a float above float_down(x) is at
// least the next float, which is above x unless x is that float itself).
static inline float float_down(double x)
{
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

// The float thresholds of a walk's skips (near_motion.skip_front, skip_anchor): every anchor's motion is measured.
static void near_skip_thresholds(near_motion* nm)
{
    nm->skip_front = float_down(nm->front);
    for (uint32_t a = 0; a < 8u; ++a)
    {
        nm->skip_anchor[a] =
            a < front_anchor_count() && a != nm->slot ? float_down(near_anchor_motion(nm, a)) : INFINITY;
    }
    nm->skip_ready = true;
}
#endif

// Bit k set for each of the n <= 8 gaps g[k] of a near list that the walk looks at: exactly those near_keeps_apart
// does not keep apart (a gap from the front's pose skips when it exceeds the motion, an anchored one when its slot is
// not the walk's and its bound exceeds that anchor's motion: float gaps against the motions rounded down to floats,
// float_down, the same comparisons; a crossed pair's NaN never skips). On AVX2 eight gaps at once without a branch
// per gap (A/B in one alternated run, 100 calls of 1000 drifting spheres: the median step from 0.501-0.513x to
// 0.473-0.492x of a stateless query); elsewhere every entry, for near_entry to decide.
static inline uint32_t near_attention(const collide_ctx* cx, near_motion* nm, const float* g, uint32_t n)
{
    uint32_t all = (1u << n) - 1u; // (n <= 8)
#if MC_COLLIDE_AVX
    if (cx->lanes == 2)
    {
        if (!nm->skip_ready)
        {
            near_skip_thresholds(nm);
        }
        return near_attention_avx2(nm, g, n) & all;
    }
#else
    (void)cx;
    (void)nm;
    (void)g;
#endif
    return all;
}

uint32_t mc_collide_near_attention(const float* gap, uint32_t n, double front, const double anchor[4], uint32_t slot,
                                   int lanes)
{
    near_motion nm = {0};
    nm.front = front;
    nm.slot = slot;
    for (uint32_t a = 0; a < NEAR_ANCHORS; ++a)
    {
        nm.anchor[a] = a < 4u ? anchor[a] : INFINITY;
    }
    n = n < 8u ? n : 8u;
    uint32_t mask = 0;
#if MC_COLLIDE_AVX
    if (lanes == 2 && mc_collide_lanes_available() == 2)
    {
        near_skip_thresholds(&nm);
        return near_attention_avx2(&nm, gap, n) & ((1u << n) - 1u);
    }
#else
    (void)lanes;
#endif
    for (uint32_t k = 0; k < n; ++k)
    {
        mask |= (uint32_t)!near_keeps_apart(gap[k], &nm) << k;
    }
    return mask;
}

// A kept leaf entry: only its near list is looked at (its other triangle pairs are still apart), and in it only the
// pairs whose own gap does not keep them apart after the motion since the front's pose or since their anchor
// (near_entry: near_pair_refresh, which may raise their gap), picked eight at a time (near_attention); a gap kept from
// the anchor this walk replaces (its slot) moves to the walk's pose, less the motion between the two, while it stays
// positive. @return 0 on allocation failure.
static int leaf_near(const collide_ctx* cx, pair_worker* w, mc_pair_front* f, const front_entry* e, near_motion* nm)
{
    if (e->near_count == 0)
    {
        return 1; // an empty list: the pool may be unallocated (NULL)
    }
    leaf_tris lt;
    leaf_tris_init(cx, e->a, e->b, &lt);
    const uint8_t* list = f->pool + e->near;
    float* gap = f->pool_gap + e->near;
    bool exact = MC_COLLIDE_AVX && cx->lanes == 2; // near_attention: near_keeps_apart's mask on AVX2, else all
    for (uint32_t k0 = 0; k0 < e->near_count; k0 += 8u)
    {
        uint32_t todo = near_attention(cx, nm, gap + k0, e->near_count - k0 < 8u ? e->near_count - k0 : 8u);
        for (; todo != 0; todo &= todo - 1u)
        {
            if (!near_entry(cx, w, &lt, list, gap, k0 + (uint32_t)__builtin_ctz(todo), nm, exact))
            {
                return 0;
            }
        }
    }
    return 1;
}

// Entry k of a near list (leaf_near): skipped while its gap keeps it apart (`flagged`: near_attention found it does
// not, exactly), else refreshed. @return 0 on allocation failure.
static inline int near_entry(const collide_ctx* cx, pair_worker* w, leaf_tris* lt, const uint8_t* list, float* gap,
                             uint32_t k, near_motion* nm, bool flagged)
{
    float g = gap[k];
    if (!flagged && near_keeps_apart(g, nm))
    {
        return 1;
    }
    uint32_t slot = 0;
    double h = g < 0.0f ? near_anchor_gap(g, &slot) : 0.0;
    if (g < 0.0f && slot == nm->slot)
    {
        double m = near_anchor_motion(nm, slot);
        double left = (h - m) - 1e-15 * h;
        float here = left > 0.0 ? gap_down(left) : 0.0f;
        if (here > 0.0f)
        {
            gap[k] = near_anchored(here, slot);
            return 1;
        }
    }
    return near_pair_refresh(cx, w, lt, list[k] >> 4, list[k] & 15u, nm, &gap[k]);
}

// The children pairs (a[l], b[l]), l < 4, of a front descent: bit l set when their boxes are farther apart than
// `wide`. On SSE2 the plain traversal's lane box test (sat_soa, its inputs built as batch_flush_dir builds them: I's
// nodes as they are, J's mapped into I's frame) with a context cx whose absolute float slack has wide (1 + 1e-5) added
// (front_descend): an axis separates when the projected gap exceeds the rounding slack plus that, so the boxes are
// farther apart than `wide` (the 1e-5 covers the rounding of the widened slack to float and the axes' lengths: face
// axes within 1e-6 of unit length, cross products at most that). Elsewhere box_gap, one pair at a time.
#if defined(__SSE2__)
// The lane box test's inputs for the children pairs (a[l], b[l]) of front_apart.
static inline void front_lanes(const collide_ctx* cx, const uint32_t a[4], const uint32_t b[4], sat_lanes* in)
{
    const mc_bvh_node* n = cx->ta->nodes;
    nodes_soa(&n[a[0]], &n[a[1]], &n[a[2]], &n[a[3]], in->a);
    __m128d cen[2][3];
    map_other(cx, cx->tb, b, 1, in->bs, in->ebs, cen);
    in->b = in->bs;
    in->eb = in->ebs;
    for (int c = 0; c < 3; ++c)
    {
        __m128d d01 = _mm_sub_pd(cen[0][c], _mm_cvtps_pd(in->a[9 + c]));
        __m128d d23 = _mm_sub_pd(cen[1][c], _mm_cvtps_pd(_mm_movehl_ps(in->a[9 + c], in->a[9 + c])));
        in->d[c] = _mm_movelh_ps(_mm_cvtpd_ps(d01), _mm_cvtpd_ps(d23));
    }
}
#endif

static uint32_t front_apart(const collide_ctx* cx, const uint32_t a[4], const uint32_t b[4], double wide)
{
#if defined(__SSE2__)
    (void)wide;
    sat_lanes in;
    front_lanes(cx, a, b, &in);
    return (uint32_t)sat_soa(cx, &in);
#else
    uint32_t apart = 0;
    for (int l = 0; l < 4; ++l)
    {
        mapped_box mb;
        map_j_box(cx->scratch, &cx->tb->nodes[b[l]], &mb);
        apart |= (uint32_t)(box_gap(cx, &cx->ta->nodes[a[l]], &mb, wide) > wide) << l;
    }
    return apart;
#endif
}

#if MC_COLLIDE_AVX
// front_apart on two groups of four children pairs (a[4h + l], b[4h + l]) at once, through sat_soa8 (AVX2 machines):
// bit 4h + l, the same bits as front_apart on each group (sat_soa8's lanes are sat_soa's).
static uint32_t front_apart8(const collide_ctx* cx, const uint32_t a[8], const uint32_t b[8])
{
    sat_lanes in[2];
    front_lanes(cx, a, b, &in[0]);
    front_lanes(cx, a + 4, b + 4, &in[1]);
    return (uint32_t)sat_soa8(cx, &in[0], &in[1]);
}
#endif

// The children pairs of a node pair that is not two leaves, split as expand_level splits it, in lanes ca[l], cb[l]
// (lanes past the count repeat the last pair: tested, not used). @return their count (2 or 4).
static inline int front_split(const collide_ctx* cx, node_pair np, uint32_t ca[4], uint32_t cb[4])
{
    const mc_bvh_node* na = &cx->ta->nodes[np.a];
    const mc_bvh_node* nb = &cx->tb->nodes[np.b];
    int la = mc_bvh_is_leaf(na), lb = mc_bvh_is_leaf(nb);
    float sa = node_size(na), sb = node_size(nb);
    bool both = !la && !lb && sa <= BOTH_RATIO * sb && sb <= BOTH_RATIO * sa && similar_volumes(na, nb);
    bool split_a = both || (!la && (lb || sa >= sb));
    bool split_b = both || !split_a;
    int n = 0;
    for (uint32_t x = 0; x < (split_a ? 2u : 1u); ++x)
    {
        for (uint32_t y = 0; y < (split_b ? 2u : 1u); ++y)
        {
            ca[n] = split_a ? na->data + x : np.a;
            cb[n++] = split_b ? nb->data + y : np.b;
        }
    }
    for (int l = n; l < 4; ++l)
    {
        ca[l] = ca[n - 1];
        cb[l] = cb[n - 1];
    }
    return n;
}

// Descend from node pair (a, b) at the current pose, `offset` away from the front's pose, depth first, as expand_level
// splits the pairs: a pair whose boxes are farther apart than the reach margin + offset (2^-20 wider, front_apart)
// becomes an entry, with that reach as its gap from the front's pose (gap_from_front: above `margin`), a leaf pair
// within it is recorded (leaf_record), an internal pair is split and its children pairs tested together (with those of
// the next split pair on the stack, on AVX2 machines: front_apart8; the entries and leaf pairs then come in another
// order, the same set). New entries go to the scratch's fresh entries. @return 0 on allocation failure.
static int front_descend(const collide_ctx* cx_in, pair_worker* w, uint32_t a0, uint32_t b0, double margin,
                         double offset)
{
    struct mc_pair_scratch* s = cx_in->scratch;
    double wide = (margin + offset) * (1.0 + 0x1p-20);
    float entry = gap_from_front(wide, offset);
#if defined(__SSE2__)
    collide_ctx widened = *cx_in; // the lane box test's slack, widened (front_apart)
    widened.slack_rel_f = (float)cx_in->box_rel_slack;
    widened.slack_abs_f = (float)(cx_in->abs_slack + wide * (1.0 + 1e-5));
    const collide_ctx* cx = &widened;
#else
    const collide_ctx* cx = cx_in;
#endif
    pair_vec* stack = &w->stack; // the traversal's stack (unused by a front query otherwise)
    if (!pair_vec_reserve(stack, 64u))
    {
        return 0;
    }
    const uint32_t ra[4] = {a0, a0, a0, a0}, rb[4] = {b0, b0, b0, b0};
    w->box_tests += 1u;
    if ((front_apart(cx, ra, rb, wide) & 1u) != 0)
    {
        return front_push(s, a0, b0, entry, FRONT_NODE, 0);
    }
    uint32_t top = 0;
    stack->data[top++] = (node_pair){a0, b0};
    while (top > 0)
    {
        node_pair np = stack->data[--top];
        const mc_bvh_node* na = &cx->ta->nodes[np.a];
        const mc_bvh_node* nb = &cx->tb->nodes[np.b];
        int ok = 1;
        if (mc_bvh_is_leaf(na) && mc_bvh_is_leaf(nb))
        {
            ok = leaf_record(cx, w, np.a, np.b, margin, offset);
        }
        else if (!pair_vec_reserve(stack, top + 8u))
        {
            ok = 0;
        }
        else
        {
            // The children pairs of np in lanes 0-3 and, on AVX2 machines when the next pair on the stack is split
            // too, those of that pair in lanes 4-7 (tested together); their pairs apart become entries (np's first),
            // the others go on the stack (np's on top, visited first, as when split alone).
            uint32_t ca[8], cb[8];
            int n[2] = {front_split(cx, np, ca, cb), 0};
            int groups = 1;
#if MC_COLLIDE_AVX
            if (cx->lanes == 2 && top > 0 &&
                !(mc_bvh_is_leaf(&cx->ta->nodes[stack->data[top - 1u].a]) &&
                  mc_bvh_is_leaf(&cx->tb->nodes[stack->data[top - 1u].b])))
            {
                n[1] = front_split(cx, stack->data[--top], ca + 4, cb + 4);
                groups = 2;
            }
#endif
            w->box_tests += (uint32_t)(n[0] + n[1]);
            uint32_t apart;
#if MC_COLLIDE_AVX
            if (groups == 2)
            {
                apart = front_apart8(cx, ca, cb);
            }
            else
#endif
            {
                apart = front_apart(cx, ca, cb, wide);
            }
            for (int h = 0; h < groups && ok; ++h)
            {
                for (int l = 4 * h; l < 4 * h + n[h] && ok; ++l)
                {
                    if ((apart >> l & 1u) != 0)
                    {
                        ok = front_push(s, ca[l], cb[l], entry, FRONT_NODE, 0);
                    }
                }
            }
            for (int h = groups - 1; h >= 0 && ok; --h)
            {
                for (int l = 4 * h; l < 4 * h + n[h]; ++l)
                {
                    if ((apart >> l & 1u) == 0)
                    {
                        stack->data[top++] = (node_pair){ca[l], cb[l]};
                    }
                }
            }
        }
        if (!ok || w->failed)
        {
            return 0;
        }
    }
    return 1;
}

// Bound of how far any point of J's mesh (body frame: |p| <= radius) can have moved in I's frame between the front's
// pose and the query's: |(R1 - R0) p + (t1 - t0)| <= ||R1 - R0||_F radius + |t1 - t0|, rounded up (the relative
// 1e-9 covers the rounding of these few operations; the absolute slack the rounding of J's mapped vertices), then
// scaled by 1 + 1e-6 for the float box axes (front_apart, leaf_reach_cull).
static double pose_motion(const collide_ctx* cx, const double rot[3][3], const double trans[3], double radius)
{
    const struct mc_pair_scratch* s = cx->scratch;
    double r2 = 0.0, t2 = 0.0;
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            double x = s->rot[i][k] - rot[i][k];
            r2 += x * x;
        }
        double y = s->trans[i] - trans[i];
        t2 += y * y;
    }
    double m = sqrt(r2) * radius + sqrt(t2);
    return (m * (1.0 + 1e-9) + 2.0 * cx->abs_slack) * (1.0 + 1e-6);
}

static double front_motion(const collide_ctx* cx, const mc_pair_front* f, double radius)
{
    return pose_motion(cx, (const double(*)[3])f->rot, f->trans, radius);
}

// Room for `need` items of `elem` bytes in one of a front's arrays, the first `keep` kept. A front is kept per pair of
// bodies (tens of thousands in a pile), so its arrays are sized to the pair: exactly `need` plus an eighth (and 8
// items) when they grow, not doubled, and an array holding more than half as much again as it needs when nothing is
// kept (a recording from the roots) is allocated again at that size (a front recorded at rest after a motion would
// otherwise hold the motion's peak). @return false on allocation failure (array and capacity unchanged).
static bool front_reserve(void** data, uint32_t* cap, uint64_t need, uint32_t keep, size_t elem)
{
    if (need <= *cap && (keep > 0u || *cap - need <= need / 2u + 8u))
    {
        return true;
    }
    uint64_t size = need + need / 8u + 8u;
    if (size > UINT32_MAX || size > SIZE_MAX / elem)
    {
        return false;
    }
    void* p;
    if (keep > 0u)
    {
        p = mc_realloc(*data, (size_t)size * elem);
    }
    else
    {
        p = mc_alloc((size_t)size * elem); // nothing to copy
        if (p != NULL)
        {
            mc_free(*data);
        }
    }
    if (p == NULL)
    {
        return false;
    }
    *data = p;
    *cap = (uint32_t)size;
    return true;
}

// The new front: the kept leaf entries and node pairs (the first `kept_leaves` and `kept_nodes`, compacted) followed by
// the scratch's fresh ones, whose near lists are appended to the front's pool after its first `keep_pool` bytes (all
// 0 when the front is recorded from the roots). Leaf entries and node pairs are kept apart: a quiet query walks only
// the leaf entries, and a node pair needs no near list. @return 0 on allocation failure.
static int front_finish(const struct mc_pair_scratch* s, mc_pair_front* f, uint32_t kept_leaves, uint32_t kept_nodes,
                        uint32_t keep_pool)
{
    // A leaf pair whose near list is empty (every triangle pair apart by more than the margin) is kept as a node pair:
    // only its gap matters (a quiet query has nothing to look at in it, and a query past its gap descends it again
    // from its node pair either way), so the quiet walk does not read it (a sphere pair on 1000 drifting spheres:
    // 29 of its 42 leaf entries).
    uint32_t fresh_leaves = 0;
    for (uint32_t k = 0; k < s->fresh_count; ++k)
    {
        fresh_leaves += s->fresh[k].near != FRONT_NODE && s->fresh[k].near_count > 0u;
    }
    uint64_t pool = (uint64_t)keep_pool + s->pool_count;
    if (pool > UINT32_MAX ||
        !front_reserve((void**)&f->entries, &f->capacity, (uint64_t)kept_leaves + fresh_leaves, kept_leaves,
                       sizeof *f->entries) ||
        !front_reserve((void**)&f->nodes, &f->node_cap, (uint64_t)kept_nodes + (s->fresh_count - fresh_leaves),
                       kept_nodes, sizeof *f->nodes) ||
        !front_reserve((void**)&f->pool, &f->pool_cap, pool, keep_pool, 1) ||
        !front_reserve((void**)&f->pool_gap, &f->pool_gap_cap, pool, keep_pool, sizeof(float)))
    {
        return 0;
    }
    // The smallest gap of all entries.
    float min_gap = INFINITY;
    for (uint32_t k = 0; k < kept_leaves; ++k)
    {
        min_gap = f->entries[k].gap < min_gap ? f->entries[k].gap : min_gap;
    }
    for (uint32_t k = 0; k < kept_nodes; ++k)
    {
        min_gap = f->nodes[k].gap < min_gap ? f->nodes[k].gap : min_gap;
    }
    uint32_t leaves = kept_leaves, nodes = kept_nodes;
    for (uint32_t k = 0; k < s->fresh_count; ++k)
    {
        front_entry e = s->fresh[k];
        min_gap = e.gap < min_gap ? e.gap : min_gap;
        if (e.near == FRONT_NODE || e.near_count == 0u)
        {
            f->nodes[nodes++] = (front_node){e.a, e.b, e.gap};
        }
        else
        {
            e.near += keep_pool;
            f->entries[leaves++] = e;
        }
    }
    if (s->pool_count > 0)
    {
        memcpy(f->pool + keep_pool, s->pool, s->pool_count);
        memcpy(f->pool_gap + keep_pool, s->pool_gap, (size_t)s->pool_count * sizeof(float));
    }
    f->leaf_count = leaves;
    f->node_count = nodes;
    f->count = leaves + nodes;
    f->pool_count = (uint32_t)pool;
    f->min_gap = min_gap;
    return 1;
}

// The query through the front, `motion` away from its pose (front_motion), when some entry's gap does not exceed
// it: the front keeps its pose and gaps; entries whose gap exceeds the motion stay (leaf entries look at their near
// lists, leaf_near), the others are descended again from their node pair at this pose with the front's margin
// (front_descend: their new gaps are from the front's pose, above the margin). @return 0 on allocation failure.
static int front_update(const collide_ctx* cx, pair_worker* w, mc_pair_front* f, near_motion* nm)
{
    double motion = nm->front;
    uint32_t kept_leaves = 0, kept_nodes = 0;
    for (uint32_t k = 0; k < f->leaf_count; ++k)
    {
        front_entry e = f->entries[k];
        if ((double)e.gap > motion)
        {
            if (!leaf_near(cx, w, f, &e, nm))
            {
                return 0;
            }
            f->entries[kept_leaves++] = e;
        }
        else if (!front_descend(cx, w, e.a, e.b, f->margin, motion))
        {
            return 0;
        }
    }
    for (uint32_t k = 0; k < f->node_count; ++k)
    {
        front_node e = f->nodes[k];
        if ((double)e.gap > motion)
        {
            f->nodes[kept_nodes++] = e;
        }
        else if (!front_descend(cx, w, e.a, e.b, f->margin, motion))
        {
            return 0;
        }
    }
    return front_finish(cx->scratch, f, kept_leaves, kept_nodes, f->pool_count);
}

// ---------------------------------------------------------------------------------------------------------------
// Certified reuse of the triangle tests under small motion
//
// A quiet front query (every entry's gap above the motion m_f since the front's pose) tests exactly the front's near
// lists, and a triangle pair's result is a function of the signs of at most ten determinants: the six plane values
// (each corner of one triangle against the other's plane) and, when both triangles straddle, the four edge-edge
// values orient(p, q, w, s) of crossings_from_lonely (p, w the lonely corners, q and s the other corners of their
// triangles). Each is D = A . (B x C) with A, B, C differences of the four points. Rule, at a query that ran the tests
// (its pose P_c): for every determinant its float value D_f, the filter bound E of predicates.h (|D_f - D| <= E) and
// G = |D_f| - E > 0, a lower bound of |D|. If each point moves by less than m, each difference moves by less than 2m
// and |D' - D| < (|A| + 2m)(|B| + 2m)(|C| + 2m) - |A||B||C| <= 2m (|A||B| + |A||C| + |B||C| + L (|A| + |B| + |C|) +
// L^2) for 2m <= L = max(|A|, |B|, |C|), so D' keeps the sign of D (and is not zero) for every m below
// m_D = min(L, G / (...)) / 2 (less 1e-9 of it for the rounding of this bound). The pair's margin is the smallest m_D
// of the determinants that decide it: the three of a triangle whose corners are all on one side of the other's plane
// (the test returns 0 whatever the rest; the larger of the two triangles' margins when both are), else all ten. The
// query's margin is the smallest over every near-list pair (0 when a determinant has no G > 0: a filter that failed,
// an exactly degenerate triangle, a tie of the symbolic rule). I's vertices do not move in I's frame; J's float
// vertices move by less than pose_motion(P_c, P) (the front's bound, which covers the rounding of their mapping).
// So at a later quiet query whose motion from P_c is below the margin, every determinant of every near-list pair has
// the sign it had: every test returns the same count, edges, directions and order of its two crossings, with no
// degenerate flag, and no pair outside the near lists can cross (the front is quiet). The pairs of P_c's query, kept
// sorted without their points, are then this query's pairs; only the points are computed again, by the test's own
// operations: the crossed triangle's plane (mc_tri_plane_init on the same corners), the edge ends' plane values
// (mc_tri_plane_eval) and crossing_point. The test uses those float values when they pass their filter, which is
// checked (with their signs) at each replay: a value within its bound, or any other mismatch, abandons the replay
// and the near lists are tested as before. The output is bitwise the tests' (and hence a cold query's).

// m_D above for one determinant A . (B x C) of float value det and filter bound `bound`, from the lengths of A, B and
// C; 0 when |det| <= bound.
static double det_margin_len(double det, double bound, double la, double lb, double lc)
{
    double g = fabs(det) - bound;
    if (!(g > 0.0))
    {
        return 0.0;
    }
    double l = la > lb ? la : lb;
    l = lc > l ? lc : l;
    double den = la * lb + la * lc + lb * lc + l * (la + lb + lc) + l * l; // > 0: det != 0 needs non-zero vectors
    double m = g < l * den ? g / den : l;
    return 0.5 * m * (1.0 - 1e-9);
}

static inline double vec_len(mc_vec3 a)
{
    return sqrt(mc_dot(a, a));
}

// det_margin_len from the vectors.
static double det_margin(double det, double bound, mc_vec3 a, mc_vec3 b, mc_vec3 c)
{
    if (!(fabs(det) - bound > 0.0))
    {
        return 0.0;
    }
    return det_margin_len(det, bound, vec_len(a), vec_len(b), vec_len(c));
}

// The corners t of one triangle against the other's plane pl: their signs in s and the smallest m_D of the three
// plane values (B and C, the plane's edges, are the same for the three: their lengths are computed once, the same
// values det_margin computes).
static double side_margin(const mc_tri_plane* pl, const mc_vec3* t, int s[3])
{
    mc_vec3 b = mc_sub(pl->v[1], pl->v[0]), c = mc_sub(pl->v[2], pl->v[0]);
    double lb = -1.0, lc = -1.0; // not computed yet (a plane value within its bound needs neither)
    double m = INFINITY;
    for (int k = 0; k < 3; ++k)
    {
        double bound;
        double o = mc_tri_plane_eval(pl, &t[k], &bound);
        s[k] = sign_of(o);
        double md = 0.0;
        if (fabs(o) - bound > 0.0)
        {
            if (lb < 0.0)
            {
                lb = vec_len(b);
                lc = vec_len(c);
            }
            md = det_margin_len(o, bound, vec_len(mc_sub(t[k], pl->v[0])), lb, lc);
        }
        m = md < m ? md : m;
    }
    return m;
}

// The margin of near-list pair (p, q) of a leaf pair at the query's pose (see above), or any value >= cur when it is
// at least cur (the caller keeps the smallest: when I's corners are on one side of J's plane with margins >= cur,
// the pair's margin, the larger of the two sides' when J's are too, is >= cur, and J's side is not measured).
static double near_pair_margin(const collide_ctx* cx, leaf_tris* lt, uint32_t p, uint32_t q, double cur)
{
    const mc_tri_plane* pi = leaf_tri_plane(cx, lt, 0, p);
    const mc_tri_plane* pj = leaf_tri_plane(cx, lt, 1, q);
    const mc_vec3* ti = pi->v;
    const mc_vec3* tj = pj->v;
    int si[3], sj[3];
    double min_i = side_margin(pj, ti, si);
    bool one_i = si[0] == si[1] && si[1] == si[2];
    if (one_i && min_i >= cur)
    {
        return min_i;
    }
    double min_j = side_margin(pi, tj, sj);
    bool one_j = sj[0] == sj[1] && sj[1] == sj[2];
    if (one_i || one_j)
    {
        double a = one_i ? min_i : 0.0, b = one_j ? min_j : 0.0;
        return a > b ? a : b;
    }
    double m = min_i < min_j ? min_i : min_j;
    int k = si[0] == si[1] ? 2 : (si[0] == si[2] ? 1 : 0);
    int n = sj[0] == sj[1] ? 2 : (sj[0] == sj[2] ? 1 : 0);
    const mc_vec3* pp = &ti[k];
    mc_vec3 bw = mc_sub(tj[n], *pp);
    for (int x = 1; x <= 2 && m > 0.0; ++x)
    {
        mc_vec3 a = mc_sub(ti[(k + x) % 3], *pp);
        for (int y = 1; y <= 2 && m > 0.0; ++y)
        {
            const mc_vec3* sy = &tj[(n + y) % 3];
            edge_cross ec = edge_cross_make(bw, sy, pp);
            double det = a.x * ec.mx + a.y * ec.my + a.z * ec.mz;
            double perm = fabs(a.x) * ec.gx + fabs(a.y) * ec.gy + fabs(a.z) * ec.gz;
            double bound = perm >= MC_PRED_MIN_PERMANENT ? MC_PRED_O3D_BOUND * perm : INFINITY;
            double md = det_margin(det, bound, a, bw, mc_sub(*sy, *pp));
            m = md < m ? md : m;
        }
    }
    return m;
}

// The margin of the front's near lists at the query's pose (INFINITY when they are empty); as soon as it falls below
// `floor` (a certificate that would not be replayed), the smallest margin found so far (< floor).
static double front_certify(const collide_ctx* cx, const mc_pair_front* f, double floor)
{
    double margin = INFINITY;
    for (uint32_t k = 0; k < f->leaf_count && margin >= floor; ++k)
    {
        const front_entry* e = &f->entries[k];
        if (e->near_count == 0)
        {
            continue;
        }
        leaf_tris lt;
        leaf_tris_init(cx, e->a, e->b, &lt);
        const uint8_t* list = f->pool + e->near;
        for (uint32_t t = 0; t < e->near_count && margin >= floor; ++t)
        {
            double m = near_pair_margin(cx, &lt, list[t] >> 4, list[t] & 15u, margin);
            margin = m < margin ? m : margin;
        }
    }
    return margin;
}

#define CERT_BACKOFF_MAX 64u // most tested queries a pair skips keeping a certificate after its measures failed

// A measure that failed: the next tested queries keep no certificate (front_certify_begin).
static void front_certify_back_off(mc_pair_front* f)
{
    f->cert_backoff = f->cert_backoff >= CERT_BACKOFF_MAX / 2u ? CERT_BACKOFF_MAX : 2u * f->cert_backoff + 1u;
    f->cert_skip = f->cert_backoff;
}

// After a query that tested the front's near lists: its sorted pairs and pose are kept (front_keep_certified), the
// margin is not measured. It is measured lazily, by the first later quiet query that could replay them
// (front_try_replay), at that query's pose: a certificate that no quiet query asks for (under an integrator, a body
// that moves on before the next evaluation; a pair tested again) costs only the copy of its pairs. A measure that
// fails (margin below 1e-9 of J's radius: a near-degenerate configuration, which symmetric scenes make common; or
// below the motion since the kept pose) skips keeping a certificate for the next 1, 3, 7, ... up to CERT_BACKOFF_MAX
// tested queries of the pair (the measure costs a few tests per near-list pair: a pair that never replays would pay
// it at every quiet query). A replay resets the back-off. Skipping only loses replays, never correctness.
// The kept query's result carries the certificate's id (the region stage then keeps its plan there, for the replays
// to restore) unless the pair is backing off (its last measure failed); a certificate that holds then gives its id from
// its first replay on, which keeps the plan. After a measure that failed below 1e-9 of J's radius (a near-degenerate
// configuration, which small motions keep: the torus chain, every pair) the query measures at once, at its own pose, as
// before the lazy measure: such a measure stops at the first near-degenerate pair, cheaper than copying the pairs it
// would keep.
static void front_certify_begin(const collide_ctx* cx, mc_pair_front* f, double radius)
{
    f->cert_named = f->cert_backoff == 0u;
    f->cert_margin = 0.0;
    f->cert_pending = false;
    f->cert_keep = false;
    f->cert_now = 0.0;
    if (f->cert_skip > 0u)
    {
        f->cert_skip--;
        return;
    }
    if (f->cert_flat)
    {
        double m = front_certify(cx, f, 1e-9 * radius);
        if (!(m >= 1e-9 * radius))
        {
            front_certify_back_off(f);
            return;
        }
        f->cert_flat = false;
        f->cert_now = m;
    }
    f->cert_keep = true;
    memcpy(f->cert_rot, cx->scratch->rot, sizeof f->cert_rot);
    memcpy(f->cert_trans, cx->scratch->trans, sizeof f->cert_trans);
}

// Room for n certified pairs: exactly n plus an eighth when the arrays grow (a front is kept per pair of bodies, so
// its arrays are sized to the pair, not doubled). @return false on allocation failure.
static bool cert_reserve(mc_pair_front* f, uint32_t n)
{
    if (n <= f->cert_cap)
    {
        return true;
    }
    uint32_t cap = n + n / 8u;
    uint32_t* ij = mc_alloc_array(2u * (size_t)cap, sizeof *ij);
    uint8_t* meta = mc_alloc_array(cap, 1);
    if (ij == NULL || meta == NULL)
    {
        mc_free(ij);
        mc_free(meta);
        return false;
    }
    mc_free(f->cert_ij);
    mc_free(f->cert_meta);
    f->cert_ij = ij;
    f->cert_meta = meta;
    f->cert_cap = cap;
    return true;
}

// The sorted pairs of the query that front_certify_begin prepared, without their points: a pending certificate (none
// when one has a degenerate crossing, or on allocation failure).
static void front_keep_certified(mc_pair_front* f, const mc_triangle_pair* pairs, uint32_t n)
{
    bool keep = f->cert_keep;
    double now = f->cert_now;
    f->cert_keep = false;
    f->cert_now = 0.0;
    f->cert_margin = 0.0;
    f->cert_pending = false;
    f->cert_id = 0;
    if (!keep || !cert_reserve(f, n))
    {
        return;
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        uint8_t meta = 0;
        for (int c = 0; c < 2; ++c)
        {
            const mc_crossing* x = &pairs[k].crossing[c];
            if (x->degenerate || x->edge > 2u || x->body > 1u)
            {
                return;
            }
            meta |= (uint8_t)((x->body | x->edge << 1 | (x->entering > 0) << 3) << (4 * c));
        }
        f->cert_ij[2u * k] = pairs[k].i;
        f->cert_ij[2u * k + 1u] = pairs[k].j;
        f->cert_meta[k] = meta;
    }
    f->cert_count = n;
    f->cert_margin = now;
    f->cert_pending = !(now > 0.0);
    f->cert_id = ++f->cert_serial;
}

// Planes of J's triangles met by a replay, by triangle (direct-mapped: a query's pairs meet a few dozen).
#define REPLAY_PLANES 32u

// One crossing's four bits of certificate meta (front_keep_certified: body | edge << 1 | entering << 3), decoded: the
// crossing edge runs from corner `edge` to corner `next` of triangle `body`'s pair triangle. Edge 3 never occurs (the
// replay checks it before using the table).
typedef struct replay_code
{
    uint8_t body, edge, next;
    bool up; // entering: the edge's first corner lies above the other triangle's plane
} replay_code;

#define REPLAY_CODE(m)                                                                                                 \
    {                                                                                                                  \
        (uint8_t)((m)&1), (uint8_t)(((m) >> 1) & 3), (uint8_t)((((m) >> 1) & 3) == 2 ? 0 : (((m) >> 1) & 3) + 1),      \
            ((m)&8) != 0                                                                                               \
    }
static const replay_code replay_codes[16] = {REPLAY_CODE(0),  REPLAY_CODE(1),  REPLAY_CODE(2),  REPLAY_CODE(3),
                                             REPLAY_CODE(4),  REPLAY_CODE(5),  REPLAY_CODE(6),  REPLAY_CODE(7),
                                             REPLAY_CODE(8),  REPLAY_CODE(9),  REPLAY_CODE(10), REPLAY_CODE(11),
                                             REPLAY_CODE(12), REPLAY_CODE(13), REPLAY_CODE(14), REPLAY_CODE(15)};
#undef REPLAY_CODE

// A replayed crossing from the plane values of its edge's ends (o0 at corner x->edge, o1 at x->next, with their filter
// bounds): its point as the test computes it, when both values pass their filter with the kept signs (past the filter
// o0 and o1 are neither 0 nor NaN, so their signs are (o > 0): sign_of's test). @return false when a check fails.
static inline bool replay_crossing(const mc_vec3* t, const replay_code* x, double o0, double b0, double o1, double b1,
                                   mc_crossing* out)
{
    bool ok = (fabs(o0) > b0) & (fabs(o1) > b1) & ((o0 > 0.0) == x->up) & ((o1 > 0.0) != x->up);
    out->point = crossing_point(&t[x->edge], &t[x->next], o0, o1);
    out->body = x->body;
    out->edge = x->edge;
    out->entering = x->up ? 1 : -1;
    return ok;
}

// The certified pairs at the query's pose, written in their sorted order straight into the scratch's output (the
// worker's buffer is skipped: mc_collide_front returns them as they are) with their points computed as the tests
// compute them (planes from mc_tri_plane_init on the same corners, whether computed for this pair or an earlier one;
// the plane value of each edge end by mc_tri_plane_eval: when both crossings of a pair are edges of one triangle, the
// corner they share is evaluated once, the same value either way).
// @return 1 done, 0 a check failed (nothing pushed: test the near lists), -1 allocation failure.
MC_SCALAR_CLONES static int front_replay(const collide_ctx* cx, pair_worker* w, const mc_pair_front* f,
                                         const struct mc_mesh* mi, const struct mc_mesh* mj)
{
    uint32_t cached[REPLAY_PLANES]; // J's triangle of each entry, MC_NONE: empty
    mc_tri_plane cache[REPLAY_PLANES];
    _Static_assert(MC_NONE == UINT32_MAX, "the memset below writes MC_NONE");
    memset(cached, 0xff, sizeof cached);
    MC_ASSERT(w->pair_count == 0u);
    if (!reserve_output(cx->scratch, f->cert_count))
    {
        w->failed = 1;
        return -1;
    }
    mc_tri_plane pl_i;
    uint32_t cur_i = MC_NONE;
    mc_triangle_pair* out = cx->scratch->out;
    for (uint32_t k = 0; k < f->cert_count; ++k, ++out)
    {
        uint32_t i = f->cert_ij[2u * k], j = f->cert_ij[2u * k + 1u];
        unsigned meta = f->cert_meta[k];
        if (((meta >> 1) & (meta >> 2) & 0x11u) != 0u) // an edge index 3 (never kept)
        {
            w->pair_count = 0;
            return 0;
        }
        if (i != cur_i)
        {
            const uint32_t* v = &mi->indices[3u * i];
            mc_tri_plane_init(&pl_i, cx->pos_i[v[0]], cx->pos_i[v[1]], cx->pos_i[v[2]]);
            cur_i = i;
        }
        mc_tri_plane* pl_j = &cache[j % REPLAY_PLANES];
        if (cached[j % REPLAY_PLANES] != j)
        {
            const uint32_t* v = &mj->indices[3u * j];
            mc_tri_plane_init(pl_j, j_vertex_serial(cx->scratch, v[0]), j_vertex_serial(cx->scratch, v[1]),
                              j_vertex_serial(cx->scratch, v[2]));
            cached[j % REPLAY_PLANES] = j;
        }
        const mc_tri_plane* pl[2] = {&pl_i, pl_j};
        const replay_code* x0 = &replay_codes[meta & 15u];
        const replay_code* x1 = &replay_codes[meta >> 4];
        memset(out, 0, sizeof *out);
        out->i = i;
        out->j = j;
        bool ok;
        if (x0->body == x1->body)
        {
            // Two edges of one triangle: its three corners against the other triangle's plane.
            const mc_tri_plane* other = pl[1 - x0->body];
            const mc_vec3* t = pl[x0->body]->v;
            double o[3], bd[3];
            for (int v = 0; v < 3; ++v)
            {
                o[v] = mc_tri_plane_eval(other, &t[v], &bd[v]);
            }
            ok = replay_crossing(t, x0, o[x0->edge], bd[x0->edge], o[x0->next], bd[x0->next], &out->crossing[0]);
            ok &= replay_crossing(t, x1, o[x1->edge], bd[x1->edge], o[x1->next], bd[x1->next], &out->crossing[1]);
        }
        else
        {
            const mc_vec3* t0 = pl[x0->body]->v;
            const mc_vec3* t1 = pl[x1->body]->v;
            double b0, b1, b2, b3;
            double o0 = mc_tri_plane_eval(pl[x1->body], &t0[x0->edge], &b0);
            double o1 = mc_tri_plane_eval(pl[x1->body], &t0[x0->next], &b1);
            double o2 = mc_tri_plane_eval(pl[x0->body], &t1[x1->edge], &b2);
            double o3 = mc_tri_plane_eval(pl[x0->body], &t1[x1->next], &b3);
            ok = replay_crossing(t0, x0, o0, b0, o1, b1, &out->crossing[0]);
            ok &= replay_crossing(t1, x1, o2, b2, o3, b3, &out->crossing[1]);
        }
        if (!ok)
        {
            w->pair_count = 0;
            return 0;
        }
    }
    w->pair_count = f->cert_count; // counted as the worker's, written in the output (mc_collide_front)
    return 1;
}

// A pending certificate's margin, measured at a quiet query's pose P (its near lists are those of the kept query, at
// P_c: a quiet query leaves the front as it is). Measured at P the margin m_P certifies, by the same bound with the
// roles of the two poses exchanged, that every determinant deciding a near-list pair has at P_c the sign it has at
// P when the motion between them is below m_P: the kept pairs (P_c's results) are then P's, and the certificate
// becomes (P, m_P). The measure stops as soon as the margin falls to the motion (it would not replay). @return the
// motion from the kept pose when the certificate holds at P (the caller replays), else -1 (a failed measure: back-off).
static double front_certify_lazy(const collide_ctx* cx, mc_pair_front* f, double radius)
{
    f->cert_pending = false;
    double motion = pose_motion(cx, (const double(*)[3])f->cert_rot, f->cert_trans, radius);
    double floor = 1e-9 * radius;
    double m = front_certify(cx, f, motion > floor ? motion : floor);
    if (!(m >= floor) || !(m > motion))
    {
        f->cert_flat = m < floor;
        front_certify_back_off(f);
        return -1.0;
    }
    f->cert_margin = m;
    memcpy(f->cert_rot, cx->scratch->rot, sizeof f->cert_rot);
    memcpy(f->cert_trans, cx->scratch->trans, sizeof f->cert_trans);
    return motion;
}

// A quiet query's replay when its motion from the certificate's pose is below the margin, measured first when the
// certificate is pending (front_replay's result), else 0 and the certificate is dropped (the near lists are then
// tested and a new certificate kept).
static int front_try_replay(const collide_ctx* cx, pair_worker* w, mc_pair_front* f, const struct mc_mesh* mi,
                            const struct mc_mesh* mj, double radius)
{
    int r = 0;
    if (f->cert_pending)
    {
        if (front_certify_lazy(cx, f, radius) >= 0.0)
        {
            r = front_replay(cx, w, f, mi, mj);
        }
    }
    else if (f->cert_margin > 0.0 &&
             pose_motion(cx, (const double(*)[3])f->cert_rot, f->cert_trans, radius) < f->cert_margin)
    {
        r = front_replay(cx, w, f, mi, mj);
    }
    if (r == 0)
    {
        f->cert_margin = 0.0;
    }
    return r;
}

/// Margins of a front (front_traverse). A front is recorded from the roots with a margin M: node pairs whose boxes are
/// within M are descended, leaf pairs list their triangle pairs within M, so every entry's gap exceeds M and the
/// queries stay quiet (they look only at the near lists, each pair with its own gap) until J has moved by M from the
/// front's pose; then it is recorded again at the new pose. M is FRONT_MARGIN_STEPS times the pair's recent step
/// (J's motion between consecutive queries, a peak halved at every query: a random walk of such steps stays within M
/// for about FRONT_MARGIN_STEPS^2 queries, a steady slide for FRONT_MARGIN_STEPS), at most FRONT_LEAF_FRACTION of the
/// mean leaf box size of the two trees (wider margins bring in whole leaves for little). When FRONT_MIN_STEPS recent
/// steps exceed that cap, or a step exceeds FRONT_PLAIN_MOTION of J's radius, the front would be recorded again every
/// few queries at about twice a plain query's cost: the plain traversal runs instead. Measured with
/// `bench_many -s spheres -n 1000 -t 1 --drift D` (many_moving.md): the leaf fraction 0.05, 0.1 and 0.2 gave the same
/// step time within 1 % at D = 1e-3 (the cap decides there); FRONT_MARGIN_STEPS 8 and 16 within 3 %, 4 was 17 % slower.
#define FRONT_MARGIN_STEPS 16.0
#define FRONT_LEAF_FRACTION 0.1
#define FRONT_MIN_STEPS 4.0
#define FRONT_PLAIN_MOTION 1e-2

// Mean of the longest side of a tree's leaf boxes.
static double tree_leaf_scale(const mc_bvh* t)
{
    double sum = 0.0;
    uint32_t leaves = 0;
    for (uint32_t k = 0; k < t->node_count; ++k)
    {
        const mc_bvh_node* n = &t->nodes[k];
        if (mc_bvh_is_leaf(n))
        {
            float e = n->extent[0] > n->extent[1] ? n->extent[0] : n->extent[1];
            sum += 2.0 * (double)(e > n->extent[2] ? e : n->extent[2]);
            leaves++;
        }
    }
    return leaves > 0 ? sum / leaves : 0.0;
}

// The smaller of the two trees' mean leaf size, measured once per pair of trees (and versions).
static double front_leaf_scale(const collide_ctx* cx, mc_pair_front* f)
{
    if (f->scale_a != cx->ta || f->scale_b != cx->tb || f->scale_va != cx->ta->version ||
        f->scale_vb != cx->tb->version)
    {
        f->leaf_scale = fmin(tree_leaf_scale(cx->ta), tree_leaf_scale(cx->tb));
        f->scale_a = cx->ta;
        f->scale_b = cx->tb;
        f->scale_va = cx->ta->version;
        f->scale_vb = cx->tb->version;
    }
    return f->leaf_scale;
}

// The serial traversal through the front (created on first use). The pair's first query, and every query whose
// recent steps are too large for a margin (FRONT_MIN_STEPS), runs the plain traversal (*plain = 1). Otherwise a quiet
// query replays the certified pairs when it can (*replayed = 1), else looks at the near lists; a query past some
// entry's gap descends those entries again (front_update) while its motion from the front's pose is within the
// front's margin, else records the front again from the roots at its pose, as it does when the front is not valid for
// these trees or grew past four times its size after the last recording (plus 256 entries or 4096 near pairs: a
// front that only refines would otherwise grow as a contact wanders over the meshes). A query that tested measures
// the new certificate. @return 0 on allocation failure (the front is then reset).
static int front_traverse(collide_ctx* cx, mc_pair_front** slot, const struct mc_mesh* mi, const struct mc_mesh* mj,
                          int* replayed, int* plain)
{
    *replayed = 0;
    if (*slot == NULL)
    {
        *slot = mc_calloc(1, sizeof **slot);
        if (*slot == NULL)
        {
            return 0;
        }
    }
    mc_pair_front* f = *slot;
    pair_worker* w = &cx->scratch->workers[0];
    cx->scratch->fresh_count = 0;
    cx->scratch->pool_count = 0;
    if (f->ta == cx->ta && f->tb == cx->tb && (f->va != cx->ta->version || f->vb != cx->tb->version))
    {
        // A deformed mesh (mc_mesh_set_positions): the front's gaps and certificate describe the old geometry. Start
        // again as a new pair does (a plain traversal first: a mesh deformed every step never pays for a front).
        mc_pair_front_reset(f);
    }
    f->va = cx->ta->version;
    f->vb = cx->tb->version;
    double radius = 1.7320508075688774 * mj->bvh->max_abs_coord;
    // J's motion since the pair's last query, kept as a peak that halves at every query (the margin's scale).
    double step = f->has_last ? pose_motion(cx, (const double(*)[3])f->last_rot, f->last_trans, radius) : 0.0;
    f->step = fmax(step, 0.5 * f->step);
    front_note_pose(f, cx->scratch);
    bool fresh_start = !f->valid || f->ta != cx->ta || f->tb != cx->tb || f->count > 4u * f->rebuild_size + 256u ||
                       f->pool_count > 4u * f->rebuild_pool + 4096u;
    f->valid = false;
    f->cert_keep = false;
    if (fresh_start && !f->primed)
    {
        // A pair's first query runs the plain traversal and records nothing: many pairs are queried once or twice
        // (bodies passing by, new candidates under large motions), and recording costs about twice the plain query.
        f->primed = true;
        f->count = 0;
        *plain = 1;
        return 1;
    }
    double margin = fmin(FRONT_MARGIN_STEPS * f->step, FRONT_LEAF_FRACTION * front_leaf_scale(cx, f));
    if (step > FRONT_PLAIN_MOTION * radius || FRONT_MIN_STEPS * f->step > margin)
    {
        // Steps this large: the plain traversal, the front kept empty (recorded again from the roots once the steps'
        // peak, halved at every query, is small again; measuring the step costs a few operations a query).
        f->count = 0;
        f->cert_margin = 0.0;
        f->cert_pending = false;
        *plain = 1;
        return 1;
    }
    double motion = fresh_start ? INFINITY : front_motion(cx, f, radius);
    // The near-list walk's motions (the anchors' on first use: near_anchor_motion).
    near_motion nm;
    nm.front = motion;
    uint32_t anchors = front_anchor_count();
    nm.slot = f->anchor_walks % anchors;
    for (uint32_t a = 0; a < NEAR_ANCHORS; ++a)
    {
        nm.anchor[a] = -1.0;
    }
    nm.cx = cx;
    nm.f = f;
    nm.radius = radius;
    nm.skip_ready = false;
    if (motion < (double)f->min_gap)
    {
        // A quiet query: J cannot have crossed any entry's gap since the front's pose, so only the leaf entries' near
        // lists are looked at (or their certified results replayed), and the front stays at its pose (the next
        // query's motion is measured from that pose again).
        int r = front_try_replay(cx, w, f, mi, mj, radius);
        for (uint32_t k = 0; k < f->leaf_count && r == 0; ++k)
        {
            if (!leaf_near(cx, w, f, &f->entries[k], &nm))
            {
                r = -1;
            }
        }
        if (r < 0)
        {
            f->count = 0;
            f->cert_margin = 0.0;
            f->cert_pending = false;
            return 0;
        }
        f->valid = true;
        *replayed = r;
        if (r == 0)
        {
            front_note_anchor(f, cx->scratch);
            front_certify_begin(cx, f, radius);
        }
        else
        {
            f->cert_backoff = 0; // the certificate paid: keep one at every tested query again
        }
        return 1;
    }
    f->cert_margin = 0.0;
    f->cert_pending = false;
    ctx_init_maps(cx); // the lane boxes of leaf_record's culling
    int ok;
    bool from_roots = fresh_start || motion > f->margin;
    if (from_roots)
    {
        // From the roots at this pose (the front's new pose), with a margin of FRONT_MARGIN_STEPS recent steps (at
        // least 1e-9 of J's radius: a pair at rest).
        f->margin = fmax(margin, 1e-9 * radius);
        ok = front_descend(cx, w, 0, 0, f->margin, 0.0) && front_finish(cx->scratch, f, 0, 0, 0);
        f->rebuild_size = f->count;
        f->rebuild_pool = f->pool_count;
        memcpy(f->rot, cx->scratch->rot, sizeof f->rot);
        memcpy(f->trans, cx->scratch->trans, sizeof f->trans);
    }
    else
    {
        ok = front_update(cx, w, f, &nm);
    }
    if (!ok)
    {
        f->count = 0;
        return 0;
    }
    f->ta = cx->ta;
    f->tb = cx->tb;
    f->valid = true;
    if (from_roots)
    {
        f->anchor_walks = 0; // recorded from the roots: no gap is kept from an anchor
    }
    else
    {
        front_note_anchor(f, cx->scratch);
    }
    front_certify_begin(cx, f, radius);
    return 1;
}
