// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// What the libFuzzer harnesses share: a reader of the fuzzer's bytes (integers, wild and tame reals, poses), a private
// temporary directory for the file readers, the assert hook, the leak check on the library's byte count, and the
// invariant check that stops a run with a message.
#pragma once

#include "meshcontact/meshcontact.h"

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv);

/// A harness may set this to print the decoded input when a check fails (what the bytes meant).
static void (*fuzz_describe)(void) __attribute__((unused));

/// Stop the run: print what broke (libFuzzer then saves the input as a crash).
static void fuzz_fail(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fuzz_fail(const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\nfuzz invariant failed: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    if (fuzz_describe != NULL)
    {
        fuzz_describe();
    }
    abort();
}

#define FUZZ_CHECK(c, ...)                                                                                             \
    do                                                                                                                 \
    {                                                                                                                  \
        if (!(c))                                                                                                      \
        {                                                                                                              \
            fuzz_fail(__VA_ARGS__);                                                                                    \
        }                                                                                                              \
    } while (0)

static inline bool fuzz_strict(void);

/// Asserts of open issues (tests/fuzz/open/README.md) that are let through to their release path unless
/// MC_FUZZ_STRICT=1. None at present (the last one, mc_query_regions' guard against a non-finite region, is fixed:
/// tests/fuzz/regressions/mesh_create/tiny_coordinate_nonfinite_region).
static inline bool fuzz_known_assert(const char* condition)
{
    (void)condition;
    return false;
}

/// The library's assert hook: say what failed, then trap (libFuzzer reports the signal with the stack).
static inline int fuzz_assert_trap(const char* condition, const char* file, int line)
{
    if (fuzz_known_assert(condition))
    {
        return 0;
    }
    fprintf(stderr, "\nMC_ASSERT failed: %s (%s:%d)\n", condition, file, line);
    if (fuzz_describe != NULL)
    {
        fuzz_describe();
    }
    return 1;
}

// ---------------------------------------------------------------------------------------------------------------
// The fuzzer's bytes, read front to back; past the end every read gives zero.
// ---------------------------------------------------------------------------------------------------------------

typedef struct fuzz_bytes
{
    const uint8_t* p; ///< next byte
    size_t n;         ///< bytes left
} fuzz_bytes;

static inline uint8_t fuzz_u8(fuzz_bytes* b)
{
    if (b->n == 0)
    {
        return 0;
    }
    b->n--;
    return *b->p++;
}

static inline uint32_t fuzz_u32(fuzz_bytes* b)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k)
    {
        v |= (uint32_t)fuzz_u8(b) << (8 * k);
    }
    return v;
}

static inline bool fuzz_bool(fuzz_bytes* b)
{
    return (fuzz_u8(b) & 1) != 0;
}

