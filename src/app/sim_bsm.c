// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Block-sparse matrices and their block LU on the block graph (see sim_bsm.h).
// Based on: the minimum degree ordering (Tinney and Walker 1967; George and Liu, "The evolution of the minimum degree
// ordering algorithm", SIAM Review 31, 1989), here on the explicit elimination graph of the blocks, and right-looking
// block LU (Golub and Van Loan, Matrix Computations, 4th ed., 3.2.11 and 4.5) without pivoting across blocks.
#include "src/app/sim_bsm.h"

#include "src/base/union_find.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sim_bsm
{
    int nb, bs, bs2;
    int count;     // blocks present; entries 0..nb-1 are the diagonal ones
    int cap;       // capacity of row, col, next and val, in blocks
    int* row;      // per block: its block row
    int* col;      // per block: its block column
    int* next;     // per block: the next block of its row, or -1
    int* last;     // per block row: its last block (the diagonal one first)
    double* val;   // per block: bs2 values, row-major
    double* spare; // bs2 values written when a block cannot be created
    bool failed;   // a block could not be created since the last clear
};

sim_bsm* sim_bsm_create(int nb, int bs)
{
    if (nb < 1 || bs < 1)
    {
        return NULL;
    }
    sim_bsm* a = calloc(1, sizeof *a);
    if (a == NULL)
    {
        return NULL;
    }
    a->nb = nb;
    a->bs = bs;
    a->bs2 = bs * bs;
    a->cap = nb;
    a->row = malloc((size_t)nb * sizeof *a->row);
    a->col = malloc((size_t)nb * sizeof *a->col);
    a->next = malloc((size_t)nb * sizeof *a->next);
    a->last = malloc((size_t)nb * sizeof *a->last);
    a->val = malloc((size_t)nb * (size_t)a->bs2 * sizeof *a->val);
    a->spare = malloc((size_t)a->bs2 * sizeof *a->spare);
    if (!a->row || !a->col || !a->next || !a->last || !a->val || !a->spare)
    {
        sim_bsm_destroy(a);
        return NULL;
    }
    sim_bsm_clear(a);
    return a;
}

void sim_bsm_destroy(sim_bsm* a)
{
    if (a != NULL)
    {
        free(a->row);
        free(a->col);
        free(a->next);
        free(a->last);
        free(a->val);
        free(a->spare);
        free(a);
    }
}

int sim_bsm_block_rows(const sim_bsm* a)
{
    return a->nb;
}

int sim_bsm_block_size(const sim_bsm* a)
{
    return a->bs;
}

int sim_bsm_block_count(const sim_bsm* a)
{
    return a->count;
}

void sim_bsm_clear(sim_bsm* a)
{
    for (int i = 0; i < a->nb; ++i)
    {
        a->row[i] = a->col[i] = i;
        a->next[i] = -1;
        a->last[i] = i;
    }
    a->count = a->nb;
    a->failed = false;
    memset(a->val, 0, (size_t)a->nb * (size_t)a->bs2 * sizeof *a->val);
}

double* sim_bsm_block(sim_bsm* a, int bi, int bj)
{
    for (int e = bi; e >= 0; e = a->next[e])
    {
        if (a->col[e] == bj)
        {
            return a->val + (size_t)e * (size_t)a->bs2;
        }
    }
    if (a->count == a->cap)
    {
        int cap = a->cap + a->cap / 2 + 8;
        int* row = realloc(a->row, (size_t)cap * sizeof *row);
        a->row = row != NULL ? row : a->row;
        int* col = row != NULL ? realloc(a->col, (size_t)cap * sizeof *col) : NULL;
        a->col = col != NULL ? col : a->col;
        int* next = col != NULL ? realloc(a->next, (size_t)cap * sizeof *next) : NULL;
        a->next = next != NULL ? next : a->next;
        double* val = next != NULL ? realloc(a->val, (size_t)cap * (size_t)a->bs2 * sizeof *val) : NULL;
        if (val == NULL)
        {
            a->failed = true;
            memset(a->spare, 0, (size_t)a->bs2 * sizeof *a->spare);
            return a->spare;
        }
        a->val = val;
        a->cap = cap;
    }
    int e = a->count++;
    a->row[e] = bi;
    a->col[e] = bj;
    a->next[e] = -1;
    a->next[a->last[bi]] = e;
    a->last[bi] = e;
    double* v = a->val + (size_t)e * (size_t)a->bs2;
    memset(v, 0, (size_t)a->bs2 * sizeof *v);
    return v;
}

