// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Runs that cannot finish, refused before any work (issue 41): the memory of the BDF integrator against the
// machine's, a contact time scale below what doubles resolve over the run, and non-finite states caught
// before they reach the library. Part of the command-line tool, not of the library.
#pragma once

#include "src/app/scenario.h"
#include "src/app/sim_bdf.h"

#include <stdbool.h>
#include <stddef.h>

/// Most memory the BDF integrator's Newton matrix may take (bytes). With the block-sparse integrator (the default)
/// the matrix grows with the parts and their contacts: 2000 free-falling parts need 8 MB; a pile whose contacts
/// chain thousands of parts into one component needs more (its fill-in), checked at each factorisation. GSL's dense
/// msbdf (MC_SIM_BDF=msbdf) needs 2 x (12 x parts)^2 doubles, factorised in time growing as the cube of the parts
/// (800 free-falling parts: 1.5 GB and 148 s; 2000: 9.2 GB), so this limit refuses it beyond about 900 parts.
#define APP_SIM_BDF_MAX_BYTES 2e9

/// The BDF integrator's formula: SIM_BDF_METHOD_NDF (the default), or the one the environment variable MC_SIM_BDF
/// names (`ndf`, `bdf`: the classical BDF in the same code, `msbdf`: GSL's dense msbdf), for comparisons.
sim_bdf_method app_sim_bdf_method(void);

/// Bytes the BDF integrator holds for a system of n equations (12 per moving part) before any contact couples two
/// parts: sim_bdf_bytes of app_sim_bdf_method().
double app_sim_bdf_bytes(size_t n);

/// The memory the BDF integrator's Newton matrix may use: the smaller of APP_SIM_BDF_MAX_BYTES and half of `limit`
/// (<= 0: app_sim_memory_limit).
double app_sim_bdf_limit(double limit);

/// Memory this process may use: the smaller of the physical memory and the address-space limit (RLIMIT_AS), bytes.
double app_sim_memory_limit(void);

/// Before anything is loaded: refuse a BDF run whose integrator (app_sim_bdf_bytes of 12 equations per moving part)
/// needs more than app_sim_bdf_limit(limit), with the estimate and the way out (RK4 needs memory in proportion to the
/// parts). @return false with why in buf
bool app_sim_check_bdf_memory(const app_scenario* scn, double limit, char* why, size_t cap);

/// Once the contacts' time scale is known: refuse a run whose contact time scale is so short against END that a
/// step resolving it (a thousandth of it) is below 64 roundings of END: the integrator could not advance time there
/// (MASS=1e-50, STIFFNESS=1e50). @return false with why in buf
bool app_sim_check_time_scale(const app_scenario* scn, double time_scale, char* why, size_t cap);

/// Check a state vector before it reaches the library: its first non-finite entry's index, or -1 when all are finite.
long app_sim_first_non_finite(const double* y, size_t n);
