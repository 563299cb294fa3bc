// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Sweeps that cannot mix (issue 41): the fingerprint of a sweep's inputs, recorded in the first line of its output and
// checked by --resume, and the exclusive lock that keeps a second sweep from writing the same output.
#include "src/app/cli_sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

uint64_t sweep_hash_bytes(uint64_t h, const void* data, size_t n)
{
    const unsigned char* p = data;
    for (size_t i = 0; i < n; ++i)
    {
        h = (h ^ p[i]) * FNV_PRIME;
    }
    return h;
}

uint64_t sweep_hash_start(void)
{
    return FNV_OFFSET;
}

bool sweep_hash_file(uint64_t* h, const char* path)
{
    FILE* f = fopen(path, "rb");
    if (f == NULL)
    {
        return false;
    }
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    {
        *h = sweep_hash_bytes(*h, buf, n);
    }
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

uint64_t sweep_hash_double(uint64_t h, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g;", v);
    return sweep_hash_bytes(h, buf, strlen(buf));
}

// The inputs in the order of the line, with the names a refusal uses.
static const char* const s_names[SWEEP_FINGERPRINT_PARTS] = {"meshes", "options", "scenario", "input"};
static const char* const s_what[SWEEP_FINGERPRINT_PARTS] = {
    "other meshes (their contents differ)", "other options (force model, scale, ...)", "another scenario file",
    "another input table (its rows differ)"};

void sweep_fingerprint_line(const char* kind, const sweep_fingerprint* fp, char* buf, size_t cap)
{
    int n = snprintf(buf, cap, "# meshcontact sweep %s fingerprint:", kind);
    for (int k = 0; k < SWEEP_FINGERPRINT_PARTS && n > 0 && (size_t)n < cap; ++k)
    {
        n += snprintf(buf + n, cap - (size_t)n, " %s=%016" PRIx64, s_names[k], fp->part[k]);
    }
}

bool sweep_fingerprint_check(const char* kind, const sweep_fingerprint* fp, const char* line, char* why, size_t cap)
{
    char prefix[80];
    snprintf(prefix, sizeof prefix, "# meshcontact sweep %s fingerprint:", kind);
    if (strncmp(line, prefix, strlen(prefix)) != 0)
    {
        snprintf(why, cap,
                 "its first line is not the fingerprint of a '%s' sweep (an output of another kind of sweep, of an "
                 "older meshcontact, or not a sweep's)",
                 kind);
        return false;
    }
    const char* p = line + strlen(prefix);
    for (int k = 0; k < SWEEP_FINGERPRINT_PARTS; ++k)
    {
        char name[16];
        uint64_t v = 0;
        int used = 0;
        if (sscanf(p, " %15[a-z]=%16" SCNx64 "%n", name, &v, &used) != 2 || strcmp(name, s_names[k]) != 0)
        {
            snprintf(why, cap, "its fingerprint line is damaged");
            return false;
        }
        if (v != fp->part[k])
        {
            snprintf(why, cap,
                     "it was written by a sweep of %s (fingerprint %s=%016" PRIx64 ", this sweep's %016" PRIx64 ")",
                     s_what[k], s_names[k], v, fp->part[k]);
            return false;
        }
        p += used;
    }
    return true;
}

int sweep_lock_output(FILE* f, const char* path)
{
    // flock: released when the file is closed or the process ends (a killed sweep leaves no stale lock).
    if (flock(fileno(f), LOCK_EX | LOCK_NB) != 0)
    {
        if (errno == EWOULDBLOCK)
        {
            return cli_fail(path, "another sweep is writing this output (it is locked); wait for it or choose "
                                  "another -o");
        }
        return cli_fail(path, "cannot lock: %s", strerror(errno));
    }
    return 0;
}
