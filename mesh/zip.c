// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// ZIP archive reader (see zip.h), written from the PKWARE APPNOTE's record layouts; inflate is zlib's.
#include "mesh/zip.h"

#include "src/base/core.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>
#if MC_HAVE_ZLIB
#include <zlib.h>
#endif

static uint32_t le16(const unsigned char* p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char* p)
{
    return le16(p) | le16(p + 2) << 16;
}

// Central entry k at offset p (46-byte record, then name, extra field, comment): its local header (30 bytes, then
// its own name and extra lengths) and packed data must lie before the central directory.
static mc_status read_entry(mc_zip* zip, uint64_t* p, uint64_t cd_end, uint64_t cd_offset, uint32_t k, mc_error* err)
{
    const unsigned char* d = zip->data;
    if (*p + 46 > cd_end || le32(d + *p) != 0x02014b50u)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)*p, "%s: broken ZIP archive: central entry %u", zip->what,
                            k + 1);
    }
    const unsigned char* c = d + *p;
    mc_zip_entry* e = &zip->entries[k];
    uint32_t flags = le16(c + 8), name_len = le16(c + 28);
    uint64_t local = le32(c + 42);
    e->method = le16(c + 10);
    e->crc = le32(c + 16);
    e->packed_size = le32(c + 20);
    e->size = le32(c + 24);
    e->name = (const char*)c + 46;
    e->name_length = name_len;
    uint64_t next = *p + 46 + name_len + le16(c + 30) + le16(c + 32);
    if (next > cd_end)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)*p, "%s: broken ZIP archive: central entry %u overruns",
                            zip->what, k + 1);
    }
    if (e->packed_size == 0xffffffffu || e->size == 0xffffffffu || local == 0xffffffffu)
    {
        return mc_set_error(err, MC_ERR_UNSUPPORTED_FORMAT, -1, (int64_t)*p,
                            "%s: ZIP64 entries are not supported (entry %u)", zip->what, k + 1);
    }
    if (flags & 1u)
    {
        return mc_set_error(err, MC_ERR_UNSUPPORTED_FORMAT, -1, (int64_t)*p,
                            "%s: entry %u of the ZIP archive is encrypted", zip->what, k + 1);
    }
    if (local + 30 > cd_offset || le32(d + local) != 0x04034b50u)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)*p,
                            "%s: broken ZIP archive: entry %u points to no local header (offset %llu)", zip->what,
                            k + 1, (unsigned long long)local);
    }
    e->data_offset = local + 30 + le16(d + local + 26) + le16(d + local + 28);
    if (e->data_offset + e->packed_size > cd_offset)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)local,
                            "%s: broken ZIP archive: the data of entry %u (%llu bytes) runs past its end", zip->what,
                            k + 1, (unsigned long long)e->packed_size);
    }
    *p = next;
    return MC_OK;
}

mc_status mc_zip_open(mc_zip* zip, const unsigned char* data, uint64_t size, const char* what, mc_error* err)
{
    memset(zip, 0, sizeof *zip);
    zip->data = data;
    zip->size = size;
    zip->what = what;
    int64_t e = -1;
    for (int64_t k = (int64_t)size - 22; k >= 0 && k >= (int64_t)size - 22 - 65535; --k)
    {
        if (le32(data + k) == 0x06054b50u && (uint64_t)k + 22 + le16(data + k + 20) <= size)
        {
            e = k;
            break;
        }
    }
    if (e < 0)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, -1,
                            "%s: not a ZIP archive: no end-of-central-directory record (truncated or not a 3MF file)",
                            what);
    }
    uint32_t entries = le16(data + e + 10), cd_size = le32(data + e + 12), cd_offset = le32(data + e + 16);
    if (entries == 0xffffu || cd_size == 0xffffffffu || cd_offset == 0xffffffffu)
    {
        // ZIP64 (over 4 GB or 65535 entries): its locator must sit just before the record, else the archive is broken
        bool locator = e >= 20 && le32(data + e - 20) == 0x07064b50u;
        return mc_set_error(err, locator ? MC_ERR_UNSUPPORTED_FORMAT : MC_ERR_PARSE, -1, e, "%s: %s", what,
                            locator ? "ZIP64 archives are not supported"
                                    : "broken ZIP archive: ZIP64 markers without a ZIP64 locator");
    }
    if ((uint64_t)cd_offset + cd_size > (uint64_t)e || entries == 0)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, e,
                            "%s: broken ZIP archive: %u entries, central directory of %u bytes at %u, record at %lld",
                            what, entries, cd_size, cd_offset, (long long)e);
    }
    zip->entries = mc_calloc(entries, sizeof(mc_zip_entry));
    if (zip->entries == NULL)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory", what);
    }
    zip->entry_count = entries;
    uint64_t p = cd_offset;
    for (uint32_t k = 0; k < entries; ++k)
    {
        mc_status st = read_entry(zip, &p, (uint64_t)cd_offset + cd_size, cd_offset, k, err);
        if (st != MC_OK)
        {
            return st;
        }
    }
    return MC_OK;
}

void mc_zip_close(mc_zip* zip)
{
    mc_free(zip->entries);
    zip->entries = NULL;
    zip->entry_count = 0;
}

const mc_zip_entry* mc_zip_find(const mc_zip* zip, const char* name)
{
    size_t n = strlen(name);
    for (uint32_t k = 0; k < zip->entry_count; ++k)
    {
        const mc_zip_entry* e = &zip->entries[k];
        if (e->name_length == n && strncasecmp(e->name, name, n) == 0)
        {
            return e;
        }
    }
    return NULL;
}

// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) of n bytes, bit by bit through a 16-entry table.
static uint32_t crc32_of(const unsigned char* p, uint64_t n)
{
    static const uint32_t t[16] = {0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
                                   0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
                                   0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};
    uint32_t c = 0xffffffffu;
    for (uint64_t i = 0; i < n; ++i)
    {
        c ^= p[i];
        c = (c >> 4) ^ t[c & 15];
        c = (c >> 4) ^ t[c & 15];
    }
    return c ^ 0xffffffffu;
}

// Inflate the raw deflate stream `in` into exactly `size` bytes of out.
static mc_status inflate_entry(const mc_zip* zip, const mc_zip_entry* e, unsigned char* out, mc_error* err)
{
#if MC_HAVE_ZLIB
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for inflate", zip->what);
    }
    const unsigned char* in = zip->data + e->data_offset;
    uint64_t in_left = e->packed_size, out_left = e->size;
    int r = Z_OK;
    while (r == Z_OK)
    {
        // zlib counts in uInt: feed at most 1 GiB at a time
        if (z.avail_in == 0 && in_left > 0)
        {
            z.next_in = (unsigned char*)in;
            z.avail_in = (uInt)(in_left < (1u << 30) ? in_left : (1u << 30));
            in += z.avail_in;
            in_left -= z.avail_in;
        }
        if (z.avail_out == 0)
        {
            z.next_out = out + (e->size - out_left);
            z.avail_out = (uInt)(out_left < (1u << 30) ? out_left : (1u << 30));
            out_left -= z.avail_out;
        }
        uInt before_in = z.avail_in, before_out = z.avail_out;
        r = inflate(&z, Z_NO_FLUSH);
        if (r == Z_BUF_ERROR || (r == Z_OK && z.avail_in == before_in && z.avail_out == before_out))
        {
            break; // no progress: input ended early or output is full before the stream ended
        }
    }
    bool ok = r == Z_STREAM_END && z.total_out == e->size;
    inflateEnd(&z);
    if (!ok)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)e->data_offset,
                            "%s: ZIP entry '%.*s': broken deflate data (or not %llu bytes as its header says)",
                            zip->what, (int)(e->name_length < 200 ? e->name_length : 200), e->name,
                            (unsigned long long)e->size);
    }
    return MC_OK;
#else
    (void)out;
    return mc_set_error(err, MC_ERR_UNSUPPORTED_FORMAT, -1, (int64_t)e->data_offset,
                        "%s: ZIP entry '%.*s' is deflated, and this build has no zlib (install zlib1g-dev and rebuild)",
                        zip->what, (int)(e->name_length < 200 ? e->name_length : 200), e->name);
#endif
}

mc_status mc_zip_extract(const mc_zip* zip, const mc_zip_entry* e, uint64_t max_bytes, char** out, uint64_t* size,
                         mc_error* err)
{
    *out = NULL;
    *size = 0;
    int name_len = (int)(e->name_length < 200 ? e->name_length : 200);
    if (e->method != 0 && e->method != 8)
    {
        return mc_set_error(err, MC_ERR_UNSUPPORTED_FORMAT, -1, (int64_t)e->data_offset,
                            "%s: ZIP entry '%.*s' uses compression method %u (only stored and deflated are read)",
                            zip->what, name_len, e->name, e->method);
    }
    if (e->method == 0 && e->packed_size != e->size)
    {
        return mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)e->data_offset,
                            "%s: ZIP entry '%.*s' is stored with %llu bytes but says %llu", zip->what, name_len,
                            e->name, (unsigned long long)e->packed_size, (unsigned long long)e->size);
    }
    // Deflate expands at most 1032:1: a size beyond that is a lie, refused before allocating it.
    if ((max_bytes != 0 && e->size > max_bytes) || e->size / 1032 > e->packed_size + 1)
    {
        return mc_set_error(
            err, MC_ERR_LIMIT, -1, (int64_t)e->data_offset,
            "%s: ZIP entry '%.*s' claims %llu bytes from %llu (over the import's max_bytes or deflate's "
            "ratio)",
            zip->what, name_len, e->name, (unsigned long long)e->size, (unsigned long long)e->packed_size);
    }
    unsigned char* buf = mc_alloc((size_t)e->size + 1);
    if (buf == NULL)
    {
        return mc_set_error(err, MC_ERR_OUT_OF_MEMORY, -1, -1, "%s: out of memory for %llu bytes", zip->what,
                            (unsigned long long)e->size + 1);
    }
    mc_status st = MC_OK;
    if (e->method == 0)
    {
        memcpy(buf, zip->data + e->data_offset, (size_t)e->size);
    }
    else
    {
        st = inflate_entry(zip, e, buf, err);
    }
    if (st == MC_OK && crc32_of(buf, e->size) != e->crc)
    {
        st = mc_set_error(err, MC_ERR_PARSE, -1, (int64_t)e->data_offset,
                          "%s: ZIP entry '%.*s': CRC-32 mismatch (the archive is damaged)", zip->what, name_len,
                          e->name);
    }
    if (st != MC_OK)
    {
        mc_free(buf);
        return st;
    }
    buf[e->size] = '\0';
    *out = (char*)buf;
    *size = e->size;
    return MC_OK;
}
