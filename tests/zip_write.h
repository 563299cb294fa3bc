// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// A ZIP writer for the tests and the 3mf fuzz harness (independent of mesh/zip.c): stored entries, the PKWARE APPNOTE
// record layouts (local headers and data, central directory, end record), CRC-32 computed bit by bit (the reader uses
// a table: two independent ways).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t zip_write_crc32(const unsigned char* p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; ++i)
    {
        c ^= p[i];
        for (int k = 0; k < 8; ++k)
        {
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

// Little-endian v in `bytes` bytes at p.
static inline void zip_write_le(unsigned char* p, uint32_t v, int bytes)
{
    for (int k = 0; k < bytes; ++k)
    {
        p[k] = (unsigned char)(v >> (8 * k));
    }
}

/// Write a ZIP archive of n (at most 8) stored entries: names[k] with data[k] of sizes[k] bytes, into out (room for
/// the data plus 100 bytes and twice the name per entry, plus 22). @return its size.
static inline size_t zip_write(unsigned char* out, const char* const* names, const unsigned char* const* data,
                               const size_t* sizes, int n)
{
    size_t o = 0, offsets[8];
    for (int k = 0; k < n && k < 8; ++k)
    {
        uint32_t len = (uint32_t)sizes[k], nl = (uint32_t)strlen(names[k]);
        offsets[k] = o;
        memset(out + o, 0, 30);
        zip_write_le(out + o, 0x04034b50u, 4), zip_write_le(out + o + 4, 20, 2);
        zip_write_le(out + o + 14, zip_write_crc32(data[k], len), 4);
        zip_write_le(out + o + 18, len, 4), zip_write_le(out + o + 22, len, 4), zip_write_le(out + o + 26, nl, 2);
        memcpy(out + o + 30, names[k], nl);
        memcpy(out + o + 30 + nl, data[k], len);
        o += 30 + nl + len;
    }
    size_t cd = o;
    for (int k = 0; k < n && k < 8; ++k)
    {
        uint32_t len = (uint32_t)sizes[k], nl = (uint32_t)strlen(names[k]);
        memset(out + o, 0, 46);
        zip_write_le(out + o, 0x02014b50u, 4), zip_write_le(out + o + 4, 20, 2), zip_write_le(out + o + 6, 20, 2);
        zip_write_le(out + o + 16, zip_write_crc32(data[k], len), 4);
        zip_write_le(out + o + 20, len, 4), zip_write_le(out + o + 24, len, 4), zip_write_le(out + o + 28, nl, 2);
        zip_write_le(out + o + 42, (uint32_t)offsets[k], 4);
        memcpy(out + o + 46, names[k], nl);
        o += 46 + nl;
    }
    memset(out + o, 0, 22);
    zip_write_le(out + o, 0x06054b50u, 4), zip_write_le(out + o + 8, (uint32_t)n, 2);
    zip_write_le(out + o + 10, (uint32_t)n, 2);
    zip_write_le(out + o + 12, (uint32_t)(o - cd), 4), zip_write_le(out + o + 16, (uint32_t)cd, 4);
    return o + 22;
}
