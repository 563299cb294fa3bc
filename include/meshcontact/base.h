// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Base definitions: export macro, version, status codes, error record, allocator / log / assert hooks.
#pragma once

#include <stddef.h>
#include <stdint.h>

// MC_API marks exported functions. The library is built with hidden visibility and MC_BUILDING_LIBRARY;
// users of a Windows DLL define MC_SHARED (the pkg-config file does).
#if defined(MC_BUILDING_LIBRARY)
#if defined(_WIN32)
#define MC_API __declspec(dllexport)
#else
#define MC_API __attribute__((visibility("default")))
#endif
#elif defined(_WIN32) && defined(MC_SHARED)
#define MC_API __declspec(dllimport)
#else
#define MC_API
#endif

/// Tags functions whose signature may still change between minor versions.
#define MC_EXPERIMENTAL

#define MC_VERSION_MAJOR 0
#define MC_VERSION_MINOR 1
#define MC_VERSION_PATCH 0

#ifdef __cplusplus
extern "C"
{
#endif

    /// Library version, as numbers.
    typedef struct mc_version
    {
        int major; ///< incompatible API changes
        int minor; ///< added functionality
        int patch; ///< fixes
    } mc_version;

    /// @return the version of the library that is linked (may differ from the MC_VERSION_* macros of the header).
    MC_API mc_version mc_get_version(void);

    /// Status of a call that can fail for reasons outside the programmer's control. MC_OK is zero, errors are negative.
    typedef enum mc_status
    {
        MC_OK = 0,                      ///< success
        MC_ERR_INVALID_ARGUMENT = -1,   ///< a NULL pointer, NaN, out-of-range parameter or un-defaulted def
        MC_ERR_OUT_OF_MEMORY = -2,      ///< the allocator returned NULL, or a size would overflow
        MC_ERR_IO = -3,                 ///< a file could not be opened, read or written
        MC_ERR_PARSE = -4,              ///< a file's content is malformed (the error record says where)
        MC_ERR_UNSUPPORTED_FORMAT = -5, ///< the file extension / format is not one that meshcontact accepts
        MC_ERR_MESH_NOT_CLOSED =
            -6,                 ///< open or non-manifold mesh: it encloses no volume and cannot be used for contact
        MC_ERR_EMPTY_MESH = -7, ///< no (non-degenerate) triangle left
        MC_ERR_CAPACITY = -8,   ///< a caller buffer is too small (the count needed is still reported)
        MC_ERR_NON_FINITE = -9, ///< NaN or infinite coordinate
        MC_ERR_INDEX_OUT_OF_RANGE = -10, ///< a triangle refers to a vertex that does not exist
        MC_ERR_UNBOUNDED =
            -11, ///< both solids are unbounded (flipped meshes or spheres, planes): so is their intersection
        /// a coordinate or pose translation outside the range where the arithmetic is exact (MC_COORDINATE_MAX,
        /// MC_COORDINATE_MIN in vec_math.h), or a result that overflowed (never returned as NaN or infinity)
        MC_ERR_OUT_OF_RANGE = -12,
        MC_ERR_LIMIT =
            -13, ///< an input exceeds a caller-set size limit (bytes or triangles), checked before allocating
        /// triangles of a mesh intersect each other, or a component is nested in another with the same winding (or
        /// turned inside out): its volume would be counted twice (mc_self_check, mc_mesh_report)
        MC_ERR_SELF_INTERSECTING = -14,
        MC_ERR_UNSUPPORTED = -15, ///< a pair of shapes the shape query does not handle (mc_query_shape_regions)
    } mc_status;

    /// @return a static English description of a status code (never NULL).
    MC_API const char* mc_status_string(mc_status status);

    /// Details of a failure, filled by calls that take an `mc_error*` (which may always be NULL).
    ///
    /// Errors: every call that can fail says what and where. Calls that take an `mc_error*` fill it. The world's calls
    /// on bodies and contacts (world.h) without one, those that return a null id (mc_world_create_body) or a value
    /// (getters given an invalid id), record the same in the world's last error instead (mc_world_get_last_error,
    /// which lists the calls); those that take an `mc_error*` record there too. mc_world_create, which has no world yet, refuses exactly the defs that
    /// mc_world_def_check refuses with a message. A call given a list (mc_world_set_poses, mc_world_set_velocities,
    /// mc_world_get_wrenches, mc_world_create_contact's lists, mc_mass_properties_combine) checks every entry before
    /// it changes or writes anything, and on failure sets `index` to the first bad entry. NULL for a required
    /// pointer argument is MC_ERR_INVALID_ARGUMENT (functions without a status return a neutral value); destroy
    /// functions ignore NULL.
    typedef struct mc_error
    {
        mc_status status;  ///< same value as returned
        int64_t index;     ///< 0-based entry of the list argument that is wrong, or -1
        int64_t line;      ///< 1-based line in a text file where the problem is, or -1
        int64_t offset;    ///< byte offset in the file where the problem is, or -1
        char message[512]; ///< human readable, names the file when there is one; no trailing newline
    } mc_error;

    /// Allocation hook: returns memory aligned to `alignment` (a power of two, at most 64) or NULL.
    typedef void* mc_alloc_fcn(size_t size, size_t alignment);
    /// Release hook: `size` is the size given to the matching allocation.
    typedef void mc_free_fcn(void* ptr, size_t size);
    /// Log hook: receives one message without a trailing newline. The default writes nothing.
    typedef void mc_log_fcn(const char* message);
    /// Assert hook: called on a programmer error in debug builds; return non-zero to trap, zero to continue.
    typedef int mc_assert_fcn(const char* condition, const char* file, int line);

    /// Replace the allocator. Call before any other meshcontact call (nothing allocated earlier may be live).
    /// Passing NULL for both restores the default (aligned malloc / free). Not thread-safe. With the default, on
    /// Linux, the tree build advises its blocks of 4 MiB or more for transparent huge pages (madvise); a user
    /// allocator's memory is never advised.
    MC_API void mc_set_allocator(mc_alloc_fcn* alloc_fcn, mc_free_fcn* free_fcn);

    /// @return the number of bytes currently allocated by the library through the allocator (all threads).
    MC_API int64_t mc_get_byte_count(void);

    /// Set the log hook (NULL: silence, the default).
    MC_API void mc_set_log_fcn(mc_log_fcn* fcn);

    /// Set the assert hook (NULL: the default, which traps).
    MC_API void mc_set_assert_fcn(mc_assert_fcn* fcn);

#ifdef __cplusplus
}
#endif
