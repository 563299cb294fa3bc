// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// libFuzzer harness of one mesh file format, chosen at compile time: FUZZ_EXT is the extension (stl, obj, off, shl,
// ply, 3mf, gltf, glb, dae; all native but ply, which goes through Assimp). The readers take a path
// (mc_mesh_import_file dispatches on the extension and each reader opens the file itself; there is no in-memory entry
// point), so the input is written to a private temporary file and imported: reader, weld, checks, orientation and OBB
// tree. With FUZZ_STL_BINARY the first byte is a mode and the rest a binary STL whose header count the harness makes
// agree with the size (mode 0), leave a tail (mode 1) or leaves as it is (modes 2, 3), so that mutations reach the
// triangles instead of failing the size check. With FUZZ_3MF_WRAP the first byte is a mode too: even, the rest is a 3D
// model's XML that the harness packs into a well-formed 3MF (stored ZIP entries with their CRC-32), so that mutations
// reach the XML and model reader instead of failing the CRC check; odd, the rest is the package as it is (the ZIP
// reader's own input).
#include "fuzz_common.h"

#ifndef FUZZ_EXT
#error "define FUZZ_EXT (the file extension, e.g. -DFUZZ_EXT=obj)"
#endif
#define FUZZ_STR2(x) #x
#define FUZZ_STR(x) FUZZ_STR2(x)

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    (void)argc;
    (void)argv;
    mc_set_assert_fcn(fuzz_assert_trap);
    fuzz_make_dir();
    return 0;
}

#ifdef FUZZ_STL_BINARY
static uint8_t s_buf[1 << 20];

// The binary STL to write for this input (in s_buf), and its size.
static size_t binary_stl(const uint8_t* data, size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    uint8_t mode = data[0] & 3;
    size_t len = size - 1 < sizeof s_buf ? size - 1 : sizeof s_buf;
    memcpy(s_buf, data + 1, len);
    if (mode < 2 && len >= 84)
    {
        uint32_t n = (uint32_t)((len - 84) / 50);
        if (mode == 0)
        {
            len = 84 + 50 * (size_t)n;
        }
        else if (n > 0)
        {
            n -= 1; // at least 50 bytes after the last triangle the header counts
        }
        s_buf[0] = 'x'; // not "solid": the file is binary by its content too
        for (int k = 0; k < 4; ++k)
        {
            s_buf[80 + k] = (uint8_t)(n >> (8 * k));
        }
    }
    return len;
}
#endif

#ifdef FUZZ_3MF_WRAP
#include "tests/zip_write.h"

static uint8_t s_zip[1 << 16];

// The 3MF to write for this input (in s_zip), and its size: the model (the input after its mode byte) as the one
// stored entry 3D/3dmodel.model of a ZIP archive.
static size_t wrap_3mf(const uint8_t* data, size_t size)
{
    const char* names[] = {"3D/3dmodel.model"};
    const unsigned char* parts[] = {data + 1};
    size_t n[] = {size - 1 < sizeof s_zip - 200 ? size - 1 : sizeof s_zip - 200};
    return zip_write(s_zip, names, parts, n, 1);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
#ifdef FUZZ_STL_BINARY
    size = binary_stl(data, size);
    data = s_buf;
#endif
#ifdef FUZZ_3MF_WRAP
    if (size > 0 && (data[0] & 1) == 0)
    {
        size = wrap_3mf(data, size);
        data = s_zip;
    }
    else if (size > 0)
    {
        data++, size--;
    }
#endif
    const char* path = fuzz_write_file(FUZZ_STR(FUZZ_EXT), data, size);
    int64_t bytes0 = mc_get_byte_count();
    mc_import_options opt = mc_default_import_options();
    opt.require_closed = false; // open meshes too go through the whole build (topology, orientation, tree)
    opt.max_triangles = 1u << 20;
    mc_mesh* m = NULL;
    mc_mesh_report rep;
    mc_error err;
    memset(&err, 0, sizeof err);
    mc_status st = mc_mesh_import_file(path, &opt, &m, &rep, &err);
    FUZZ_CHECK((st == MC_OK) == (m != NULL), "import returned %d with mesh %p", (int)st, (void*)m);
    FUZZ_CHECK(st == MC_OK || (err.status == st && err.message[0] != '\0'), "import failed (%d) without a message",
               (int)st);
    FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL, "error message not terminated");
    if (m != NULL)
    {
        fuzz_check_mesh(m, &rep);
        if (rep.contact_ready)
        {
            mc_vec3 c = mc_scale(mc_add(rep.bbox_min, rep.bbox_max), 0.5);
            (void)mc_mesh_contains_point(m, c);
        }
        mc_mesh_destroy(m);
    }
    fuzz_check_bytes(bytes0, "import");
    return 0;
}
