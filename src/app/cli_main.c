// SPDX-FileCopyrightText: 2026 meshcontact authors
// SPDX-License-Identifier: MIT
// Entry point of the meshcontact command-line tool: subcommand dispatch (the shared helpers are in cli_common.c).
#include "src/app/app_io.h"
#include "src/app/cli.h"

#if defined(MC_HAVE_BREP)
#include "meshcontact/brep.h"
#endif

#include <signal.h>
#include <stdio.h>
#include <string.h>

typedef struct cli_command
{
    const char* name;
    cli_command_fcn* fcn;
    const char* summary;
} cli_command;

static const cli_command s_commands[] = {
    {"info", cli_info, "check a mesh file and report its triangles, closedness, volume, area, bbox"},
    {"repair", cli_repair, "repair a mesh file (weld, winding, duplicates, holes, pinches) and write .stl / .shl"},
    {"primitive", cli_primitive,
     "tessellate a box, sphere, ellipsoid, cylinder, frustum, cone or torus to .stl / .shl"},
    {"force", cli_force, "contact forces (IMPACT, friction) and wrenches of two meshes at given poses and velocities"},
    {"contact", cli_contact, "intersecting triangle pairs of two meshes at given poses"},
    {"simulate", cli_simulate, "simulate a scenario file (parts, geometry, contacts): CSV + SVG force plot"},
    {"bench", cli_bench, "time import, queries and force evaluation on your own pair of meshes"},
    {"sweep", cli_sweep, "contact at every row of a table of poses, spread over MPI ranks, resumable"},
};

static void print_help(FILE* f)
{
    fprintf(f, "usage: meshcontact <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof s_commands / sizeof s_commands[0]; ++i)
    {
        fprintf(f, "  %-10s %s\n", s_commands[i].name, s_commands[i].summary);
    }
    fprintf(f, "\n'meshcontact <command> --help' describes a command's options.\n");
}

static int dispatch(int argc, char** argv);

int main(int argc, char** argv)
{
    // A write past `ulimit -f` fails with EFBIG (and is reported, its temporary removed) instead of killing the
    // process with a half-written file.
    signal(SIGXFSZ, SIG_IGN);
    // Every command's stdout is checked once it is done (`info --json > /dev/full` fails with the reason).
    return app_finish_stdout(dispatch(argc, argv));
}

static int dispatch(int argc, char** argv)
{
    cli_install_hooks();
#if defined(MC_HAVE_BREP)
    mc_brep_register(); // STEP, IGES and BREP files through meshcontact-brep (gmsh), linked when the build has it
#endif
    if (argc < 2)
    {
        print_help(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
    {
        print_help(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0)
    {
        mc_version v = mc_get_version();
        printf("meshcontact %d.%d.%d\n", v.major, v.minor, v.patch);
        return 0;
    }
    for (size_t i = 0; i < sizeof s_commands / sizeof s_commands[0]; ++i)
    {
        if (strcmp(argv[1], s_commands[i].name) == 0)
        {
            return s_commands[i].fcn(argc - 1, argv + 1);
        }
    }
    return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}