void sim_bsm_add(sim_bsm* a, int row, int col, double v)
{
    double* b = sim_bsm_block(a, row / a->bs, col / a->bs);
    b[(row % a->bs) * a->bs + col % a->bs] += v;
}

bool sim_bsm_failed(const sim_bsm* a)
{
    return a->failed;
}

void sim_bsm_to_dense(const sim_bsm* a, double* out)
{
    size_t n = (size_t)a->nb * (size_t)a->bs;
    memset(out, 0, n * n * sizeof *out);
    for (int e = 0; e < a->count; ++e)
    {
        const double* v = a->val + (size_t)e * (size_t)a->bs2;
        for (int i = 0; i < a->bs; ++i)
        {
            double* r = out + ((size_t)a->row[e] * (size_t)a->bs + (size_t)i) * n + (size_t)a->col[e] * (size_t)a->bs;
            for (int j = 0; j < a->bs; ++j)
            {
                r[j] += v[i * a->bs + j];
            }
        }
    }
}

void sim_bsm_multiply(const sim_bsm* a, const double* x, double* y)
{
    int bs = a->bs;
    memset(y, 0, (size_t)a->nb * (size_t)bs * sizeof *y);
    for (int e = 0; e < a->count; ++e)
    {
        const double* v = a->val + (size_t)e * (size_t)a->bs2;
        const double* xe = x + (size_t)a->col[e] * (size_t)bs;
        double* ye = y + (size_t)a->row[e] * (size_t)bs;
        for (int i = 0; i < bs; ++i)
        {
            double s = 0.0;
            for (int j = 0; j < bs; ++j)
            {
                s += v[i * bs + j] * xe[j];
            }
            ye[i] += s;
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The factorisation
// ---------------------------------------------------------------------------------------------------------------

struct sim_bslu
{
    int nb, bs, bs2;
    double limit; // bytes; <= 0: none
    // The pattern the order was computed for (a copy of the matrix's row and col), to skip the analysis when equal.
    int pattern_count;
    int* pattern_row;
    int* pattern_col;
    // The analysis: elimination order and the filled structure.
    int* order;   // position -> block
    int* pos;     // block -> position
    int* start;   // per position: its first edge (start[nb]: the edge count)
    int* nbr;     // per edge: the position of the later neighbour, ascending within a position's edges
    int* target;  // per block of the matrix: where it goes (see analyse)
    int edge_cap; // capacity of nbr, lval, uval
    // The numeric factors.
    double* dval; // per position: its diagonal block, LU-factorised in place
    int* piv;     // per position: bs row interchanges of the diagonal block
    double* lval; // per edge (p, q): L block (row q, column p), bs2
    double* uval; // per edge (p, q): U block (row p, column q), bs2
    double* work; // nb bs values (the solve) and bs2 scratch
    bool ready;   // a factorisation is in place
    sim_bslu_stats stats;
};

sim_bslu* sim_bslu_create(void)
{
    return calloc(1, sizeof(sim_bslu));
}

static void free_analysis(sim_bslu* lu)
{
    free(lu->pattern_row);
    free(lu->pattern_col);
    free(lu->order);
    free(lu->pos);
    free(lu->start);
    free(lu->nbr);
    free(lu->target);
    free(lu->dval);
    free(lu->piv);
    free(lu->lval);
    free(lu->uval);
    free(lu->work);
    lu->pattern_row = lu->pattern_col = lu->order = lu->pos = lu->start = lu->nbr = lu->target = lu->piv = NULL;
    lu->dval = lu->lval = lu->uval = lu->work = NULL;
    lu->pattern_count = 0;
    lu->edge_cap = 0;
    lu->nb = 0;
    lu->ready = false;
}

void sim_bslu_destroy(sim_bslu* lu)
{
    if (lu != NULL)
    {
        free_analysis(lu);
        free(lu);
    }
}

void sim_bslu_set_limit(sim_bslu* lu, double bytes)
{
    lu->limit = bytes;
}

sim_bslu_stats sim_bslu_get_stats(const sim_bslu* lu)
{
    return lu->stats;
}

static double factor_bytes(int nb, int bs, size_t edges)
{
    double bs2 = (double)bs * (double)bs;
    return 8.0 * bs2 * ((double)nb + 2.0 * (double)edges) + 4.0 * (double)edges + 8.0 * (double)nb * (double)bs +
           24.0 * (double)nb;
}

double sim_bslu_diagonal_bytes(int nb, int bs)
{
    return factor_bytes(nb, bs, 0);
}

/// A growing sorted set of ints.
typedef struct int_set
{
    int* v;
    int n, cap;
} int_set;

static bool set_reserve(int_set* s, int cap)
{
    if (cap <= s->cap)
    {
        return true;
    }
    int c = cap + cap / 2 + 4;
    int* v = realloc(s->v, (size_t)c * sizeof *v);
    if (v == NULL)
    {
        return false;
    }
    s->v = v;
    s->cap = c;
    return true;
}

/// s = (s union add) minus {skip1, skip2}, both sorted. `tmp` is scratch of at least s->n + na ints.
static void set_merge(int_set* s, const int* add, int na, int skip1, int skip2, int* tmp)
{
    int i = 0, j = 0, k = 0;
    while (i < s->n || j < na)
    {
        int x;
        if (j >= na || (i < s->n && s->v[i] < add[j]))
        {
            x = s->v[i++];
        }
        else if (i >= s->n || add[j] < s->v[i])
        {
            x = add[j++];
        }
        else
        {
            x = s->v[i++];
            j++;
        }
        if (x != skip1 && x != skip2)
        {
            tmp[k++] = x;
        }
    }
    memcpy(s->v, tmp, (size_t)k * sizeof *tmp);
    s->n = k;
}

static int cmp_int(const void* a, const void* b)
{
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

/// The symmetric block graph of a without its diagonal: sorted, duplicate-free neighbour sets.
static bool block_graph(const sim_bsm* a, int_set* adj)
{
    for (int e = a->nb; e < a->count; ++e)
    {
        int r = a->row[e], c = a->col[e];
        if (r == c)
        {
            continue;
        }
        if (!set_reserve(&adj[r], adj[r].n + 1) || !set_reserve(&adj[c], adj[c].n + 1))
        {
            return false;
        }
        adj[r].v[adj[r].n++] = c;
        adj[c].v[adj[c].n++] = r;
    }
    for (int i = 0; i < a->nb; ++i)
    {
        if (adj[i].n == 0)
        {
            continue; // no array (qsort must not see NULL)
        }
        qsort(adj[i].v, (size_t)adj[i].n, sizeof *adj[i].v, cmp_int);
        int k = 0;
        for (int j = 0; j < adj[i].n; ++j)
        {
            if (k == 0 || adj[i].v[k - 1] != adj[i].v[j])
            {
                adj[i].v[k++] = adj[i].v[j];
            }
        }
        adj[i].n = k;
    }
    return true;
}

/// Minimum degree on the elimination graph of one component (its blocks `nodes`, ascending): appends the blocks to
/// lu->order from position *p on and records, per block, its neighbours at elimination (the later ones) in `fill`.
/// @return false when out of memory
static bool min_degree(sim_bslu* lu, int_set* adj, const int* nodes, int count, int* p, int_set* fill, bool* done,
                       int** tmp, int* tmp_cap)
{
    for (int step = 0; step < count; ++step)
    {
        int v = -1;
        for (int k = 0; k < count; ++k)
        {
            int u = nodes[k];
            if (!done[u] && (v < 0 || adj[u].n < adj[v].n))
            {
                v = u;
            }
        }
        done[v] = true;
        lu->order[(*p)++] = v;
        // Its neighbours become a clique.
        if (!set_reserve(&fill[v], adj[v].n))
        {
            return false;
        }
        if (adj[v].n > 0)
        {
            memcpy(fill[v].v, adj[v].v, (size_t)adj[v].n * sizeof *adj[v].v);
        }
        fill[v].n = adj[v].n;
        for (int k = 0; k < adj[v].n; ++k)
        {
            int u = adj[v].v[k];
            int need = adj[u].n + adj[v].n;
            if (!set_reserve(&adj[u], need))
            {
                return false;
            }
            if (need > *tmp_cap)
            {
                int* t = realloc(*tmp, (size_t)need * 2 * sizeof *t);
                if (t == NULL)
                {
                    return false;
                }
                *tmp = t;
                *tmp_cap = need * 2;
            }
            set_merge(&adj[u], adj[v].v, adj[v].n, u, v, *tmp);
        }
        adj[v].n = 0;
    }
    return true;
}

/// The order and the filled structure of a's block pattern. @return a status
static sim_bslu_status analyse(sim_bslu* lu, const sim_bsm* a)
{
    int nb = a->nb;
    sim_bslu_status st = SIM_BSLU_NO_MEMORY;
    int_set* adj = calloc((size_t)nb, sizeof *adj);
    int_set* fill = calloc((size_t)nb, sizeof *fill);
    uint32_t* parent = malloc((size_t)nb * sizeof *parent);
    int* nodes = malloc((size_t)nb * sizeof *nodes);
    int* comp_start = malloc(((size_t)nb + 1) * sizeof *comp_start);
    bool* done = calloc((size_t)nb, sizeof *done);
    int* tmp = NULL;
    int tmp_cap = 0;
    if (!adj || !fill || !parent || !nodes || !comp_start || !done || !block_graph(a, adj))
    {
        goto out;
    }
    // Connected components, each a list of its blocks in ascending order, the components by their smallest block.
    for (int i = 0; i < nb; ++i)
    {
        parent[i] = (uint32_t)i;
    }
    for (int i = 0; i < nb; ++i)
    {
        for (int k = 0; k < adj[i].n; ++k)
        {
            mc_uf_union(parent, (uint32_t)i, (uint32_t)adj[i].v[k]);
        }
    }
    // Counting sort of the blocks by root (roots are the smallest block of their component).
    memset(comp_start, 0, ((size_t)nb + 1) * sizeof *comp_start);
    for (int i = 0; i < nb; ++i)
    {
        comp_start[mc_uf_find(parent, (uint32_t)i) + 1] += 1;
    }
    for (int i = 0; i < nb; ++i)
    {
        comp_start[i + 1] += comp_start[i];
    }
    for (int i = 0; i < nb; ++i)
    {
        nodes[comp_start[mc_uf_find(parent, (uint32_t)i)]++] = i;
    }
    // comp_start[r] is now the end of root r's run; walk the runs in order of their roots.
    int p = 0, begin = 0, components = 0, largest = 0;
    for (int r = 0; r < nb; ++r)
    {
        if (mc_uf_find(parent, (uint32_t)r) != (uint32_t)r)
        {
            continue;
        }
        int end = comp_start[r], count = end - begin;
        components += 1;
        largest = count > largest ? count : largest;
        if (count == 1)
        {
            lu->order[p++] = nodes[begin];
            done[nodes[begin]] = true;
        }
        else if (!min_degree(lu, adj, nodes + begin, count, &p, fill, done, &tmp, &tmp_cap))
        {
            goto out;
        }
        begin = end;
    }
    for (int q = 0; q < nb; ++q)
    {
        lu->pos[lu->order[q]] = q;
    }
    // The filled structure by position, each position's later neighbours ascending.
    size_t edges = 0;
    for (int i = 0; i < nb; ++i)
    {
        edges += (size_t)fill[i].n;
    }
    lu->stats.components = components;
    lu->stats.largest = largest;
    lu->stats.filled_blocks = (size_t)nb + 2 * edges;
    lu->stats.bytes = factor_bytes(nb, a->bs, edges);
    if (lu->limit > 0.0 && lu->stats.bytes > lu->limit)
    {
        st = SIM_BSLU_TOO_LARGE;
        goto out;
    }
    if (edges > (size_t)lu->edge_cap)
    {
        size_t cap = edges + edges / 2 + 8;
        int* nbr = realloc(lu->nbr, cap * sizeof *nbr);
        lu->nbr = nbr != NULL ? nbr : lu->nbr;
        double* lv = nbr != NULL ? realloc(lu->lval, cap * (size_t)lu->bs2 * sizeof *lv) : NULL;
        lu->lval = lv != NULL ? lv : lu->lval;
        double* uv = lv != NULL ? realloc(lu->uval, cap * (size_t)lu->bs2 * sizeof *uv) : NULL;
        lu->uval = uv != NULL ? uv : lu->uval;
        if (uv == NULL || cap > (size_t)INT32_MAX)
        {
            goto out;
        }
        lu->edge_cap = (int)cap;
    }
    int e = 0;
    for (int q = 0; q < nb; ++q)
    {
        const int_set* f = &fill[lu->order[q]];
        lu->start[q] = e;
        for (int k = 0; k < f->n; ++k)
        {
            lu->nbr[e + k] = lu->pos[f->v[k]];
        }
        if (f->n > 0)
        {
            qsort(lu->nbr + e, (size_t)f->n, sizeof *lu->nbr, cmp_int);
        }
        e += f->n;
    }
    lu->start[nb] = e;
    st = SIM_BSLU_OK;
out:
    for (int i = 0; adj != NULL && fill != NULL && i < nb; ++i)
    {
        free(adj[i].v);
        free(fill[i].v);
    }
    free(adj);
    free(fill);
    free(parent);
    free(nodes);
    free(comp_start);
    free(done);
    free(tmp);
    return st;
}

/// The edge of position p whose neighbour is position q (present by construction), by bisection.
static int find_edge(const sim_bslu* lu, int p, int q)
{
    int lo = lu->start[p], hi = lu->start[p + 1] - 1;
    while (lo < hi)
    {
        int mid = lo + (hi - lo) / 2;
        if (lu->nbr[mid] < q)
        {
            lo = mid + 1;
        }
        else
        {
            hi = mid;
        }
    }
    return lo;
}

/// Where each block of a goes: >= 0 an edge's U block (row position before column), <= -2 the L block of edge
/// -2 - target, -1 the diagonal block of its row.
static void map_blocks(sim_bslu* lu, const sim_bsm* a)
{
    for (int k = 0; k < a->count; ++k)
    {
        int pr = lu->pos[a->row[k]], pc = lu->pos[a->col[k]];
        lu->target[k] = pr == pc ? -1 : pr < pc ? find_edge(lu, pr, pc) : -2 - find_edge(lu, pc, pr);
    }
}

/// Set up for a's pattern (the analysis when it changed). @return a status
static sim_bslu_status prepare(sim_bslu* lu, const sim_bsm* a)
{
    bool same = lu->nb == a->nb && lu->bs == a->bs && lu->pattern_count == a->count &&
                memcmp(lu->pattern_row, a->row, (size_t)a->count * sizeof *a->row) == 0 &&
                memcmp(lu->pattern_col, a->col, (size_t)a->count * sizeof *a->col) == 0;
    if (same)
    {
        return SIM_BSLU_OK;
    }
    if (lu->nb != a->nb || lu->bs != a->bs)
    {
        free_analysis(lu);
        lu->nb = a->nb;
        lu->bs = a->bs;
        lu->bs2 = a->bs2;
        size_t n = (size_t)a->nb * (size_t)a->bs;
        lu->order = malloc((size_t)a->nb * sizeof *lu->order);
        lu->pos = malloc((size_t)a->nb * sizeof *lu->pos);
        lu->start = malloc(((size_t)a->nb + 1) * sizeof *lu->start);
        lu->dval = malloc((size_t)a->nb * (size_t)a->bs2 * sizeof *lu->dval);
        lu->piv = malloc(n * sizeof *lu->piv);
        lu->work = malloc((n + (size_t)a->bs2) * sizeof *lu->work);
        if (!lu->order || !lu->pos || !lu->start || !lu->dval || !lu->piv || !lu->work)
        {
            free_analysis(lu);
            return SIM_BSLU_NO_MEMORY;
        }
    }
    lu->pattern_count = 0; // until the analysis succeeds
    lu->ready = false;
    int* pr = realloc(lu->pattern_row, (size_t)a->count * sizeof *pr);
    lu->pattern_row = pr != NULL ? pr : lu->pattern_row;
    int* pc = pr != NULL ? realloc(lu->pattern_col, (size_t)a->count * sizeof *pc) : NULL;
    lu->pattern_col = pc != NULL ? pc : lu->pattern_col;
    int* tg = pc != NULL ? realloc(lu->target, (size_t)a->count * sizeof *tg) : NULL;
    lu->target = tg != NULL ? tg : lu->target;
    if (tg == NULL)
    {
        return SIM_BSLU_NO_MEMORY;
    }
    lu->stats.analyses += 1;
    sim_bslu_status st = analyse(lu, a);
    if (st != SIM_BSLU_OK)
    {
        return st;
    }
    map_blocks(lu, a);
    memcpy(lu->pattern_row, a->row, (size_t)a->count * sizeof *a->row);
    memcpy(lu->pattern_col, a->col, (size_t)a->count * sizeof *a->col);
    lu->pattern_count = a->count;
    return SIM_BSLU_OK;
}

bool sim_dense_lu(double* d, int* piv, int bs)
{
    for (int k = 0; k < bs; ++k)
    {
        int best = k;
        for (int i = k + 1; i < bs; ++i)
        {
            if (fabs(d[i * bs + k]) > fabs(d[best * bs + k]))
            {
                best = i;
            }
        }
        piv[k] = best;
        if (!(fabs(d[best * bs + k]) > 0.0) || !isfinite(d[best * bs + k]))
        {
            return false;
        }
        if (best != k)
        {
            for (int j = 0; j < bs; ++j)
            {
                double t = d[k * bs + j];
                d[k * bs + j] = d[best * bs + j];
                d[best * bs + j] = t;
            }
        }
        double inv = 1.0 / d[k * bs + k];
        for (int i = k + 1; i < bs; ++i)
        {
            double l = d[i * bs + k] * inv;
            d[i * bs + k] = l;
            for (int j = k + 1; j < bs; ++j)
            {
                d[i * bs + j] -= l * d[k * bs + j];
            }
        }
    }
    return true;
}

void sim_dense_solve(const double* d, const int* piv, int bs, double* x)
{
    for (int k = 0; k < bs; ++k)
    {
        double t = x[k];
        x[k] = x[piv[k]];
        x[piv[k]] = t;
    }
    for (int i = 0; i < bs; ++i)
    {
        double s = x[i];
        for (int j = 0; j < i; ++j)
        {
            s -= d[i * bs + j] * x[j];
        }
        x[i] = s;
    }
    for (int i = bs - 1; i >= 0; --i)
    {
        double s = x[i];
        for (int j = i + 1; j < bs; ++j)
        {
            s -= d[i * bs + j] * x[j];
        }
        x[i] = s / d[i * bs + i];
    }
}

/// x = D^-T x (x a row vector: x D^-1) with D's sim_dense_lu factors (P D = L U, so D^T = U^T L^T P).
static void dense_solve_transposed(const double* d, const int* piv, int bs, double* x)
{
    for (int i = 0; i < bs; ++i)
    {
        double s = x[i];
        for (int j = 0; j < i; ++j)
        {
            s -= d[j * bs + i] * x[j];
        }
        x[i] = s / d[i * bs + i];
    }
    for (int i = bs - 1; i >= 0; --i)
    {
        double s = x[i];
        for (int j = i + 1; j < bs; ++j)
        {
            s -= d[j * bs + i] * x[j];
        }
        x[i] = s;
    }
    for (int k = bs - 1; k >= 0; --k)
    {
        double t = x[k];
        x[k] = x[piv[k]];
        x[piv[k]] = t;
    }
}

/// c -= a b (bs x bs, row-major).
static void block_sub_mul(double* c, const double* a, const double* b, int bs)
{
    for (int i = 0; i < bs; ++i)
    {
        for (int k = 0; k < bs; ++k)
        {
            double aik = a[i * bs + k];
            if (aik == 0.0)
            {
                continue;
            }
            for (int j = 0; j < bs; ++j)
            {
                c[i * bs + j] -= aik * b[k * bs + j];
            }
        }
    }
}

sim_bslu_status sim_bslu_factor(sim_bslu* lu, const sim_bsm* a, double alpha, double beta)
{
    sim_bslu_status st = prepare(lu, a);
    st = st == SIM_BSLU_OK && lu->limit > 0.0 && lu->stats.bytes > lu->limit ? SIM_BSLU_TOO_LARGE : st;
    if (st != SIM_BSLU_OK)
    {
        lu->ready = false;
        return st;
    }
    int nb = lu->nb, bs = lu->bs, bs2 = lu->bs2;
    size_t edges = (size_t)lu->start[nb];
    memset(lu->dval, 0, (size_t)nb * (size_t)bs2 * sizeof *lu->dval);
    if (edges > 0) // else no arrays: memset must not see NULL
    {
        memset(lu->lval, 0, edges * (size_t)bs2 * sizeof *lu->lval);
        memset(lu->uval, 0, edges * (size_t)bs2 * sizeof *lu->uval);
    }
    for (int k = 0; k < a->count; ++k)
    {
        const double* v = a->val + (size_t)k * (size_t)bs2;
        int t = lu->target[k];
        double* dst = t == -1  ? lu->dval + (size_t)lu->pos[a->row[k]] * (size_t)bs2
                      : t >= 0 ? lu->uval + (size_t)t * (size_t)bs2
                               : lu->lval + (size_t)(-2 - t) * (size_t)bs2;
        for (int i = 0; i < bs2; ++i)
        {
            dst[i] += beta * v[i];
        }
    }
    for (int p = 0; p < nb; ++p)
    {
        for (int i = 0; i < bs; ++i)
        {
            lu->dval[(size_t)p * (size_t)bs2 + (size_t)(i * bs + i)] += alpha;
        }
    }
    lu->stats.numeric += 1;
    lu->ready = false;
    for (int p = 0; p < nb; ++p)
    {
        double* d = lu->dval + (size_t)p * (size_t)bs2;
        int* piv = lu->piv + (size_t)p * (size_t)bs;
        if (!sim_dense_lu(d, piv, bs))
        {
            return SIM_BSLU_SINGULAR;
        }
        int e0 = lu->start[p], e1 = lu->start[p + 1];
        for (int e = e0; e < e1; ++e)
        {
            double* l = lu->lval + (size_t)e * (size_t)bs2;
            for (int i = 0; i < bs; ++i)
            {
                dense_solve_transposed(d, piv, bs, l + i * bs); // row i of L A_pp^-1
            }
        }
        // Schur complement: block (i, j) -= L(i, p) U(p, j) over the later neighbours of p (a clique).
        for (int ei = e0; ei < e1; ++ei)
        {
            int qi = lu->nbr[ei];
            const double* l = lu->lval + (size_t)ei * (size_t)bs2;
            for (int ej = e0; ej < e1; ++ej)
            {
                int qj = lu->nbr[ej];
                const double* u = lu->uval + (size_t)ej * (size_t)bs2;
                double* c = qi == qj  ? lu->dval + (size_t)qi * (size_t)bs2
                            : qi < qj ? lu->uval + (size_t)find_edge(lu, qi, qj) * (size_t)bs2
                                      : lu->lval + (size_t)find_edge(lu, qj, qi) * (size_t)bs2;
                block_sub_mul(c, l, u, bs);
            }
        }
    }
    lu->ready = true;
    return SIM_BSLU_OK;
}

void sim_bslu_solve(sim_bslu* lu, double* x)
{
    int nb = lu->nb, bs = lu->bs, bs2 = lu->bs2;
    double* w = lu->work;
    for (int p = 0; p < nb; ++p)
    {
        memcpy(w + (size_t)p * (size_t)bs, x + (size_t)lu->order[p] * (size_t)bs, (size_t)bs * sizeof *w);
    }
    // L z = b: column by column (L(q, p) below the diagonal, unit diagonal blocks).
    for (int p = 0; p < nb; ++p)
    {
        const double* wp = w + (size_t)p * (size_t)bs;
        for (int e = lu->start[p]; e < lu->start[p + 1]; ++e)
        {
            const double* l = lu->lval + (size_t)e * (size_t)bs2;
            double* wq = w + (size_t)lu->nbr[e] * (size_t)bs;
            for (int i = 0; i < bs; ++i)
            {
                double s = 0.0;
                for (int j = 0; j < bs; ++j)
                {
                    s += l[i * bs + j] * wp[j];
                }
                wq[i] -= s;
            }
        }
    }
    // U x = z: row by row from the last position.
    for (int p = nb - 1; p >= 0; --p)
    {
        double* wp = w + (size_t)p * (size_t)bs;
        for (int e = lu->start[p]; e < lu->start[p + 1]; ++e)
        {
            const double* u = lu->uval + (size_t)e * (size_t)bs2;
            const double* wq = w + (size_t)lu->nbr[e] * (size_t)bs;
            for (int i = 0; i < bs; ++i)
            {
                double s = 0.0;
                for (int j = 0; j < bs; ++j)
                {
                    s += u[i * bs + j] * wq[j];
                }
                wp[i] -= s;
            }
        }
        sim_dense_solve(lu->dval + (size_t)p * (size_t)bs2, lu->piv + (size_t)p * (size_t)bs, bs, wp);
    }
    for (int p = 0; p < nb; ++p)
    {
        memcpy(x + (size_t)lu->order[p] * (size_t)bs, w + (size_t)p * (size_t)bs, (size_t)bs * sizeof *w);
    }
}
