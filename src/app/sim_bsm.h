// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Block-sparse square matrices for the simulator's implicit integrator (one block row and column per moving part,
// blocks of its 12 state components) and a sparse direct solver for alpha I + beta A on the block graph: connected
// components solved apart, a minimum-degree order of the blocks inside each, block LU with partial pivoting inside
// each diagonal block. Part of the command-line tool, not of the library.
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Why blocks: contacts couple only the parts they touch, so the Jacobian of the simulator's ODE has a 12 x 12 block
 * per moving part on its diagonal and one per ordered pair of touching moving parts. Free-falling parts give a block
 * diagonal matrix (a dense one of 2000 parts would be 24000^2 doubles, 4.6 GB, and its LU 4.6e12 flops); a pile
 * couples its parts through their contacts only. Everything here is sequential and in a fixed order: the same input
 * gives the same bits.
 */

/// A square matrix of nb x nb blocks of bs x bs doubles, only some blocks present (the others zero).
typedef struct sim_bsm sim_bsm;

/// Create an empty matrix (every diagonal block present and zero). @return NULL when out of memory or nb, bs < 1
sim_bsm* sim_bsm_create(int nb, int bs);

/// Free a matrix. NULL is ignored.
void sim_bsm_destroy(sim_bsm* a);

/// @return the number of block rows (and columns)
int sim_bsm_block_rows(const sim_bsm* a);

/// @return the block size
int sim_bsm_block_size(const sim_bsm* a);

/// @return the number of blocks present (the diagonal ones included)
int sim_bsm_block_count(const sim_bsm* a);

/// Back to the diagonal blocks only, all zero (the memory is kept for the next assembly).
void sim_bsm_clear(sim_bsm* a);

/// The block (bi, bj), bs x bs row-major, created zero when absent. The pointer is valid until the next block is
/// created or the matrix cleared. Out of memory: a scratch block that is ignored, and sim_bsm_failed turns true.
double* sim_bsm_block(sim_bsm* a, int bi, int bj);

/// a(row, col) += v (scalar indices, row-major over the whole matrix).
void sim_bsm_add(sim_bsm* a, int row, int col, double v);

/// @return true when a block could not be created since the last sim_bsm_clear (out of memory)
bool sim_bsm_failed(const sim_bsm* a);

/// Write the matrix as a dense (nb bs)^2 row-major array (zeros where no block is present).
void sim_bsm_to_dense(const sim_bsm* a, double* out);

/// y = A x (x and y of nb bs doubles, distinct). Blocks in their creation order: the same bits every time.
void sim_bsm_multiply(const sim_bsm* a, const double* x, double* y);

/// A factorisation of alpha I + beta A.
typedef struct sim_bslu sim_bslu;

/// Outcome of sim_bslu_factor.
typedef enum sim_bslu_status
{
    SIM_BSLU_OK = 0,        ///< factorised
    SIM_BSLU_SINGULAR = 1,  ///< a pivot block is singular (or not finite) after the elimination before it
    SIM_BSLU_TOO_LARGE = 2, ///< the factors would need more than the limit (sim_bslu_set_limit)
    SIM_BSLU_NO_MEMORY = 3, ///< out of memory
} sim_bslu_status;

/// What the last sim_bslu_factor found.
typedef struct sim_bslu_stats
{
    int components;         ///< connected components of the block graph (1-block components included)
    int largest;            ///< blocks of the largest component
    size_t filled_blocks;   ///< blocks of the factors (diagonal, L and U, fill-in included)
    double bytes;           ///< memory the factors need (bytes)
    unsigned long analyses; ///< orderings computed so far (only when the block pattern changed)
    unsigned long numeric;  ///< numeric factorisations so far
} sim_bslu_stats;

/// @return a factorisation object (empty), or NULL when out of memory
sim_bslu* sim_bslu_create(void);

/// Free a factorisation. NULL is ignored.
void sim_bslu_destroy(sim_bslu* lu);

/// Refuse factors of more than `bytes` (<= 0: no limit): sim_bslu_factor then returns SIM_BSLU_TOO_LARGE with
/// the figures in sim_bslu_get_stats.
void sim_bslu_set_limit(sim_bslu* lu, double bytes);

/// Factorise alpha I + beta A. The block order (connected components by smallest block, minimum degree inside, ties
/// to the smaller block) is computed again only when A's block pattern changed since the last call.
sim_bslu_status sim_bslu_factor(sim_bslu* lu, const sim_bsm* a, double alpha, double beta);

/// Solve (alpha I + beta A) x = b in place (x holds b on entry) with the last successful factorisation.
void sim_bslu_solve(sim_bslu* lu, double* x);

/// @return the figures of the last factorisation
sim_bslu_stats sim_bslu_get_stats(const sim_bslu* lu);

/// Bytes the factors of a block-diagonal matrix of nb blocks of bs need (the least sim_bslu_factor uses).
double sim_bslu_diagonal_bytes(int nb, int bs);

/// LU with partial pivoting of the bs x bs row-major matrix d, in place (P d = L U; piv[k]: the row swapped with k).
/// @return false when singular or not finite
bool sim_dense_lu(double* d, int* piv, int bs);

/// x = D^-1 x with D's sim_dense_lu factors.
void sim_dense_solve(const double* d, const int* piv, int bs, double* x);
