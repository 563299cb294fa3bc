// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Private ZIP archive reader of the 3MF reader: the central directory of an archive in memory, every entry's local
// header and data checked to lie within the archive, entries extracted (stored, or deflated through zlib) with their
// sizes and CRC-32 checked. ZIP64, encryption and other compression methods are refused with a message.
#pragma once

#include "meshcontact/base.h"

#include <stdint.h>

/// One archive entry as the central directory lists it (checked by mc_zip_open).
typedef struct mc_zip_entry
{
    const char* name;     ///< in the archive's bytes, not NUL-terminated
    uint32_t name_length; ///< bytes of name
    uint32_t method;      ///< 0 stored, 8 deflated
    uint32_t crc;         ///< CRC-32 of the uncompressed data
    uint64_t packed_size; ///< bytes in the archive
    uint64_t size;        ///< bytes once extracted
    uint64_t data_offset; ///< where the packed bytes start in the archive
} mc_zip_entry;

/// An archive in memory (the caller keeps the bytes alive).
typedef struct mc_zip
{
    const unsigned char* data;
    uint64_t size;
    mc_zip_entry* entries; ///< library allocator
    uint32_t entry_count;
    const char* what; ///< the file's name, for messages
} mc_zip;

/// Read the archive's directory: the end-of-central-directory record, each central entry and its local header, the
/// packed data of each within the archive. Free with mc_zip_close, also after a failure.
mc_status mc_zip_open(mc_zip* zip, const unsigned char* data, uint64_t size, const char* what, mc_error* err);

/// Free the directory.
void mc_zip_close(mc_zip* zip);

/// The entry named `name` (exact, case-insensitive as 3MF part names are), or NULL.
const mc_zip_entry* mc_zip_find(const mc_zip* zip, const char* name);

/// Extract an entry into a new NUL-terminated buffer from mc_alloc (free with mc_free): an entry larger than
/// max_bytes (0: no limit) is refused before inflating; a size or CRC-32 that does not match the data is an error.
mc_status mc_zip_extract(const mc_zip* zip, const mc_zip_entry* entry, uint64_t max_bytes, char** out, uint64_t* size,
                         mc_error* err);