static inline double fuzz_raw_f64(fuzz_bytes* b)
{
    uint64_t bits = 0;
    for (int k = 0; k < 8; ++k)
    {
        bits |= (uint64_t)fuzz_u8(b) << (8 * k);
    }
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/// A real chosen by a mode byte: mostly small multiples of 1/8 (so that meshes touch and overlap), sometimes raw
/// bits or one of the values that break arithmetic (NaN, infinities, -0, the ends of the coordinate range and just
/// past them, denormals, DBL_MAX).
static inline double fuzz_real(fuzz_bytes* b)
{
    static const double special[] = {
        0.0,
        -0.0,
        1.0,
        -1.0,
        0x1p64,
        -0x1p64,
        0x1.0000000000001p64,
        0x1p-300,
        0x1p-240,
        1e-310,
        1e150,
        -1e150,
        1e300,
        1e308,
        1.7976931348623157e308,
        0x1p-1074,
        1e-12,
        1e12,
        0.5,
        0.125,
        3.0,
        INFINITY,
        -INFINITY,
        NAN,
        -NAN,
        1e-9,
        0x1p300,
        0x1p-299,
        0x1p63,
        0x1p65,
        0x1p-52,
        0x1.fffffffffffffp-241,
        6.0,
        0.1,
    };
    uint8_t mode = fuzz_u8(b);
    if (mode < 160)
    {
        return (double)(int8_t)fuzz_u8(b) / 8.0;
    }
    if (mode < 200)
    {
        return (double)(int32_t)fuzz_u32(b) / 65536.0;
    }
    if (mode < 232)
    {
        return special[fuzz_u8(b) % (sizeof special / sizeof special[0])];
    }
    return fuzz_raw_f64(b);
}

/// A pose: tame (small translations, a quaternion of small integers, normalised by the library) or wild.
static inline mc_pose fuzz_pose(fuzz_bytes* b)
{
    mc_pose p;
    p.p.x = fuzz_real(b);
    p.p.y = fuzz_real(b);
    p.p.z = fuzz_real(b);
    if (fuzz_u8(b) < 192)
    {
        p.q.w = (double)(int8_t)fuzz_u8(b);
        p.q.x = (double)(int8_t)fuzz_u8(b);
        p.q.y = (double)(int8_t)fuzz_u8(b);
        p.q.z = (double)(int8_t)fuzz_u8(b);
    }
    else
    {
        p.q.w = fuzz_real(b);
        p.q.x = fuzz_real(b);
        p.q.y = fuzz_real(b);
        p.q.z = fuzz_real(b);
    }
    return p;
}

static inline mc_vec3 fuzz_vec3(fuzz_bytes* b)
{
    mc_vec3 v;
    v.x = fuzz_real(b);
    v.y = fuzz_real(b);
    v.z = fuzz_real(b);
    return v;
}

static inline bool fuzz_vec3_finite(mc_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

/// MC_FUZZ_STRICT=1 in the environment: the harnesses also check what they leave out by default, the open issues listed
/// in tests/fuzz/open/README.md (each such exemption names its reproducer there), so that a reproducer shows its issue.
static inline bool fuzz_strict(void)
{
    static int strict = -1;
    if (strict < 0)
    {
        const char* e = getenv("MC_FUZZ_STRICT");
        strict = e != NULL && e[0] == '1';
    }
    return strict != 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Files for the readers: one private directory per process, one file per extension, rewritten for every input.
// ---------------------------------------------------------------------------------------------------------------

static char fuzz_dir[256] __attribute__((unused));

static inline void fuzz_remove_dir(void)
{
    // Only the files this process wrote (one per extension), then the directory itself.
    static const char* const ext[] = {"stl", "obj", "off", "shl", "ply", "3mf", "gltf", "glb", "dae"};
    char path[320];
    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; ++k)
    {
        snprintf(path, sizeof path, "%s/input.%s", fuzz_dir, ext[k]);
        unlink(path);
    }
    rmdir(fuzz_dir);
}

/// Create the private directory (TMPDIR, else /tmp); removed at exit.
static inline void fuzz_make_dir(void)
{
    const char* tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/mc_fuzz_XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(fuzz_dir) == NULL)
    {
        perror("mkdtemp");
        abort();
    }
    atexit(fuzz_remove_dir);
}

/// Write `size` bytes to <dir>/input.<ext> (replacing it) and return its path.
static inline const char* fuzz_write_file(const char* ext, const uint8_t* data, size_t size)
{
    static char path[320];
    snprintf(path, sizeof path, "%s/input.%s", fuzz_dir, ext);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
    {
        perror(path);
        abort();
    }
    size_t done = 0;
    while (done < size)
    {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
        {
            perror(path);
            abort();
        }
        done += (size_t)w;
    }
    close(fd);
    return path;
}

// ---------------------------------------------------------------------------------------------------------------
// Checks shared by the harnesses.
// ---------------------------------------------------------------------------------------------------------------

/// Everything the library allocated for one input was freed (mc_get_byte_count back to what it was before).
static inline void fuzz_check_bytes(int64_t before, const char* where)
{
    int64_t now = mc_get_byte_count();
    FUZZ_CHECK(now == before, "%s: library byte count %lld after the input, %lld before (leak in the accounting)",
               where, (long long)now, (long long)before);
}

/// A report the library returned with a mesh: finite numbers, counts that agree with the mesh, coordinates in range.
static inline void fuzz_check_mesh(const mc_mesh* m, const mc_mesh_report* r)
{
    FUZZ_CHECK(isfinite(r->volume) && isfinite(r->area) && isfinite(r->signed_volume_as_read),
               "mesh report: volume %g, area %g, volume as read %g", r->volume, r->area, r->signed_volume_as_read);
    FUZZ_CHECK(fuzz_vec3_finite(r->bbox_min) && fuzz_vec3_finite(r->bbox_max), "mesh report: non-finite bbox");
    uint32_t nv = mc_mesh_get_vertex_count(m), nt = mc_mesh_get_triangle_count(m);
    FUZZ_CHECK(nt == r->triangles && nt > 0, "mesh: %u triangles, report says %u", nt, r->triangles);
    const mc_vec3* pos = mc_mesh_get_positions(m);
    const uint32_t* idx = mc_mesh_get_indices(m);
    for (uint32_t k = 0; k < 3 * nt; ++k)
    {
        FUZZ_CHECK(idx[k] < nv, "mesh: index %u of %u vertices", idx[k], nv);
    }
    for (uint32_t k = 0; k < nv; ++k)
    {
        const double c[3] = {pos[k].x, pos[k].y, pos[k].z};
        for (int a = 0; a < 3; ++a)
        {
            double x = fabs(c[a]);
            FUZZ_CHECK(x == 0.0 || (x >= MC_COORDINATE_MIN && x <= MC_COORDINATE_MAX),
                       "mesh: vertex %u coordinate %a outside the documented range", k, c[a]);
        }
    }
}
