// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Runs that cannot finish, refused before any work (issue 41): the memory of the BDF integrator's dense Jacobian
// against the machine's, a contact time scale below what doubles resolve over the run, and non-finite states caught
// before they reach the library. Part of the command-line tool, not of the library.
#pragma once

#include "src/app/scenario.h"

#include <stdbool.h>
#include <stddef.h>

/// Largest dense Jacobian the BDF integrator is allowed (bytes): about 900 moving parts. Its factorisations grow
/// as the cube of the parts (800 free-falling parts: 1.5 GB and 148 s; 2000: 9 GB and beyond 300 s), so a larger
/// run is refused before any work, with RK4 as the way out.
#define APP_SIM_BDF_MAX_BYTES 2e9

/// Bytes the BDF integrator (GSL's msbdf) holds for a system of n equations: its Jacobian and iteration matrix,
/// n x n doubles each, plus O(n) vectors.
double app_sim_bdf_bytes(size_t n);

/// Memory this process may use: the smaller of the physical memory and the address-space limit (RLIMIT_AS), bytes.
double app_sim_memory_limit(void);

/// Before anything is loaded: refuse a BDF run whose dense Jacobian (app_sim_bdf_bytes of 12 equations per moving
/// part) is over APP_SIM_BDF_MAX_BYTES or half of `limit` (<= 0: app_sim_memory_limit), with the estimate and the
/// way out (RK4 needs memory in proportion to the parts). @return false with why in buf
bool app_sim_check_bdf_memory(const app_scenario* scn, double limit, char* why, size_t cap);

/// Once the contacts' time scale is known: refuse a run whose contact time scale is so short against END that a
/// step resolving it (a thousandth of it) is below 64 roundings of END: the integrator could not advance time there
/// (MASS=1e-50, STIFFNESS=1e50). @return false with why in buf
bool app_sim_check_time_scale(const app_scenario* scn, double time_scale, char* why, size_t cap);

/// Check a state vector before it reaches the library: its first non-finite entry's index, or -1 when all are finite.
long app_sim_first_non_finite(const double* y, size_t n);
